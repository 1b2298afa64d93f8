/**
 * Diagnostics are data, not exceptions: every problem found in a skill or a
 * configured directory becomes one of these, with a stable code.
 */

export type Severity = 'error' | 'warning';

/**
 * Stable diagnostic codes. Never rename one: users filter on them.
 * Grouped by the layer that reports them.
 */
export const DiagnosticCodes = {
  // frontmatter/: fences and YAML syntax
  FRONTMATTER_UNCLOSED: 'FRONTMATTER_UNCLOSED',
  FRONTMATTER_NOT_MAP: 'FRONTMATTER_NOT_MAP',
  YAML_SYNTAX: 'YAML_SYNTAX',
  YAML_BAD_INDENT: 'YAML_BAD_INDENT',
  YAML_TAB_INDENT: 'YAML_TAB_INDENT',
  YAML_UNCLOSED_QUOTE: 'YAML_UNCLOSED_QUOTE',
  YAML_UNCLOSED_FLOW: 'YAML_UNCLOSED_FLOW',
  YAML_BAD_ESCAPE: 'YAML_BAD_ESCAPE',
  YAML_DUPLICATE_KEY: 'YAML_DUPLICATE_KEY',
  YAML_UNSUPPORTED: 'YAML_UNSUPPORTED',
  YAML_TOO_DEEP: 'YAML_TOO_DEEP',
  YAML_RECOVERED: 'YAML_RECOVERED',
  // schema.ts: metadata validation
  METADATA_REQUIRED: 'METADATA_REQUIRED',
  METADATA_INVALID: 'METADATA_INVALID',
  NAME_FORMAT: 'NAME_FORMAT',
  NAME_MISMATCH: 'NAME_MISMATCH',
  DESCRIPTION_TOO_LONG: 'DESCRIPTION_TOO_LONG',
  COMPATIBILITY_TOO_LONG: 'COMPATIBILITY_TOO_LONG',
  NAME_INVISIBLE_CHARACTER: 'NAME_INVISIBLE_CHARACTER',
  DESCRIPTION_PLACEHOLDER: 'DESCRIPTION_PLACEHOLDER',
  // discover/: directories, files and resources
  DIRECTORY_NOT_FOUND: 'DIRECTORY_NOT_FOUND',
  DIRECTORY_UNREADABLE: 'DIRECTORY_UNREADABLE',
  SKILL_UNREADABLE: 'SKILL_UNREADABLE',
  SKILL_DUPLICATE: 'SKILL_DUPLICATE',
  SYMLINK_LOOP: 'SYMLINK_LOOP',
  SYMLINK_BROKEN: 'SYMLINK_BROKEN',
  RESOURCE_UNREADABLE: 'RESOURCE_UNREADABLE',
  RESOURCE_TOO_LARGE: 'RESOURCE_TOO_LARGE',
  DIRECTORY_VANISHED: 'DIRECTORY_VANISHED',
  SYMLINK_CHAIN_TOO_LONG: 'SYMLINK_CHAIN_TOO_LONG',
  SKILL_FILE_CASE: 'SKILL_FILE_CASE',
  FILTER_PATTERN: 'FILTER_PATTERN',
  NAME_LOOKALIKE: 'NAME_LOOKALIKE',
  // packages.ts: skills installed as npm packages
  PACKAGE_NOT_FOUND: 'PACKAGE_NOT_FOUND',
  PACKAGE_NOT_A_SKILL: 'PACKAGE_NOT_A_SKILL',
  // prebuilt-index.ts: an index file that cannot be used, a SKILL.md changed since the index was built
  INDEX_UNUSABLE: 'INDEX_UNUSABLE',
  INDEX_STALE: 'INDEX_STALE',
} as const;

export type DiagnosticCode = (typeof DiagnosticCodes)[keyof typeof DiagnosticCodes];

export interface Diagnostic {
  code: DiagnosticCode;
  severity: Severity;
  /** The file (or directory) the problem is in; `<input>` for text parsed without a file name. */
  file: string;
  /** 1-based line; 0 when the problem has no position inside a file (a missing directory). */
  line: number;
  /** 1-based column; 0 when the problem has no position inside a file. */
  column: number;
  message: string;
}

export function isError(diagnostic: Diagnostic): boolean {
  return diagnostic.severity === 'error';
}

/** `file:line:column code message`, the format editors and the CLI understand. */
export function formatDiagnostic(diagnostic: Diagnostic): string {
  const where = diagnostic.line > 0 ? `${diagnostic.file}:${diagnostic.line}:${diagnostic.column}` : diagnostic.file;
  return `${where} ${diagnostic.code} ${diagnostic.message}`;
}

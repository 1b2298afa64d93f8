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
  // spec-fields.ts: the specification's shape rules, checked under strict only
  FIELD_NOT_IN_SPEC: 'FIELD_NOT_IN_SPEC',
  METADATA_VALUE_NOT_STRING: 'METADATA_VALUE_NOT_STRING',
  ALLOWED_TOOLS_LIST: 'ALLOWED_TOOLS_LIST',
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
  // index/prebuilt/: an index file that cannot be used, a SKILL.md changed since the index was built, ranking
  // data another version wrote
  INDEX_UNUSABLE: 'INDEX_UNUSABLE',
  INDEX_STALE: 'INDEX_STALE',
  INDEX_RANKER_OUTDATED: 'INDEX_RANKER_OUTDATED',
  // source/listing-poll.ts: s3:// places storage could not list (an outage; access denied or no such bucket)
  STORAGE_UNAVAILABLE: 'STORAGE_UNAVAILABLE',
  STORAGE_ACCESS: 'STORAGE_ACCESS',
  // cli/overlap.ts: `sisu-skills validate` only
  DESCRIPTION_OVERLAP: 'DESCRIPTION_OVERLAP',
  // trust/: a place's signed manifest (skills.manifest.json) and the skills it does not vouch for
  MANIFEST_INVALID: 'MANIFEST_INVALID',
  MANIFEST_EXPIRED: 'MANIFEST_EXPIRED',
  MANIFEST_ROLLBACK: 'MANIFEST_ROLLBACK',
  UNTRUSTED_SKILL: 'UNTRUSTED_SKILL',
} as const;

export type DiagnosticCode = (typeof DiagnosticCodes)[keyof typeof DiagnosticCodes];

/**
 * How bad a code is: `'error'` (the skill is skipped), `'warning'` (reported,
 * the skill loads), `'strict'` (an agentskills.io rule: a warning, an error
 * under the `strict` option), or `'strict-warning'` (a specification rule
 * checked only under `strict`, and then a warning: the skill loads). The one place a code's severity is decided; the
 * docs/diagnostics.md's table is tested against it.
 */
export type SeverityRule = Severity | 'strict' | 'strict-warning';

export const DiagnosticSeverity: Readonly<Record<DiagnosticCode, SeverityRule>> = {
  FRONTMATTER_UNCLOSED: 'error',
  FRONTMATTER_NOT_MAP: 'error',
  YAML_SYNTAX: 'error',
  YAML_BAD_INDENT: 'error',
  YAML_TAB_INDENT: 'error',
  YAML_UNCLOSED_QUOTE: 'error',
  YAML_UNCLOSED_FLOW: 'error',
  YAML_BAD_ESCAPE: 'error',
  YAML_DUPLICATE_KEY: 'error',
  YAML_UNSUPPORTED: 'error',
  YAML_TOO_DEEP: 'error',
  YAML_RECOVERED: 'warning',
  METADATA_REQUIRED: 'error',
  METADATA_INVALID: 'error',
  NAME_FORMAT: 'strict',
  NAME_MISMATCH: 'strict',
  DESCRIPTION_TOO_LONG: 'strict',
  COMPATIBILITY_TOO_LONG: 'strict',
  // Always an error, strict or not: such a name could forge a catalog line or hide text from a reader.
  NAME_INVISIBLE_CHARACTER: 'error',
  // Fine to validate, not to ship.
  DESCRIPTION_PLACEHOLDER: 'strict',
  FIELD_NOT_IN_SPEC: 'strict-warning',
  METADATA_VALUE_NOT_STRING: 'strict-warning',
  ALLOWED_TOOLS_LIST: 'strict-warning',
  DIRECTORY_NOT_FOUND: 'warning',
  DIRECTORY_UNREADABLE: 'warning',
  SKILL_UNREADABLE: 'error',
  SKILL_DUPLICATE: 'warning',
  SYMLINK_LOOP: 'warning',
  SYMLINK_BROKEN: 'warning',
  RESOURCE_UNREADABLE: 'warning',
  RESOURCE_TOO_LARGE: 'warning',
  DIRECTORY_VANISHED: 'warning',
  SYMLINK_CHAIN_TOO_LONG: 'warning',
  SKILL_FILE_CASE: 'warning',
  FILTER_PATTERN: 'warning',
  NAME_LOOKALIKE: 'warning',
  PACKAGE_NOT_FOUND: 'warning',
  PACKAGE_NOT_A_SKILL: 'warning',
  INDEX_UNUSABLE: 'warning',
  INDEX_STALE: 'warning',
  INDEX_RANKER_OUTDATED: 'warning',
  STORAGE_UNAVAILABLE: 'warning',
  STORAGE_ACCESS: 'warning',
  // Advice about the library as a whole, never a reason to skip a skill.
  DESCRIPTION_OVERLAP: 'warning',
  // Nothing unverified is served (under `trust`, mode 'enforce'): the place's skills, or the skill, are left out.
  MANIFEST_INVALID: 'error',
  MANIFEST_EXPIRED: 'error',
  MANIFEST_ROLLBACK: 'error',
  UNTRUSTED_SKILL: 'error',
};

/** The severity of `code`; the only place `strict` is applied. */
export function severityOf(code: DiagnosticCode, strict = false): Severity {
  const rule = DiagnosticSeverity[code];
  if (rule === 'strict-warning') return 'warning';
  return rule === 'strict' ? (strict ? 'error' : 'warning') : rule;
}

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

/** Where a problem is: a file or folder alone (a path), or a 1-based line and column in a file. */
export type Place = string | { file: string; line: number; column: number };

/** A diagnostic for `code` at `place`, its severity from the table. `message` says how to fix the problem. */
export function createDiagnostic(code: DiagnosticCode, place: Place, message: string, strict = false): Diagnostic {
  const severity = severityOf(code, strict);
  if (typeof place === 'string') return { code, severity, file: place, line: 0, column: 0, message };
  return { code, severity, file: place.file, line: place.line, column: place.column, message };
}

/**
 * Where one pass (parsing a file, validating it, scanning folders, listing
 * resources) reports its problems, in the order found. `strict` is the
 * option's value for the pass.
 */
export class DiagnosticSink {
  readonly diagnostics: Diagnostic[] = [];

  constructor(private readonly strict = false) {}

  report(code: DiagnosticCode, place: Place, message: string): void {
    this.diagnostics.push(createDiagnostic(code, place, message, this.strict));
  }

  /** Whether an error was reported: the skill will be skipped. */
  get hasErrors(): boolean {
    return this.diagnostics.some(isError);
  }
}

/**
 * The agentskills.io specification's shape rules that `strict` adds on top of
 * validation (schema.ts): top-level fields the specification does not define
 * belong under `metadata`, `metadata` maps strings to strings, and
 * `allowed-tools` is a space-separated string. Fields that SISU's own skills,
 * the seed format and documented hosts use are recognised (no warning); the
 * list is docs/frontmatter-fields.md, and a test keeps the two equal.
 * Reported only under `strict`, and only as warnings: the skill still loads.
 */
import type { DiagnosticSink } from '../base/diagnostics.js';
import type { FieldInfo, ParsedFrontmatter } from '../frontmatter/parse.js';

/** The fields the agentskills.io specification defines. */
export const SPEC_FIELDS: readonly string[] = ['name', 'description', 'license', 'compatibility', 'metadata', 'allowed-tools'];

/**
 * Fields outside the specification that we recognise, with who uses them.
 * SISU's skill packages and the seed format: version, author, tags (and
 * SISU's `requires`, the tools a skill expects). Claude
 * Code's documented skill frontmatter: the rest.
 */
export const RECOGNISED_EXTENSIONS: Readonly<Record<string, string>> = {
  version: 'SISU skills, seed format',
  author: 'SISU skills, seed format',
  tags: 'SISU skills, seed format',
  requires: 'SISU skills',
  when_to_use: 'Claude Code',
  'argument-hint': 'Claude Code',
  arguments: 'Claude Code',
  'disable-model-invocation': 'Claude Code',
  'user-invocable': 'Claude Code',
  model: 'Claude Code',
  effort: 'Claude Code',
  context: 'Claude Code',
  agent: 'Claude Code',
  hooks: 'Claude Code',
  paths: 'Claude Code',
  shell: 'Claude Code',
};

const KNOWN = new Set([...SPEC_FIELDS, ...Object.keys(RECOGNISED_EXTENSIONS)]);

/** Whether `field` is a specification field or a recognised extension (no strict warning). */
export function isRecognisedField(field: string): boolean {
  return KNOWN.has(field);
}

/** What is there instead of a string, in words. */
function kindOf(value: unknown): string {
  if (value === null || value === undefined) return 'an empty value (null)';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a nested map';
  if (typeof value === 'boolean') return `a boolean (${String(value)})`;
  return `a number (${String(value)})`;
}

/** Keys printed in messages are cut: a key can be any length. */
function shown(key: string): string {
  return JSON.stringify(key.length > 60 ? `${key.slice(0, 60)}…` : key);
}

/**
 * Reports the specification's shape rules for one file's frontmatter into
 * `sink`. `file` and `parsed.fields` give the positions (a metadata entry is
 * reported at `metadata:`, the parser keeps top-level positions only).
 */
export function checkSpecFields(metadata: Record<string, unknown>, parsed: ParsedFrontmatter, file: string, sink: DiagnosticSink): void {
  const at = (info: FieldInfo | undefined) => ({ file, line: info?.line ?? 1, column: info?.column ?? 1 });
  for (const key of Object.keys(metadata)) {
    if (isRecognisedField(key)) continue;
    sink.report(
      'FIELD_NOT_IN_SPEC',
      at(parsed.fields[key]),
      `${shown(key)}: is not a field of the agentskills.io specification, and other hosts may reject the ` +
        `skill. Move it under \`metadata:\` as a string: an indented \`${key}: "..."\` line below \`metadata:\`.`,
    );
  }
  const map = metadata.metadata;
  if (map !== null && typeof map === 'object' && !Array.isArray(map)) {
    for (const [key, value] of Object.entries(map as Record<string, unknown>)) {
      if (typeof value === 'string') continue;
      sink.report(
        'METADATA_VALUE_NOT_STRING',
        at(parsed.fields.metadata),
        `metadata.${key}: is ${kindOf(value)}; the specification maps metadata keys to strings. Quote ` +
          `it (\`${key}: "..."\`), or flatten a nested map into keys such as \`${key}-name: "..."\`.`,
      );
    }
  }
  const tools = metadata['allowed-tools'];
  if (Array.isArray(tools)) {
    const joined = tools.filter((t): t is string => typeof t === 'string').join(' ');
    sink.report(
      'ALLOWED_TOOLS_LIST',
      at(parsed.fields['allowed-tools']),
      `allowed-tools: is a list; the specification's form is one space-separated string. Write \`allowed-tools: ${joined === '' ? 'Read Bash' : joined}\`.`,
    );
  }
}

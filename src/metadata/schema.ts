/**
 * Metadata validation: SKILL.md frontmatter checked against the fields'
 * table (fields.ts: the fast path for the common valid shape, else the zod
 * schema) and the agentskills.io naming rules, turned into positioned
 * diagnostics. Never throws: every problem is a Diagnostic.
 */
import type { z } from 'zod';
import { DiagnosticSink, type Diagnostic, type DiagnosticCode } from '../base/diagnostics.js';
import type { FieldInfo, ParsedFrontmatter } from '../frontmatter/parse.js';
import { DESCRIPTION_PLACEHOLDER, isDescriptionPlaceholder, PLACEHOLDER_MESSAGE } from './placeholder.js';
import { escapeInvisible, invisibleOrControl } from './names.js';
import { checkSpecFields } from './spec-fields.js';
import type { SkillMetadata } from '../base/model.js';
import { expectedOf, fastParse, hasText, isRequiredField, OPTIONAL_FIELDS, SkillMetadataSchema, STRING_FIELDS } from './fields.js';

const MAX_NAME_LENGTH = 64;
const MAX_DESCRIPTION_LENGTH = 1024;
const MAX_COMPATIBILITY_LENGTH = 500;

const NAME_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export interface ValidationContext {
  /** Absolute path of the SKILL.md, for diagnostics. */
  file: string;
  /** Name of the folder holding the SKILL.md; the skill's name must equal it (unless it is a package root). */
  folderName: string;
  /**
   * The npm package the skill came from, when it did. For a package's root
   * skill the name is judged against the package name (`expectedName`), and no
   * advice ever suggests renaming anything an install put under node_modules.
   */
  package?: { name: string; version: string | undefined; expectedName?: string };
  /** Report agentskills.io naming and length rules as errors instead of warnings. */
  strict: boolean;
}

export interface ValidationResult {
  /** The validated metadata; absent when any error was found. */
  metadata?: SkillMetadata;
  diagnostics: Diagnostic[];
}

/** Validate parsed frontmatter as skill metadata. Never throws. */
export function validateMetadata(parsed: ParsedFrontmatter, context: ValidationContext): ValidationResult {
  const input = prepareInput(parsed);
  const sink = new DiagnosticSink(context.strict);
  const { diagnostics } = sink;
  // Discovery validates every skill: take the common, valid shape without zod's per-field
  // contexts and issue objects; anything else goes through zod so messages stay the same.
  // The specification's shape rules are strict-only warnings: without strict nothing new is printed.
  if (context.strict) checkSpecFields(parsed.metadata, parsed, context.file, sink);
  const fast = fastParse(input);
  if (fast) {
    checkNamingRules(input, parsed, context, sink);
    return sink.hasErrors ? { diagnostics } : { metadata: fast, diagnostics };
  }
  const result = SkillMetadataSchema.safeParse(input);
  if (!result.success) {
    for (const issue of result.error.issues) reportIssue(issue, input, parsed, context, sink);
  }
  checkNamingRules(input, parsed, context, sink);
  if (!result.success || sink.hasErrors) return { diagnostics };
  return { metadata: result.data, diagnostics };
}

/** Length in code points, as `[...text].length`, without building the array. */
function codePointLength(text: string): number {
  let length = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        length--;
        i++;
      }
    }
  }
  return length;
}

/**
 * String fields keep the scalar's source text when YAML typed them otherwise
 * (`version: 1.10` must stay "1.10", not 1.1). An empty optional field (YAML
 * null) means "not given" and is dropped.
 */
function prepareInput(parsed: ParsedFrontmatter): Record<string, unknown> {
  const input: Record<string, unknown> = { ...parsed.metadata };
  for (const key of STRING_FIELDS) {
    const value = input[key];
    if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
      input[key] = parsed.fields[key]?.plain?.trim() || String(value);
    }
  }
  for (const key of OPTIONAL_FIELDS) {
    if (input[key] === null) delete input[key];
  }
  if (Array.isArray(input.tags)) input.tags = tagsAsText(input.tags);
  return input;
}

/**
 * A tag list with YAML's numbers and booleans read back as text
 * (`tags: [python, 3, 2024]` is ["python", "3", "2024"]) and empty items
 * dropped. Maps and lists stay, for the schema to report. List items carry
 * no source text, so a number is written as YAML read it (`1.10` as "1.1").
 */
function tagsAsText(tags: readonly unknown[]): unknown[] {
  const out: unknown[] = [];
  for (const tag of tags) {
    if (tag === null || tag === undefined) continue;
    out.push(typeof tag === 'number' || typeof tag === 'boolean' || typeof tag === 'bigint' ? String(tag) : tag);
  }
  return out;
}

/** Reports `code` at the key `at` (the opening fence when its position is unknown). */
function report(sink: DiagnosticSink, code: DiagnosticCode, context: ValidationContext, at: FieldInfo | undefined, message: string): void {
  sink.report(code, { file: context.file, line: at?.line ?? 1, column: at?.column ?? 1 }, message);
}

function reportIssue(
  issue: z.ZodIssue,
  input: Record<string, unknown>,
  parsed: ParsedFrontmatter,
  context: ValidationContext,
  sink: DiagnosticSink,
): void {
  // The schema is an object, so every issue sits under a top-level key.
  const key = String(issue.path[0]);
  const field = parsed.fields[key];
  const value = valueAt(input, issue.path);
  if (isRequiredField(key) && issue.path.length === 1 && isBlank(value)) {
    report(sink, 'METADATA_REQUIRED', context, value === undefined ? undefined : field, requiredMessage(key, value, parsed, context));
  } else {
    report(sink, 'METADATA_INVALID', context, field, formatIssue(issue, input));
  }
}

function isBlank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && !hasText(value));
}

function requiredMessage(key: string, value: unknown, parsed: ParsedFrontmatter, context: ValidationContext): string {
  const example =
    key === 'name'
      ? `\`name: ${suggestName(context.folderName) ?? 'my-skill'}\``
      : '`description: What the skill does and when to use it.`';
  if (!parsed.hasFrontmatter) {
    return `${key}: is missing because SKILL.md has no frontmatter. Start the file with a \`---\` block holding name and description, e.g. ${example}.`;
  }
  if (value === undefined) return `${key}: is missing. Add ${example} to the frontmatter.`;
  return `${key}: is empty. Give it a value, e.g. ${example}.`;
}

/** A zod issue as `field: message` in plain English, describing the offending value in `input`. */
export function formatIssue(issue: z.ZodIssue, input: Record<string, unknown>): string {
  const key = String(issue.path[0]);
  const label = formatPath(issue.path);
  const value = valueAt(input, issue.path);
  if (issue.code === 'too_big' && typeof value === 'string') {
    return `${label}: is ${value.length} characters long; the limit is ${String(issue.maximum)}. Shorten it.`;
  }
  if (issue.code === 'invalid_type' || issue.code === 'invalid_union') {
    const expected =
      issue.path.length > 1 ? 'a string' : (expectedOf(key) ?? `a ${issue.code === 'invalid_type' ? issue.expected : 'valid value'}`);
    return `${label}: must be ${expected}, got ${describeValue(value)}.`;
  }
  // Zod's own messages for other issues are plain sentences ("Invalid input").
  return `${label}: ${issue.message}.`;
}

/** `tags[1]`, `metadata.owner`: where an issue is, as the author wrote it. */
function formatPath(path: ReadonlyArray<string | number>): string {
  let text = '';
  for (const part of path) text += typeof part === 'number' ? `[${part}]` : text === '' ? part : `.${part}`;
  return text;
}

function valueAt(input: Record<string, unknown>, path: ReadonlyArray<string | number>): unknown {
  let current: unknown = input;
  for (const part of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string | number, unknown>)[part];
  }
  return current;
}

/** A value's kind in words, for "got ..." (never its JSON). */
export function describeValue(value: unknown): string {
  if (value === undefined || value === null) return 'an empty value';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'number' || typeof value === 'bigint') return 'a number';
  if (typeof value === 'boolean') return 'true/false';
  if (Array.isArray(value)) {
    const kinds = [...new Set(value.filter((item) => typeof item !== 'string').map(describeValue))];
    return kinds.length === 0 ? 'a list' : `a list containing ${kinds.join(' and ')}`;
  }
  if (value instanceof Date) return 'a date';
  return typeof value === 'object' ? 'a map' : `a ${typeof value}`;
}

// ---------------------------------------------------------------------------
// agentskills.io naming and length rules (their severity, strict or not, is
// diagnostics.ts's table). A name with invisible or control characters is
// always an error.

function checkNamingRules(
  input: Record<string, unknown>,
  parsed: ParsedFrontmatter,
  context: ValidationContext,
  sink: DiagnosticSink,
): void {
  const { name, description, compatibility } = input;
  if (typeof name === 'string' && hasText(name)) checkName(name, parsed, context, sink);
  // A text has at most as many code points as UTF-16 units: only a long one needs counting.
  if (typeof description === 'string' && description.length > MAX_DESCRIPTION_LENGTH) {
    const length = codePointLength(description);
    if (length > MAX_DESCRIPTION_LENGTH) {
      const message =
        `description: is ${length} characters long; the limit is ${MAX_DESCRIPTION_LENGTH}. ` +
        `Keep it to what the skill does and when to use it, and move details into the body.`;
      report(sink, 'DESCRIPTION_TOO_LONG', context, parsed.fields.description, message);
    }
  }
  // The description `sisu-skills init` writes when none is given: fine to validate, not to ship.
  if (mayBePlaceholder(description) && isDescriptionPlaceholder(description)) {
    report(sink, 'DESCRIPTION_PLACEHOLDER', context, parsed.fields.description, PLACEHOLDER_MESSAGE);
  }
  if (typeof compatibility === 'string' && compatibility.length > MAX_COMPATIBILITY_LENGTH) {
    const length = codePointLength(compatibility);
    if (length > MAX_COMPATIBILITY_LENGTH) {
      const message =
        `compatibility: is ${length} characters long; the limit is ${MAX_COMPATIBILITY_LENGTH}. Name ` +
        `only what the skill needs to run (tools, network, platform) and move the rest into the body.`;
      report(sink, 'COMPATIBILITY_TOO_LONG', context, parsed.fields.compatibility, message);
    }
  }
}

/**
 * The placeholder's first word. The placeholder check compares texts with
 * whitespace folded, which leaves every word as it is, so a description
 * without this word cannot hold the placeholder: the folding (a regular
 * expression over the whole description, a tenth of validation's time on a
 * cold start at 2,000 skills) is skipped for nearly every skill.
 */
const PLACEHOLDER_WORD = DESCRIPTION_PLACEHOLDER.trim().split(/\s/)[0] ?? '';

function mayBePlaceholder(description: unknown): boolean {
  return typeof description === 'string' && description.includes(PLACEHOLDER_WORD);
}

/** The name rules for a non-empty `name`. */
function checkName(name: string, parsed: ParsedFrontmatter, context: ValidationContext, sink: DiagnosticSink): void {
  // A name in the agentskills.io format is printable ASCII: nothing hidden to look for.
  const hidden = NAME_PATTERN.test(name) ? undefined : invisibleOrControl(name);
  if (hidden !== undefined) {
    const fix = nameFormatProblem(context.folderName) === undefined ? context.folderName : (suggestName(name) ?? 'my-skill');
    const message =
      `name: ${quoteName(name)} contains ${hidden}; such characters can hide text or break the skill ` +
      `catalog, so the skill is skipped. Retype the name with only a-z, 0-9 and -, e.g. \`name: ${fix}\`.`;
    report(sink, 'NAME_INVISIBLE_CHARACTER', context, parsed.fields.name, message);
    return;
  }
  const formatProblem = nameFormatProblem(name);
  if (formatProblem) {
    const suggestion = suggestName(name);
    const fix = suggestion && suggestion !== name ? ` Use \`name: ${suggestion}\`.` : '';
    const message =
      `name: ${quoteName(name)} ${formatProblem}. A skill name is 1-${MAX_NAME_LENGTH} ` +
      `lowercase letters, digits and single hyphens, with no hyphen at either end.${fix}`;
    report(sink, 'NAME_FORMAT', context, parsed.fields.name, message);
  }
  const mismatch = nameMismatch(name, context);
  if (mismatch) report(sink, 'NAME_MISMATCH', context, parsed.fields.name, mismatch);
}

/**
 * Why `name` does not match what its place says it should be, or undefined.
 * A package root is judged by its package name; anything an install put under
 * node_modules is the package author's to fix, so the advice says whom to tell.
 */
function nameMismatch(name: string, context: ValidationContext): string | undefined {
  const pkg = context.package;
  const expected = pkg?.expectedName ?? context.folderName;
  if (name === expected) return undefined;
  if (pkg) {
    const origin = pkg.version === undefined ? pkg.name : `${pkg.name}@${pkg.version}`;
    const against =
      pkg.expectedName === undefined
        ? `its folder name ${quoteName(context.folderName)}`
        : `package ${pkg.name} (expected ${quoteName(pkg.expectedName)}: the package name without its scope and "skill-")`;
    return (
      `name: ${quoteName(name)} does not match ${against}. The skill comes from ` +
      `package ${origin}: report it to the package's author, or pin another version.`
    );
  }
  if (/[\\/]node_modules[\\/]/.test(context.file)) {
    return (
      `name: ${quoteName(name)} does not match its folder name ${quoteName(context.folderName)}. The skill was ` +
      `installed under node_modules: report it to its package's author rather than renaming anything there.`
    );
  }
  return (
    `name: ${quoteName(name)} does not match its folder name ${quoteName(context.folderName)}. Rename ` +
    `the folder to ${quoteName(name)}, or set \`name: ${escapeInvisible(context.folderName)}\`.`
  );
}

/** Most characters of a name quoted in a message: a name is at most 64, a broken one can be any length. */
const QUOTED_NAME_LENGTH = 80;

/** `name` for a message: invisible characters escaped, cut to QUOTED_NAME_LENGTH characters. */
function quoteName(name: string): string {
  const chars = [...name.slice(0, QUOTED_NAME_LENGTH * 2)];
  const shown = chars.length > QUOTED_NAME_LENGTH ? `${chars.slice(0, QUOTED_NAME_LENGTH).join('')}…` : name;
  return `"${escapeInvisible(shown)}"`;
}

/** Why `name` breaks the agentskills.io format, or undefined when it does not. */
export function nameFormatProblem(name: string): string | undefined {
  if (name.length > MAX_NAME_LENGTH) return `is ${name.length} characters long (the limit is ${MAX_NAME_LENGTH})`;
  if (NAME_PATTERN.test(name)) return undefined;
  if (/[A-Z]/.test(name)) return 'contains uppercase letters';
  if (/[^a-z0-9-]/.test(name)) return 'contains characters other than a-z, 0-9 and -';
  if (name.startsWith('-') || name.endsWith('-')) return 'starts or ends with a hyphen';
  return 'contains consecutive hyphens';
}

/** The kebab-case form of `text` that passes the name rules, if there is one. */
export function suggestName(text: string): string | undefined {
  const kebab = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, MAX_NAME_LENGTH)
    .replace(/^-+|-+$/g, '');
  return kebab === '' ? undefined : kebab;
}

/**
 * What `sisu-skills init` writes, as text; no disk access. The name and
 * description checks say why an argument is refused; skillFileText builds a
 * SKILL.md that this package's own parser reads back to exactly the name and
 * description given, so `validate` accepts the result at once.
 */
import { parseFrontmatter } from '../frontmatter/parse.js';
import { DESCRIPTION_PLACEHOLDER } from '../metadata/placeholder.js';
import { nameFormatProblem, suggestName } from '../metadata/schema.js';

/** agentskills.io's limit, as validation applies it (in code points). */
const MAX_DESCRIPTION_LENGTH = 1024;

/** Why `name` cannot be a skill's name (and its folder's), with the fix; undefined when it can. */
export function initNameProblem(name: string): string | undefined {
  if (name === '') return 'the skill name is empty. Give one, e.g. `sisu-skills init pdf-forms`.';
  const problem = nameFormatProblem(name);
  if (problem === undefined) return undefined;
  const suggestion = suggestName(name);
  const fix = suggestion !== undefined && suggestion !== name ? ` Try \`sisu-skills init ${suggestion}\`.` : '';
  return (
    `"${name}" ${problem}. A skill name (which is also its folder's name) is 1-64 ` +
    `lowercase letters, digits and single hyphens, with no hyphen at either end.${fix}`
  );
}

/** Why `description` would fail `validate --strict`; undefined when it passes. */
export function initDescriptionProblem(description: string): string | undefined {
  if (description.trim() === '')
    return '--description is empty. Say what the skill does and when to use it, or leave --description out to get a placeholder.';
  const length = [...description.trim()].length;
  if (length > MAX_DESCRIPTION_LENGTH) {
    return (
      `--description is ${length} characters long; the limit is ${MAX_DESCRIPTION_LENGTH}. Keep ` +
      `it to what the skill does and when to use it, and put details in the body of SKILL.md.`
    );
  }
  return undefined;
}

/** The outline every new skill starts from: the sections a reader of SKILL.md looks for. */
function body(name: string): string {
  return [
    `# ${name}`,
    '',
    '## When to use',
    '',
    '- TODO: the requests or situations this skill is for, and any it is not for.',
    '',
    '## Steps',
    '',
    '1. TODO: the first thing to do.',
    '2. TODO: how to check the result.',
    '',
    '## Resources',
    '',
    '- Put long reference material in `references/` (e.g. `references/guide.md`) and say here when to read it: it is loaded only when needed.',
    '',
  ].join('\n');
}

function frontmatter(name: string, description: string): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n`;
}

/** Whether our parser reads `text`'s description back as `description`, with no diagnostic. */
function readsBack(text: string, description: string): boolean {
  const parsed = parseFrontmatter(text);
  return parsed.diagnostics.length === 0 && parsed.metadata.description === description;
}

/**
 * Characters never written raw: controls (tab and line breaks included),
 * DEL and C1 controls (NEL, a line break to YAML 1.1 readers such as
 * PyYAML), LS and PS (line breaks to them too), U+FFFE/FFFF and lone
 * surrogates, which YAML does not allow unescaped.
 */
const UNSAFE = /[\p{Cc}\u2028\u2029\ufffe\uffff]|\p{Cs}/u;
const UNSAFE_ALL = new RegExp(UNSAFE.source, 'gu');
const SHORT_ESCAPES: Readonly<Record<string, string>> = { '"': '\\"', '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** Words YAML 1.1 readers (PyYAML) take for a boolean, null or number when unquoted: `yes`, `off`, `1_000`, `1:30`. */
const YAML11_SPECIAL = /^(?:y|n|yes|no|on|off|true|false|null|~|[-+]?(?:\.?\d[\w.:+-]*|\.inf|\.nan))$/i;

/** A YAML double-quoted scalar that every YAML reader reads back as `text`. */
function doubleQuoted(text: string): string {
  const escaped = text
    .replace(/["\\\t\n\r]/g, (char) => SHORT_ESCAPES[char] ?? char)
    .replace(UNSAFE_ALL, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return `"${escaped}"`;
}

/**
 * The SKILL.md for `name`: the description given (trimmed), or the
 * placeholder `validate` warns about. The description is written plain when
 * every YAML reader reads it back unchanged that way, else double-quoted.
 */
export function skillFileText(name: string, description?: string): string {
  const text = description === undefined ? DESCRIPTION_PLACEHOLDER : description.trim();
  const plain = `${frontmatter(name, text)}\n${body(name)}`;
  const safe = !UNSAFE.test(text) && !YAML11_SPECIAL.test(text) && readsBack(plain, text);
  return safe ? plain : `${frontmatter(name, doubleQuoted(text))}\n${body(name)}`;
}

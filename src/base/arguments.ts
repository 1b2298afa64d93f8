/**
 * Placeholders in a skill's instructions, filled in at activation, as Claude
 * Code fills them: `$ARGUMENTS` (the arguments as given), `$ARGUMENTS[N]` and
 * `$N` (the N-th argument, 0-based, split shell-style: whitespace separates,
 * quotes group and are removed; a missing one stays as written), `$name` for
 * names the skill declares in `arguments`; arguments no placeholder used are
 * appended as `ARGUMENTS: <value>`. `${CLAUDE_SKILL_DIR}` / `${SKILL_DIR}`
 * become the skill's folder and `${CLAUDE_PLUGIN_ROOT}` the plugin's folder,
 * when it is known.
 *
 * The one rule of our own: a skill's code is never changed without its
 * consent. Argument placeholders inside fenced or inline code (a shell
 * script's `$1`, an awk program's `$2`) are left as written unless the skill
 * declares `arguments` or `argument-hint`, which says it was written for
 * substitution. Pure functions, no I/O.
 */

/** What one activation fills in. */
export interface Substitutions {
  /** The arguments as the user or the model gave them; undefined or blank: no argument placeholder is touched. */
  arguments?: string | undefined;
  /** The skill's folder. */
  skillDir: string;
  /** The folder holding `.claude-plugin/` above the skill; undefined leaves `${CLAUDE_PLUGIN_ROOT}` as written. */
  pluginRoot?: string | undefined;
  /** The skill's frontmatter: `arguments` (names) and `argument-hint` (consent to substitute inside code). */
  metadata: Readonly<Record<string, unknown>>;
}

export interface Substituted {
  text: string;
  /** How many argument placeholders were filled in, outside code and inside it. */
  replaced: { prose: number; code: number };
  /** Whether the arguments were appended because no placeholder used them. */
  appended: boolean;
}

/** Folder placeholders: unambiguous names, filled in everywhere (they exist to be used in commands). */
const SKILL_DIR = /\$\{(?:CLAUDE_SKILL_DIR|SKILL_DIR)\}/g;
export const PLUGIN_ROOT_PLACEHOLDER = '${CLAUDE_PLUGIN_ROOT}';

/**
 * `$ARGUMENTS[N]`, `$ARGUMENTS`, `$N`, or `$name`; a name must not run on
 * into more name characters. `$N` followed by a letter, `%`, or a comma or
 * point and a digit, or a range (`$5M`, `$1,000`, `$1.50`, `$1-3M`), is an
 * amount, not a placeholder.
 */
const ARGUMENT = /\$ARGUMENTS\[(\d+)\]|\$ARGUMENTS(?![A-Za-z0-9_])|\$(\d+)(?![\w%]|[.,]\d|[-–]\$?\d)|\$([A-Za-z_][A-Za-z0-9_-]*)/g;

/** A line that opens or closes a fenced code block (CommonMark: up to 3 spaces, then 3+ backticks or tildes). */
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** The arguments split as a shell would: whitespace separates, single and double quotes group and are removed. */
export function splitArguments(raw: string): string[] {
  const parts: string[] = [];
  let current = '';
  let started = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i] as string;
    if (quote !== undefined) {
      if (ch === quote) quote = undefined;
      else if (ch === '\\' && quote === '"' && (raw[i + 1] === '"' || raw[i + 1] === '\\')) current += raw[++i];
      else current += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      started = true;
    } else if (/\s/.test(ch)) {
      if (started) parts.push(current);
      current = '';
      started = false;
    } else {
      current += ch === '\\' && i + 1 < raw.length ? raw[++i] : ch;
      started = true;
    }
  }
  if (started) parts.push(current);
  return parts;
}

/** The names a skill declares in `arguments` (a list, or one string of names separated by spaces or commas). */
export function declaredArgumentNames(metadata: Readonly<Record<string, unknown>>): string[] {
  const value = metadata.arguments;
  const items = Array.isArray(value) ? value : typeof value === 'string' ? value.split(/[\s,]+/) : [];
  return items.filter((item): item is string => typeof item === 'string' && /^[A-Za-z_][A-Za-z0-9_-]*$/.test(item));
}

/** `argument-hint` as text: a string as written, a list (YAML read `[a]` as one) back in brackets. */
export function argumentHint(metadata: Readonly<Record<string, unknown>>): string | undefined {
  const value = metadata['argument-hint'];
  if (typeof value === 'string') return value.trim() === '' ? undefined : value.trim();
  if (Array.isArray(value)) return value.map((item) => `[${typeof item === 'string' ? item : JSON.stringify(item)}]`).join(' ');
  return undefined;
}

/** Whether the skill was written for substitution, so placeholders inside its code are filled in too. */
export function substitutesInCode(metadata: Readonly<Record<string, unknown>>): boolean {
  return metadata.arguments !== undefined || metadata['argument-hint'] !== undefined;
}

/** Stretches of `text`, each prose or code (fenced blocks, and inline code spans outside them). */
export function codeSegments(text: string): Array<{ code: boolean; text: string }> {
  const segments: Array<{ code: boolean; text: string }> = [];
  const push = (code: boolean, part: string): void => {
    if (part === '') return;
    const last = segments.at(-1);
    if (last && last.code === code) last.text += part;
    else segments.push({ code, text: part });
  };
  let open: string | undefined;
  let prose = '';
  const flushProse = (): void => {
    for (const part of inlineCode(prose)) push(part.code, part.text);
    prose = '';
  };
  for (const line of text.split(/(?<=\n)/)) {
    const fence = FENCE.exec(line)?.[1];
    if (open === undefined) {
      if (fence === undefined) {
        prose += line;
        continue;
      }
      flushProse();
      open = fence;
      push(true, line);
    } else {
      push(true, line);
      if (fence !== undefined && fence[0] === open[0] && fence.length >= open.length && line.trim() === fence) open = undefined;
    }
  }
  flushProse();
  return segments;
}

/** The fence of a fenced block `text` leaves open at its end, if any. */
function openFence(text: string): string | undefined {
  let open: string | undefined;
  for (const line of text.split('\n')) {
    const fence = FENCE.exec(line)?.[1];
    if (fence === undefined) continue;
    if (open === undefined) open = fence;
    else if (fence[0] === open[0] && fence.length >= open.length && line.trim() === fence) open = undefined;
  }
  return open;
}

/** Inline code spans: a run of backticks closed by a run of the same length (CommonMark), within a paragraph. */
function inlineCode(text: string): Array<{ code: boolean; text: string }> {
  const parts: Array<{ code: boolean; text: string }> = [];
  const opener = /`+/g;
  let from = 0;
  for (let match = opener.exec(text); match !== null; match = opener.exec(text)) {
    const ticks = match[0];
    const closer = new RegExp(`(?<!\`)${ticks}(?!\`)`, 'g');
    closer.lastIndex = match.index + ticks.length;
    const close = closer.exec(text);
    if (close === null) continue;
    if (match.index > from) parts.push({ code: false, text: text.slice(from, match.index) });
    parts.push({ code: true, text: text.slice(match.index, close.index + ticks.length) });
    from = close.index + ticks.length;
    opener.lastIndex = from;
  }
  if (from < text.length) parts.push({ code: false, text: text.slice(from) });
  return parts;
}

/** The instructions with their placeholders filled in (see the module comment for the rules). */
export function substitutePlaceholders(text: string, fill: Substitutions): Substituted {
  let out = text.replace(SKILL_DIR, () => fill.skillDir);
  if (fill.pluginRoot !== undefined) out = out.split(PLUGIN_ROOT_PLACEHOLDER).join(fill.pluginRoot);
  const raw = fill.arguments?.trim();
  const replaced = { prose: 0, code: 0 };
  if (raw === undefined || raw === '') return { text: out, replaced, appended: false };

  const positional = splitArguments(raw);
  const names = declaredArgumentNames(fill.metadata);
  const inCode = substitutesInCode(fill.metadata);
  const fillIn = (segment: string, code: boolean): string =>
    segment.replace(ARGUMENT, (whole: string, index?: string, n?: string, name?: string) => {
      let value: string | undefined;
      if (index !== undefined) value = positional[Number(index)];
      else if (n !== undefined) value = positional[Number(n)];
      else if (name !== undefined) {
        const at = names.indexOf(name);
        value = at >= 0 ? positional[at] : undefined;
      } else value = raw;
      if (value === undefined) return whole;
      replaced[code ? 'code' : 'prose']++;
      return value;
    });
  out = codeSegments(out)
    .map((segment) => (segment.code && !inCode ? segment.text : fillIn(segment.text, segment.code)))
    .join('');
  const used = replaced.prose + replaced.code > 0;
  if (!used) {
    // A body that ends inside a fenced block gets the fence closed first, so the arguments are not read as code.
    const fence = openFence(out);
    out = `${out.replace(/\s+$/, '')}${fence === undefined ? '' : `\n${fence}`}\n\nARGUMENTS: ${raw}\n`;
  }
  return { text: out, replaced, appended: !used };
}

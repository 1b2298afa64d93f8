/**
 * `allowed-tools` as data. The agentskills.io spec writes it as one
 * space-separated string (`Bash(git:*) Read`); skills in the wild also
 * separate with commas (`Read, Grep, Glob`) and use a YAML list. Every form
 * becomes `{ tool, pattern? }[]`. Pure; nothing here enforces anything: a
 * guard middleware reads the lists from the run view (`allowedTools`).
 */

/** One entry of `allowed-tools`: a tool name, and the argument pattern in its parentheses when it has one. */
export interface AllowedTool {
  /** The tool's name as written, e.g. `Bash`, `Read`, `mcp__github__*`. */
  readonly tool: string;
  /** What the parentheses held, trimmed, e.g. `git:*` for `Bash(git:*)`; absent without parentheses (or empty ones). */
  readonly pattern?: string;
}

/** Most entries kept from one skill's field: a guard needs a list, not whatever a hostile file repeats. */
export const MAX_ALLOWED_TOOLS = 256;

/**
 * The entries of an `allowed-tools` value (a string or a list of strings, as
 * validated metadata holds it); [] for anything else. Entries are separated by
 * whitespace or commas outside parentheses, so `Bash(npm run test:*)` is one
 * entry. An unclosed parenthesis runs to the end of its item.
 */
export function parseAllowedTools(value: unknown): AllowedTool[] {
  const items = typeof value === 'string' ? [value] : Array.isArray(value) ? value.filter((v) => typeof v === 'string') : [];
  const tools: AllowedTool[] = [];
  for (const item of items as string[]) {
    for (const entry of entriesOf(item)) {
      if (tools.length === MAX_ALLOWED_TOOLS) return tools;
      tools.push(entry);
    }
  }
  return tools;
}

function entriesOf(text: string): AllowedTool[] {
  const entries: AllowedTool[] = [];
  let i = 0;
  while (i < text.length) {
    while (i < text.length && isSeparator(text[i] as string)) i++;
    const start = i;
    while (i < text.length && !isSeparator(text[i] as string) && text[i] !== '(') i++;
    const tool = text.slice(start, i);
    let pattern: string | undefined;
    if (text[i] === '(') {
      let depth = 0;
      const open = i;
      for (; i < text.length; i++) {
        if (text[i] === '(') depth++;
        else if (text[i] === ')' && --depth === 0) break;
      }
      pattern = text.slice(open + 1, Math.min(i, text.length)).trim();
      i++;
    }
    if (tool !== '') entries.push(pattern ? { tool, pattern } : { tool });
  }
  return entries;
}

const isSeparator = (c: string): boolean => c === ',' || /\s/u.test(c);

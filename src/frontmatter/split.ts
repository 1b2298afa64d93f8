/**
 * Fence splitting: BOM, line endings and the `---` fences, before any YAML is
 * read. One pass over the text; no regular expressions on whole lines.
 */

export interface SplitResult {
  /** The text opened with a `---` fence. */
  hasFrontmatter: boolean;
  /** A closing `---` or `...` fence was found (always true without frontmatter). */
  closed: boolean;
  /** Frontmatter text between the fences, line endings normalised to `\n`; '' when none. */
  yaml: string;
  /** 1-based line in the original text of the first frontmatter line. */
  yamlLine: number;
  /** Everything after the closing fence, verbatim (the whole text, minus a BOM, without frontmatter). */
  body: string;
  /** 1-based line on which `body` starts. */
  bodyLine: number;
}

const BOM = 0xfeff;

/** End of the line starting at `start`: the offset of its line break, or the text length. */
function lineEnd(text: string, start: number): number {
  for (let i = start; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 10 || ch === 13) return i;
  }
  return text.length;
}

/** Offset just past the line break at `end` (CRLF counts as one break). */
function nextLineStart(text: string, end: number): number {
  if (end >= text.length) return text.length;
  if (text.charCodeAt(end) === 13 && text.charCodeAt(end + 1) === 10) return end + 2;
  return end + 1;
}

/** `marker` (three chars) at `start`, followed only by spaces or tabs until `end`. */
function isFence(text: string, start: number, end: number, marker: number): boolean {
  if (end - start < 3) return false;
  if (text.charCodeAt(start) !== marker || text.charCodeAt(start + 1) !== marker || text.charCodeAt(start + 2) !== marker) {
    return false;
  }
  for (let i = start + 3; i < end; i++) {
    const ch = text.charCodeAt(i);
    if (ch !== 32 && ch !== 9) return false;
  }
  return true;
}

const DASH = 45;
const DOT = 46;

export function splitFrontmatter(text: string): SplitResult {
  const start = text.charCodeAt(0) === BOM ? 1 : 0;
  const firstEnd = lineEnd(text, start);
  if (!isFence(text, start, firstEnd, DASH)) {
    return { hasFrontmatter: false, closed: true, yaml: '', yamlLine: 1, body: text.slice(start), bodyLine: 1 };
  }
  const lines: string[] = [];
  let line = 2;
  let pos = nextLineStart(text, firstEnd);
  while (pos < text.length) {
    const end = lineEnd(text, pos);
    if (isFence(text, pos, end, DASH) || isFence(text, pos, end, DOT)) {
      const bodyStart = nextLineStart(text, end);
      return {
        hasFrontmatter: true,
        closed: true,
        yaml: lines.length === 0 ? '' : lines.join('\n') + '\n',
        yamlLine: 2,
        body: text.slice(bodyStart),
        bodyLine: line + 1,
      };
    }
    lines.push(text.slice(pos, end));
    line++;
    if (end >= text.length) break;
    pos = nextLineStart(text, end);
  }
  return {
    hasFrontmatter: true,
    closed: false,
    yaml: lines.length === 0 ? '' : lines.join('\n') + '\n',
    yamlLine: 2,
    body: '',
    bodyLine: line,
  };
}

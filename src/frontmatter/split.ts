/**
 * Fence splitting: BOM, line endings and the `---` fences, before any YAML is
 * read. One pass over the text; no regular expressions on whole lines. The
 * fence rules are fence.ts's, shared with discovery's head reads.
 */
import { afterBreak, bomLength, DASH, isClosingFence, isFence, lineBreak } from './fence.js';

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

/** End of the line starting at `start`: the offset of its line break, or the text length. */
function lineEnd(text: string, start: number): number {
  const end = lineBreak(text, start, text.length);
  return end < 0 ? text.length : end;
}

function frontmatterOf(lines: readonly string[]): string {
  return lines.length === 0 ? '' : lines.join('\n') + '\n';
}

export function splitFrontmatter(text: string): SplitResult {
  const start = bomLength(text, text.length);
  const firstEnd = lineEnd(text, start);
  if (!isFence(text, start, firstEnd, DASH)) {
    return { hasFrontmatter: false, closed: true, yaml: '', yamlLine: 1, body: text.slice(start), bodyLine: 1 };
  }
  const lines: string[] = [];
  let line = 2;
  let pos = firstEnd >= text.length ? text.length : afterBreak(text, firstEnd, text.length);
  while (pos < text.length) {
    const end = lineEnd(text, pos);
    if (isClosingFence(text, pos, end)) {
      const bodyStart = end >= text.length ? text.length : afterBreak(text, end, text.length);
      return { hasFrontmatter: true, closed: true, yaml: frontmatterOf(lines), yamlLine: 2, body: text.slice(bodyStart), bodyLine: line + 1 };
    }
    lines.push(text.slice(pos, end));
    line++;
    if (end >= text.length) break;
    pos = afterBreak(text, end, text.length);
  }
  return { hasFrontmatter: true, closed: false, yaml: frontmatterOf(lines), yamlLine: 2, body: '', bodyLine: line };
}

/**
 * Block scalars (`|`, `>`, with chomping and indentation indicators): the
 * header, read by the lexer, and the content, read for the composer, since
 * where it ends depends on the indentation of the node holding it. Pure
 * functions of the text; every scan moves forward.
 */
import { codeAt, DASH, HASH, LF, PLUS, skipBlanks, SPACE, TAB } from './chars.js';

/** -1 strip (`-`), 0 clip, 1 keep (`+`). */
export type Chomp = -1 | 0 | 1;

export interface BlockHeader {
  /** `>`: lines fold; `|`: literal. */
  folded: boolean;
  chomp: Chomp;
  /** Explicit indentation indicator, 0 when absent. */
  indentIndicator: number;
}

export type HeaderScan =
  | {
      ok: true;
      header: BlockHeader;
      /** Just past the indicators. */
      end: number;
      /** The line break ending the header's line (after any comment), or the end of the text. */
      lineEnd: number;
    }
  | { ok: false; at: number };

/** The header whose `|` or `>` is at `start`. */
export function scanBlockHeader(src: string, start: number): HeaderScan {
  let i = start + 1;
  let chomp: Chomp = 0;
  let indent = 0;
  for (let k = 0; k < 2; k++) {
    const c = codeAt(src, i);
    if ((c === PLUS || c === DASH) && chomp === 0) chomp = c === PLUS ? 1 : -1;
    else if (c >= 49 && c <= 57 && indent === 0) indent = c - 48;
    else break;
    i++;
  }
  const end = i;
  i = skipBlanks(src, i);
  if (i < src.length && src.charCodeAt(i) === HASH && i > end) {
    while (i < src.length && src.charCodeAt(i) !== LF) i++;
  } else if (i < src.length && src.charCodeAt(i) !== LF) {
    return { ok: false, at: i };
  }
  return { ok: true, header: { folded: src.charCodeAt(start) === 62, chomp, indentIndicator: indent }, end, lineEnd: i };
}

export interface BlockScalar {
  value: string;
  /** Set when leading empty lines are more indented than the content (YAML requires an indicator then). */
  badIndent: boolean;
  /** Start of the first line after the content (a line start), or the end of the text. */
  end: number;
}

/** Lines of the content, and where it stopped. */
interface Content {
  lines: string[];
  contentIndent: number;
  maxLeading: number;
  stop: number;
}

/**
 * The content after a header whose line ends at `lineEnd`. `parentIndent` is
 * the indentation of the mapping or sequence holding it: content must be
 * indented more, and an explicit indicator counts from it.
 */
export function scanBlockScalar(src: string, lineEnd: number, header: BlockHeader, parentIndent: number): BlockScalar {
  const content: Content = {
    lines: [],
    contentIndent: header.indentIndicator > 0 ? Math.max(parentIndent, 0) + header.indentIndicator : -1,
    maxLeading: 0,
    stop: src.length,
  };
  // Past the header's line break.
  if (lineEnd < src.length) readLines(src, lineEnd + 1, parentIndent, content);
  const { lines, contentIndent, maxLeading } = content;
  const badIndent = contentIndent >= 0 && header.indentIndicator === 0 && maxLeading > contentIndent;
  return { value: chompBlock(lines, header.folded, header.chomp), badIndent, end: Math.min(content.stop, src.length) };
}

/** Reads content lines from `p` until one is indented too little. */
function readLines(src: string, p: number, parentIndent: number, content: Content): void {
  const { lines } = content;
  while (p < src.length) {
    let q = p;
    while (q < src.length && src.charCodeAt(q) === SPACE) q++;
    const spaces = q - p;
    let eol = q;
    let blank = true;
    while (eol < src.length && src.charCodeAt(eol) !== LF) {
      const c = src.charCodeAt(eol);
      if (c !== SPACE && c !== TAB) blank = false;
      eol++;
    }
    if (content.contentIndent < 0) {
      // Indentation is detected from the first line holding more than spaces (a tab counts).
      if (q === eol) {
        if (spaces > content.maxLeading) content.maxLeading = spaces;
        lines.push('');
      } else if (spaces <= parentIndent) {
        content.stop = p;
        return;
      } else {
        content.contentIndent = spaces;
      }
    }
    if (content.contentIndent >= 0) {
      if (spaces >= content.contentIndent) lines.push(src.slice(p + content.contentIndent, eol));
      else if (blank) lines.push('');
      else {
        content.stop = p;
        return;
      }
    }
    if (eol >= src.length) return;
    p = eol + 1;
  }
}

/** Joins block scalar lines (literal or folded) and applies chomping. */
export function chompBlock(lines: readonly string[], folded: boolean, chomp: Chomp): string {
  let last = lines.length - 1;
  while (last >= 0 && lines[last] === '') last--;
  if (last < 0) return chomp > 0 ? '\n'.repeat(lines.length) : '';
  const body = folded ? foldLines(lines, last) : lines.slice(0, last + 1).join('\n');
  if (chomp < 0) return body;
  if (chomp === 0) return body + '\n';
  return body + '\n' + '\n'.repeat(lines.length - 1 - last);
}

/** `>` content up to line `last`: lines of text join with a space, more-indented lines and blank lines keep their breaks. */
function foldLines(lines: readonly string[], last: number): string {
  let body = '';
  let pendingEmpty = 0;
  let started = false;
  let prevNormal = false;
  for (let i = 0; i <= last; i++) {
    const s = lines[i] ?? '';
    if (s === '') {
      pendingEmpty++;
      continue;
    }
    const c = s.charCodeAt(0);
    const normal = c !== SPACE && c !== TAB;
    if (!started) body += '\n'.repeat(pendingEmpty);
    else if (prevNormal && normal) body += pendingEmpty === 0 ? ' ' : '\n'.repeat(pendingEmpty);
    else body += '\n'.repeat(pendingEmpty + 1);
    body += s;
    started = true;
    pendingEmpty = 0;
    prevNormal = normal;
  }
  return body;
}

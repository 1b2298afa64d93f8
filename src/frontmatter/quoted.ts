/**
 * Single- and double-quoted scalars: decoding (YAML 1.2 escapes, `''`) and
 * line folding. Pure functions of the text from the opening quote; the lexer
 * turns what they return into a token. Pieces are joined once at the end:
 * `+=` per piece builds a rope node per escape, and a long line full of
 * escapes then spends its time collecting them.
 */
import type { DiagnosticCode } from '../base/diagnostics.js';
import { BACKSLASH, codeAt, DQUOTE, LF, skipBlanks, skipSpaces, SPACE, SQUOTE, TAB } from './chars.js';

export type QuotedScan =
  | {
      ok: true;
      value: string;
      /** Offset just past the closing quote. */
      end: number;
      /** Least indentation of the continuation lines (Infinity on one line). */
      contIndent: number;
      /** Start of the last line the scalar reached (-1 when it stayed on its first line). */
      lineStart: number;
    }
  | { ok: false; code: DiagnosticCode; at: number; message: string };

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 65 && c <= 70) return c - 55;
  if (c >= 97 && c <= 102) return c - 87;
  return -1;
}

/** Double-quoted single-character escapes (YAML 1.2 section 5.7). */
function simpleEscape(c: number): string | undefined {
  switch (c) {
    case 48:
      return '\0';
    case 97:
      return '\x07';
    case 98:
      return '\b';
    case 116:
    case TAB:
      return '\t';
    case 110:
      return '\n';
    case 118:
      return '\v';
    case 102:
      return '\f';
    case 114:
      return '\r';
    case 101:
      return '\x1b';
    case SPACE:
      return ' ';
    case DQUOTE:
      return '"';
    case 47:
      return '/';
    case BACKSLASH:
      return '\\';
    case 78:
      return '\x85';
    case 95:
      return '\xa0';
    case 76:
      return '\u2028';
    case 80:
      return '\u2029';
    default:
      return undefined;
  }
}

/** State of one quoted scan: pieces so far, where the current piece starts, lines reached. */
interface Scan {
  out: string[];
  seg: number;
  contIndent: number;
  lineStart: number;
}

/**
 * A line break at `i` inside a quoted scalar: the text before it (from
 * `scan.seg`, trailing blanks trimmed) plus what the break folds to (one
 * break a space, n blank lines n line feeds). Returns where the text goes on.
 */
function foldBreak(src: string, i: number, scan: Scan): number {
  let end = i;
  while (end > scan.seg && (src.charCodeAt(end - 1) === SPACE || src.charCodeAt(end - 1) === TAB)) end--;
  scan.out.push(src.slice(scan.seg, end));
  let blankLines = 0;
  for (;;) {
    i++;
    scan.lineStart = i;
    const spaces = skipSpaces(src, i);
    i = skipBlanks(src, spaces);
    if (i < src.length && src.charCodeAt(i) === LF) {
      blankLines++;
      continue;
    }
    if (i < src.length && spaces - scan.lineStart < scan.contIndent) scan.contIndent = spaces - scan.lineStart;
    break;
  }
  scan.out.push(blankLines === 0 ? ' ' : '\n'.repeat(blankLines));
  return i;
}

/** `\` then a line break: the break and the next line's leading blanks are dropped. Returns where the text goes on. */
function escapedBreak(src: string, i: number, scan: Scan): number {
  i += 2;
  scan.lineStart = i;
  const spaces = skipSpaces(src, i);
  i = skipBlanks(src, spaces);
  if (i < src.length && src.charCodeAt(i) !== LF && spaces - scan.lineStart < scan.contIndent) scan.contIndent = spaces - scan.lineStart;
  return i;
}

/** `\x`, `\u` or `\U` and its hex digits at `i`: the character, or undefined when invalid. */
function hexEscape(src: string, i: number, width: number): string | undefined {
  let cp = width === 0 ? -1 : 0;
  for (let k = 0; k < width; k++) {
    const h = hexValue(codeAt(src, i + 2 + k));
    if (h < 0) return undefined;
    cp = cp * 16 + h;
  }
  return cp < 0 || cp > 0x10ffff ? undefined : String.fromCodePoint(cp);
}

function unclosed(start: number, message: string): QuotedScan {
  return { ok: false, code: 'YAML_UNCLOSED_QUOTE', at: start, message };
}

function closed(scan: Scan, end: number): QuotedScan {
  return { ok: true, value: scan.out.join(''), end, contIndent: scan.contIndent, lineStart: scan.lineStart };
}

/** The double-quoted scalar whose opening quote is at `start`. */
export function scanDoubleQuoted(src: string, start: number): QuotedScan {
  const scan: Scan = { out: [], seg: start + 1, contIndent: Infinity, lineStart: -1 };
  let i = scan.seg;
  for (;;) {
    if (i >= src.length) return unclosed(start, 'unclosed double quote');
    const c = src.charCodeAt(i);
    if (c === DQUOTE) {
      scan.out.push(src.slice(scan.seg, i));
      return closed(scan, i + 1);
    }
    if (c === LF) {
      i = scan.seg = foldBreak(src, i, scan);
    } else if (c !== BACKSLASH) {
      i++;
    } else {
      scan.out.push(src.slice(scan.seg, i));
      const e = codeAt(src, i + 1);
      if (e === LF) {
        i = scan.seg = escapedBreak(src, i, scan);
        continue;
      }
      const simple = simpleEscape(e);
      const width = simple !== undefined ? 0 : e === 120 ? 2 : e === 117 ? 4 : e === 85 ? 8 : 0;
      const decoded = simple ?? hexEscape(src, i, width);
      if (decoded === undefined) {
        return { ok: false, code: 'YAML_BAD_ESCAPE', at: i, message: `invalid escape \\${src.slice(i + 1, i + 2 + width)}` };
      }
      scan.out.push(decoded);
      i = scan.seg = i + 2 + width;
    }
  }
}

/** The single-quoted scalar whose opening quote is at `start`. */
export function scanSingleQuoted(src: string, start: number): QuotedScan {
  const scan: Scan = { out: [], seg: start + 1, contIndent: Infinity, lineStart: -1 };
  let i = scan.seg;
  for (;;) {
    if (i >= src.length) return unclosed(start, 'unclosed single quote');
    const c = src.charCodeAt(i);
    if (c === SQUOTE) {
      if (codeAt(src, i + 1) !== SQUOTE) {
        scan.out.push(src.slice(scan.seg, i));
        return closed(scan, i + 1);
      }
      // `''` is one quote.
      scan.out.push(src.slice(scan.seg, i + 1));
      i = scan.seg = i + 2;
    } else if (c === LF) {
      i = scan.seg = foldBreak(src, i, scan);
    } else {
      i++;
    }
  }
}

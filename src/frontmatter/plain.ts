/**
 * Plain (unquoted) scalars: the text on one line, and the continuation lines
 * a plain scalar folds in. A continuation depends on the indentation of the
 * node holding the scalar, which only the composer knows, so these are pure
 * functions of the text and that indentation; the composer moves the lexer to
 * where they stopped. Every scan moves forward: time stays linear.
 */
import { codeAt, COLON, HASH, isBreakOrBlank, isDocMarker, isFlowIndicator, LF, skipBlanks, skipSpaces, SPACE, TAB } from './chars.js';

/**
 * End (exclusive, trailing blanks trimmed) of the plain-scalar text on the
 * line starting at `start`: stops at ` #`, at `: ` (or `:` before a flow
 * indicator in flow context), at flow indicators in flow context, and at
 * the line break.
 */
export function scanPlainLine(src: string, start: number, flow: boolean): number {
  let last = start;
  let i = start;
  while (i < src.length) {
    const c = src.charCodeAt(i);
    if (c === LF) break;
    if (c === COLON) {
      const n = codeAt(src, i + 1);
      if (isBreakOrBlank(n) || (flow && isFlowIndicator(n))) break;
    } else if (c === HASH) {
      const p = codeAt(src, i - 1);
      if (p === SPACE || p === TAB) break;
    } else if (flow && isFlowIndicator(c)) {
      break;
    }
    i++;
    if (c !== SPACE && c !== TAB) last = i;
  }
  return last;
}

/** End of the line from `start`, before a ` #` comment, trailing blanks trimmed. */
export function rawLineEnd(src: string, start: number): number {
  let last = start;
  for (let i = start; i < src.length; i++) {
    const c = src.charCodeAt(i);
    if (c === LF) break;
    if (c === HASH && i > start && isBreakOrBlank(src.charCodeAt(i - 1))) break;
    if (c !== SPACE && c !== TAB) last = i + 1;
  }
  return last;
}

/** A folded scalar: its text, and where its last line's text ends (on the line starting at `lineStart`). */
export interface Folded {
  value: string;
  end: number;
  lineStart: number;
}

/** How continuation lines are read: the two plain-scalar readers differ only here. */
interface LineRule {
  /** End of the text of a continuation line whose first non-blank is at `q` (indented `indent`), or -1: the scalar stops before it. */
  textEnd(src: string, q: number, indent: number): number;
  /** After a line's text at `end`: the offset of the line break the scalar may go on after, or -1 when it may not. */
  breakAfter(src: string, end: number): number;
}

/**
 * Lines after the one whose text ends at `end`, indented more than
 * `parentIndent`, folded in the way of plain scalars onto `first`: a single
 * line break becomes a space, n blank lines n line feeds. Undefined when no
 * line is added (most scalars: nothing is allocated then).
 */
function foldLines(src: string, first: string, end: number, parentIndent: number, rule: LineRule): Folded | undefined {
  let folded: Folded | undefined;
  let p = rule.breakAfter(src, end);
  let breaks = 0;
  while (p >= 0 && p < src.length) {
    // p is at a line break
    p++;
    const lineStart = p;
    breaks++;
    const spaces = skipSpaces(src, p);
    const indent = spaces - p;
    const q = skipBlanks(src, spaces);
    if (q >= src.length) break;
    const c = src.charCodeAt(q);
    if (c === LF) {
      p = q;
      continue;
    }
    if (indent <= parentIndent || c === HASH) break;
    const lineEnd = rule.textEnd(src, q, indent);
    if (lineEnd < 0) break;
    folded ??= { value: first, end, lineStart };
    folded.value += (breaks === 1 ? ' ' : '\n'.repeat(breaks - 1)) + src.slice(q, lineEnd);
    breaks = 0;
    folded.end = lineEnd;
    folded.lineStart = lineStart;
    p = rule.breakAfter(src, lineEnd);
  }
  return folded;
}

const PLAIN_BLOCK = plainRule(false);
const PLAIN_FLOW = plainRule(true);

function plainRule(flow: boolean): LineRule {
  return {
    textEnd(src, q, indent) {
      const c = src.charCodeAt(q);
      if (indent === 0 && isDocMarker(src, q)) return -1;
      const n = codeAt(src, q + 1);
      if (c === COLON && (isBreakOrBlank(n) || (flow && isFlowIndicator(n)))) return -1;
      if (flow && isFlowIndicator(c)) return -1;
      const end = scanPlainLine(src, q, flow);
      return end === q ? -1 : end;
    },
    // Only blanks may follow the text: a comment ends a plain scalar.
    breakAfter(src, end) {
      const p = skipBlanks(src, end);
      return p < src.length && src.charCodeAt(p) === LF ? p : -1;
    },
  };
}

const RECOVERED: LineRule = {
  textEnd: (src, q) => rawLineEnd(src, q),
  breakAfter(src, end) {
    const p = src.indexOf('\n', end);
    return p < 0 ? src.length : p;
  },
};

/**
 * The plain scalar whose first line `first` ends at `end`, continued on the
 * lines indented more than `parentIndent`; undefined when it has no
 * continuation line.
 */
export function continuePlain(src: string, first: string, end: number, parentIndent: number, flow: boolean): Folded | undefined {
  return foldLines(src, first, end, parentIndent, flow ? PLAIN_FLOW : PLAIN_BLOCK);
}

/**
 * Recovery: the raw text from `start` (on the line starting at `lineStart`)
 * to the end of its line, minus a trailing comment, continued by lines
 * indented more than `parentIndent` and folded like a plain scalar.
 */
export function recoverLine(src: string, start: number, lineStart: number, parentIndent: number): Folded {
  const end = rawLineEnd(src, start);
  const first = src.slice(start, end);
  return foldLines(src, first, end, parentIndent, RECOVERED) ?? { value: first, end, lineStart };
}

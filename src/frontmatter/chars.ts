/** Character codes and classes the YAML scanners share. */

export const SPACE = 32;
export const TAB = 9;
export const LF = 10;
export const HASH = 35;
export const COLON = 58;
export const DASH = 45;
export const DOT = 46;
export const QUESTION = 63;
export const COMMA = 44;
export const LBRACKET = 91;
export const RBRACKET = 93;
export const LBRACE = 123;
export const RBRACE = 125;
export const DQUOTE = 34;
export const SQUOTE = 39;
export const BACKSLASH = 92;
export const PIPE = 124;
export const GT = 62;
export const AMP = 38;
export const STAR = 42;
export const BANG = 33;
export const PERCENT = 37;
export const AT = 64;
export const BACKQUOTE = 96;
export const PLUS = 43;

/** The char code at `i`, or -1 past the end. */
export function codeAt(src: string, i: number): number {
  return i < src.length ? src.charCodeAt(i) : -1;
}

export function isFlowIndicator(c: number): boolean {
  return c === COMMA || c === LBRACKET || c === RBRACKET || c === LBRACE || c === RBRACE;
}

/** Space, tab, line feed, or past the end (-1). */
export function isBreakOrBlank(c: number): boolean {
  return c === SPACE || c === TAB || c === LF || c === -1;
}

/** First offset at or after `i` that is not a space or tab. */
export function skipBlanks(src: string, i: number): number {
  while (i < src.length && (src.charCodeAt(i) === SPACE || src.charCodeAt(i) === TAB)) i++;
  return i;
}

/** First offset at or after `i` that is not a space. */
export function skipSpaces(src: string, i: number): number {
  while (i < src.length && src.charCodeAt(i) === SPACE) i++;
  return i;
}

/** `---` or `...` at `start`, followed by a blank or the end: a YAML document boundary. */
export function isDocMarker(src: string, start: number): boolean {
  const c = src.charCodeAt(start);
  return codeAt(src, start + 1) === c && codeAt(src, start + 2) === c && isBreakOrBlank(codeAt(src, start + 3));
}

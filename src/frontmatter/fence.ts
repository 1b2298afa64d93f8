/**
 * The `---` fences around frontmatter, found the same way in text (parsing)
 * and in bytes (discovery reads only a file's head): fences and line breaks
 * are ASCII, so a UTF-8 byte and a UTF-16 code unit read alike. A line ends
 * at LF, CR or CRLF; a fence is three `-` (or `.` to close) followed only by
 * spaces or tabs.
 */

/** Decoded text, or the raw UTF-8 bytes of a file. */
export type Units = string | Uint8Array;

const LF = 10;
const CR = 13;
const SPACE = 32;
const TAB = 9;
export const DASH = 45;
export const DOT = 46;

function unitAt(src: Units, i: number): number {
  return typeof src === 'string' ? src.charCodeAt(i) : (src[i] ?? -1);
}

/** Length of a byte order mark opening `src`: U+FEFF in text, EF BB BF in bytes. */
export function bomLength(src: Units, length: number): number {
  if (typeof src === 'string') return src.charCodeAt(0) === 0xfeff ? 1 : 0;
  return length >= 3 && src[0] === 0xef && src[1] === 0xbb && src[2] === 0xbf ? 3 : 0;
}

/**
 * Offset of the first line break at or after `start`, or -1 when the first
 * `length` units end first. Found with the engine's own search rather than a
 * loop over every unit, which discovery's thousands of files run before it is
 * optimised (see splitFrontmatter). The CR search is confined to the line, so
 * the time over a whole text stays linear.
 */
export function lineBreak(src: Units, start: number, length: number): number {
  let lf = typeof src === 'string' ? src.indexOf('\n', start) : src.indexOf(LF, start);
  if (lf < 0 || lf > length) lf = length;
  const cr = typeof src === 'string' ? src.slice(start, lf).indexOf('\r') : src.subarray(start, lf).indexOf(CR);
  const end = cr >= 0 ? start + cr : lf;
  return end < length ? end : -1;
}

/** Offset just past the line break at `end` (CRLF counts as one break). */
export function afterBreak(src: Units, end: number, length: number): number {
  return unitAt(src, end) === CR && end + 1 < length && unitAt(src, end + 1) === LF ? end + 2 : end + 1;
}

/** `marker` three times at `start`, then only spaces or tabs until `end`. */
export function isFence(src: Units, start: number, end: number, marker: number): boolean {
  if (end - start < 3 || unitAt(src, start) !== marker || unitAt(src, start + 1) !== marker || unitAt(src, start + 2) !== marker)
    return false;
  for (let i = start + 3; i < end; i++) {
    const c = unitAt(src, i);
    if (c !== SPACE && c !== TAB) return false;
  }
  return true;
}

/** A line closing the frontmatter: `---` or `...`. */
export function isClosingFence(src: Units, start: number, end: number): boolean {
  return isFence(src, start, end, DASH) || isFence(src, start, end, DOT);
}

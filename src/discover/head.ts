/**
 * Reading only the head of a SKILL.md: lazy discovery needs the frontmatter,
 * not the body (`loadSkillContent` reads the whole file again at activation),
 * and bodies are usually many times larger than their frontmatter.
 *
 * The text returned is a prefix of the file's text that ends just after the
 * closing fence's line (or the first line, when there is no opening fence),
 * or the whole file when no closing fence is found. `parseFrontmatter` gives
 * the same metadata, fields and diagnostics for it as for the whole file; only
 * `body` differs. The fence rules are `splitFrontmatter`'s (frontmatter/fence.ts).
 */
import { readUntilThroughOpen, type ReadUntilOptions, type SkillsFileSystem } from '../base/fs.js';
import { afterBreak, bomLength, DASH, DOT, isClosingFence, isFence, lineBreak, type Units } from '../frontmatter/fence.js';

const LF = 10;
const CR = 13;

/** First read: holds the frontmatter of nearly every real SKILL.md in one call. */
export const HEAD_BYTES = 4096;

/**
 * Where the part of the file the frontmatter parser needs ends, given its
 * first `length` bytes: the offset just past that line's break, or -1 when
 * more bytes are needed to tell. `from` is a line start known not to hold the
 * closing fence (a resume point for the next call), updated in `state`.
 */
function headEnd(src: Units, length: number, state: { from: number }): number {
  if (state.from === 0) {
    const bom = bomLength(src, length);
    const first = lineBreak(src, bom, length);
    if (first < 0) return -1;
    // No opening fence: the parser reads no frontmatter, so the first line is enough.
    if (!isFence(src, bom, first, DASH)) return first + 1;
    state.from = afterBreak(src, first, length);
  }
  let pos = state.from;
  // Lines before the first CR end at an LF: found with one search each, and only a line starting
  // with - or . can close (as in splitFrontmatter, for a cold start's thousands of heads).
  let crAt = typeof src === 'string' ? src.indexOf('\r', pos) : src.subarray(pos, length).indexOf(CR);
  crAt = crAt < 0 ? length : typeof src === 'string' ? Math.min(crAt, length) : pos + crAt;
  while (pos < length) {
    let end = typeof src === 'string' ? src.indexOf('\n', pos) : src.indexOf(LF, pos);
    if (end < 0 || end > length) end = length;
    // The line holds a CR, or is cut off by the end of the bytes read: the loop below.
    if (end >= crAt) break;
    const c = typeof src === 'string' ? src.charCodeAt(pos) : src[pos];
    if ((c === DASH || c === DOT) && isClosingFence(src, pos, end)) return end + 1;
    pos = end + 1;
    state.from = pos;
  }
  while (pos < length) {
    const end = lineBreak(src, pos, length);
    // A line cut off by the end of the bytes read may still turn out to be a fence.
    if (end < 0) break;
    if (isClosingFence(src, pos, end)) return end + 1;
    // A CR read last may be half a CRLF; taking the LF as an empty line later is harmless (never a fence).
    pos = afterBreak(src, end, length);
    state.from = pos;
  }
  return -1;
}

/**
 * How many of a whole file's `bytes` its head holds: the same prefix
 * readSkillHead returns, counted in bytes. A signed manifest records the
 * SHA-256 of exactly these bytes (trust/), so a scan that reads only heads
 * can check them.
 */
export function headByteLength(bytes: Uint8Array): number {
  const end = headEnd(bytes, bytes.length, { from: 0 });
  return end < 0 ? bytes.length : end;
}

/**
 * The same head in decoded text, in UTF-16 units: fences and line breaks are
 * ASCII, so the text's head encodes to exactly the bytes' head (a byte order
 * mark is one unit here, three bytes there). A scan under `trust` hashes the
 * heads it read without encoding each whole text to bytes first.
 */
export function headLength(text: string): number {
  const end = headEnd(text, text.length, { from: 0 });
  return end < 0 ? text.length : end;
}

/**
 * The head of the file at `path` (see above), read through `fs.readUntil` or
 * `fs.open`. The decoded prefix always ends on a line break, which is ASCII,
 * so it is exactly the start of what `readFile(path, 'utf8')` would return.
 * Rejects as `readFile` would when the file cannot be opened or read; with
 * `checkType`, also when it is not a regular file (code NOT_A_FILE).
 * `onHead` is given the head's bytes when a closing fence (or a first line
 * without an opening one) ends it before the file does.
 */
export async function readSkillHead(
  fs: SkillsFileSystem,
  path: string,
  options: ReadUntilOptions = {},
  onHead?: (head: Uint8Array) => void,
): Promise<string> {
  const state = { from: 0 };
  // `onHead` sees the head's bytes where they were read, the ones the text returned is decoded from.
  const stop = (bytes: Uint8Array, length: number): number => {
    const end = headEnd(bytes, length, state);
    if (end >= 0) onHead?.(bytes.subarray(0, end));
    return end;
  };
  return fs.readUntil ? fs.readUntil(path, stop, HEAD_BYTES, options) : readUntilThroughOpen(fs, path, stop, HEAD_BYTES, options);
}

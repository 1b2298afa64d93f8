/**
 * Reading only the head of a SKILL.md: lazy discovery needs the frontmatter,
 * not the body (`loadSkillContent` reads the whole file again at activation),
 * and bodies are usually many times larger than their frontmatter.
 *
 * The text returned is a prefix of the file's text that ends just after the
 * closing fence's line (or the first line, when there is no opening fence),
 * or the whole file when no closing fence is found. `parseFrontmatter` gives
 * the same metadata, fields and diagnostics for it as for the whole file; only
 * `body` differs. The fence rules mirror `splitFrontmatter`.
 */
import { Buffer } from 'node:buffer';
import { NOT_A_FILE, type ReadUntilOptions, type SkillsFileSystem } from '../fs.js';

/** First read: holds the frontmatter of nearly every real SKILL.md in one call. */
export const HEAD_BYTES = 4096;

const LF = 10;
const CR = 13;
const SPACE = 32;
const TAB = 9;
const DASH = 45;
const DOT = 46;

/** Offset of the first line break at or after `start`, or -1 when the bytes end first. */
function lineEnd(bytes: Uint8Array, start: number, length: number): number {
  for (let i = start; i < length; i++) {
    const byte = bytes[i];
    if (byte === LF || byte === CR) return i;
  }
  return -1;
}

/** Offset just past the line break at `end` (CRLF counts as one break). */
function nextLineStart(bytes: Uint8Array, end: number, length: number): number {
  return bytes[end] === CR && end + 1 < length && bytes[end + 1] === LF ? end + 2 : end + 1;
}

/** `marker` three times at `start`, then only spaces or tabs until `end`. */
function isFence(bytes: Uint8Array, start: number, end: number, marker: number): boolean {
  if (end - start < 3 || bytes[start] !== marker || bytes[start + 1] !== marker || bytes[start + 2] !== marker) return false;
  for (let i = start + 3; i < end; i++) {
    if (bytes[i] !== SPACE && bytes[i] !== TAB) return false;
  }
  return true;
}

/**
 * Where the part of the file the frontmatter parser needs ends, given its
 * first `length` bytes: the offset just past that line's break, or -1 when
 * more bytes are needed to tell. `from` is a line start known not to hold the
 * closing fence (a resume point for the next call), updated in `state`.
 */
function headEnd(bytes: Uint8Array, length: number, state: { from: number }): number {
  const bom = length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  if (state.from === 0) {
    const first = lineEnd(bytes, bom, length);
    if (first < 0) return -1;
    // No opening fence: the parser reads no frontmatter, so the first line is enough.
    if (!isFence(bytes, bom, first, DASH)) return first + 1;
    state.from = nextLineStart(bytes, first, length);
  }
  let pos = state.from;
  while (pos < length) {
    const end = lineEnd(bytes, pos, length);
    // A line cut off by the end of the bytes read may still turn out to be a fence.
    if (end < 0) break;
    if (isFence(bytes, pos, end, DASH) || isFence(bytes, pos, end, DOT)) return end + 1;
    // A CR read last may be half a CRLF; taking the LF as an empty line later is harmless (never a fence).
    pos = nextLineStart(bytes, end, length);
    state.from = pos;
  }
  return -1;
}

/**
 * The head of the file at `path` (see above), read through `fs.readUntil` or
 * `fs.open`. The decoded prefix always ends on a line break, which is ASCII,
 * so it is exactly the start of what `readFile(path, 'utf8')` would return.
 * Rejects as `readFile` would when the file cannot be opened or read; with
 * `checkType`, also when it is not a regular file (code NOT_A_FILE).
 */
export async function readSkillHead(fs: SkillsFileSystem, path: string, options: ReadUntilOptions = {}): Promise<string> {
  if (fs.readUntil) {
    const state = { from: 0 };
    return fs.readUntil(path, (bytes, length) => headEnd(bytes, length, state), HEAD_BYTES, options);
  }
  const handle = await fs.open(path, 'r');
  try {
    const opened = options.checkType === true && handle.stat ? await handle.stat() : undefined;
    if (opened && !opened.isFile()) {
      throw Object.assign(new Error(`${path} is not a regular file`), { code: opened.isDirectory() ? 'EISDIR' : NOT_A_FILE });
    }
    let bytes = Buffer.allocUnsafe(HEAD_BYTES);
    let length = 0;
    const state = { from: 0 };
    for (;;) {
      if (length === bytes.length) {
        const grown = Buffer.allocUnsafe(bytes.length * 4);
        bytes.copy(grown, 0, 0, length);
        bytes = grown;
      }
      const { bytesRead } = await handle.read(bytes, length, bytes.length - length, length);
      // End of file without a closing fence: the whole text, so the parser reports it as it would.
      if (bytesRead === 0) return bytes.toString('utf8', 0, length);
      length += bytesRead;
      const end = headEnd(bytes, length, state);
      if (end >= 0) return bytes.toString('utf8', 0, end);
    }
  } finally {
    // A failed close must not hide the text already read, nor turn into a rejection.
    await handle.close().catch(() => undefined);
  }
}

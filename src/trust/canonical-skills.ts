/**
 * The skill entries of a manifest body exactly as `sign` writes them
 * (manifest.ts: one skill a line, fixed key order), read with a few regular
 * expressions instead of JSON.parse and a check per field. A first request
 * under `trust` admits the manifest before it serves anything: at 2,000
 * skills (11,893 files, 1.3 MB) parsing and checking every entry cost 20-30
 * ms of CPU and its garbage, cold, more than the whole signature check.
 *
 * Every rule of manifest.ts's checkSkills holds here, for every entry, at
 * admission: paths (no `..`, absolute, URL or backslash; at most
 * MAX_PATH_CHARS), order and uniqueness of skills and of each skill's files,
 * digest and hash formats, whole-number sizes, SKILL.md listed, at most
 * MAX_FILES_PER_SKILL files. What is not done at admission is decoding a
 * skill's file list into arrays: that waits for the first use of `files`
 * (the skill's activation, its listing, a read), from text already checked.
 *
 * Only the plainest spelling is read here: paths without escapes, control
 * characters, `"` or characters outside the Basic Multilingual Plane (so
 * that `<` orders them by code point), sizes below 10^15. Anything else,
 * and every problem, gives undefined: the general reader then reads the
 * body and names what is wrong, as before.
 *
 * A manifest read as bytes is read here over their Latin-1 reading (one
 * character a byte: manifest.ts's manifestSource), not their UTF-8 text: one
 * `é` in 12.6 MB made the whole decoded text two bytes a character (25 MB at
 * 20,000 skills), and every slice of it compared slowly against the one-byte
 * strings of a scan. Every character the layout and the rules look at is
 * ASCII, which both readings share; a path with other bytes is decoded from
 * them (`utf8`) where it is kept. Bytes compare in code point order, and a
 * path has at least as many bytes as UTF-16 characters, so the length and
 * order checks here never accept what the general reader would refuse.
 */
import { SKILL_FILE } from '../base/skill-file.js';
import { MAX_FILES_PER_SKILL, MAX_PATH_CHARS } from './format.js';
import type { ManifestFile, ManifestSkill } from './entries.js';

/**
 * A skill entry's start at the sticky position, through its file list's `[`: its path, digest and
 * frontmatter hash. The body is read in one pass where it lies, not split into lines first (each line
 * a string, each matched twice: 20,000 lines made 40,000 strings and scanned 12.7 MB twice).
 */
const SKILL_START = /\{"path":"[^"\\]*","digest":"sha256-[A-Za-z0-9_-]{43}","frontmatter":"[0-9a-f]{64}","files":\[/y;
/** Where a skill line's fields start: its path from the line's start; its digest and frontmatter hash after what precedes each. */
const PATH_AT = '{"path":"'.length;
const DIGEST_AT = '","digest":"'.length;
const DIGEST_CHARS = 'sha256-'.length + 43;
const FRONTMATTER_AT = '","frontmatter":"'.length;
const HEX_SHA256_CHARS = 64;
/** A character outside ASCII: a path holding one is decoded from the bytes it was read from. */
const NOT_ASCII = /[\u0080-\uffff]/;

/** A path's parts in the plain spelling: not `.` or `..`, no `/`, `\\`, `"`, control character or surrogate; no `:` in the first. */
const NOT_DOTS = String.raw`(?!\.\.?(?:\/|"))`;
const FIRST_PART = String.raw`[^/\\:"\u0000-\u001f\u007f\ud800-\udfff]+`;
const PART = String.raw`[^/\\"\u0000-\u001f\u007f\ud800-\udfff]+`;
/**
 * One file entry at the sticky position: a path every rule accepts in the plain spelling (PLAIN's parts,
 * ending at its closing `"`), a size, a hash. Matched with `test`, which makes nothing: 120,000 entries
 * at 20,000 skills made as many arrays and strings for the collector.
 */
const fileEntry = (first: string, part: string) =>
  new RegExp(String.raw`\["${NOT_DOTS}${first}(?:\/${NOT_DOTS}${part})*",(?:0|[1-9][0-9]{0,14}),"[0-9a-f]{64}"\]`, 'y');
const FILE_ENTRY = fileEntry(FIRST_PART, PART);
/** FILE_ENTRY with an ASCII path, tried first: a list of such entries is the same in either reading of bytes. */
const ASCII_FILE_ENTRY = fileEntry(String.raw`[^/\\:"\u0000-\u001f\u007f-\uffff]+`, String.raw`[^/\\"\u0000-\u001f\u007f-\uffff]+`);

/** A path every rule accepts, in the plain spelling above (manifest.ts's PLAIN_PATH without `"` and surrogates). */
const PLAIN = new RegExp(String.raw`^(?!\.\.?(?:\/|$))${FIRST_PART}(?:\/(?!\.\.?(?:\/|$))${PART})*$`);

const isPlain = (path: string, kind: 'skill' | 'file'): boolean =>
  (kind === 'skill' && path === '.') || (path.length <= MAX_PATH_CHARS && PLAIN.test(path));

/**
 * A skill entry whose digest and file list are read at their first use (the skill's activation, its
 * listing, a read), from the text where they were checked: a first request needs only each path and
 * frontmatter hash, and 20,000 skills made 40,000 strings more for the collector. One class, not an
 * object with its own getters each.
 */
class CheckedSkill implements ManifestSkill {
  #files: readonly ManifestFile[] | undefined;
  readonly #text: string;
  readonly #digestAt: number;
  /** The file list as signed, between its brackets. */
  readonly #filesAt: number;
  readonly #filesEnd: number;
  /** Given when the file list is outside ASCII in a Latin-1 reading of bytes: it is decoded from them. */
  readonly #utf8: Utf8Of | undefined;

  constructor(
    readonly path: string,
    readonly frontmatter: string,
    where: { text: string; digestAt: number; filesAt: number; filesEnd: number; utf8: Utf8Of | undefined },
  ) {
    this.#text = where.text;
    this.#digestAt = where.digestAt;
    this.#filesAt = where.filesAt;
    this.#filesEnd = where.filesEnd;
    this.#utf8 = where.utf8;
  }

  get digest(): string {
    return this.#text.slice(this.#digestAt, this.#digestAt + DIGEST_CHARS);
  }

  get files(): readonly ManifestFile[] {
    if (this.#files) return this.#files;
    const list = this.#utf8 ? this.#utf8(this.#filesAt, this.#filesEnd) : this.#text.slice(this.#filesAt, this.#filesEnd);
    this.#files = JSON.parse(`[${list}]`) as ManifestFile[];
    return this.#files;
  }
}

const COMMA = 0x2c;
const CLOSE = 0x5d;

/**
 * Decodes the UTF-8 bytes behind characters `start` to `end` of the text being read, when that text is
 * their Latin-1 reading (manifest.ts's manifestSource): what a path or file list outside ASCII holds.
 */
export type Utf8Of = (start: number, end: number) => string;

/** What reading a file list found besides its end: whether a path in it is outside ASCII. */
interface FilesRead {
  wide: boolean;
}

/**
 * Where the file list starting at `from` (after its `[`) ends, at its `]`, when it holds only sound
 * entries (sorted, unique, SKILL.md among them); -1 otherwise. `read` is filled, not made: one a manifest.
 */
function soundFiles(text: string, from: number, read: FilesRead): number {
  let cursor = from;
  let previous = -1;
  let previousEnd = -1;
  let count = 0;
  let hasSkillFile = false;
  read.wide = false;
  for (;;) {
    const at = cursor + 2;
    cursor = fileEntryEnd(text, cursor, read);
    if (cursor < 0) return -1;
    const end = text.indexOf('"', at);
    if (end - at > MAX_PATH_CHARS || (previous >= 0 && !isBefore(text, previous, previousEnd, at, end))) return -1;
    if (++count > MAX_FILES_PER_SKILL) return -1;
    if (end - at === SKILL_FILE.length && text.startsWith(SKILL_FILE, at)) hasSkillFile = true;
    previous = at;
    previousEnd = end;
    // An entry is followed by a comma and another entry, or by the list's end.
    const next = text.charCodeAt(cursor);
    if (next === CLOSE) return hasSkillFile ? cursor : -1;
    if (next !== COMMA) return -1;
    cursor++;
  }
}

/** The end of the sound file entry at `at`, or -1; `read.wide` set when its path is outside ASCII. */
function fileEntryEnd(text: string, at: number, read: FilesRead): number {
  ASCII_FILE_ENTRY.lastIndex = at;
  if (ASCII_FILE_ENTRY.test(text)) return ASCII_FILE_ENTRY.lastIndex;
  FILE_ENTRY.lastIndex = at;
  if (!FILE_ENTRY.test(text)) return -1;
  read.wide = true;
  return FILE_ENTRY.lastIndex;
}

/**
 * Whether `text`'s characters from `a` to `aEnd` sort strictly before those from `b` to `bEnd`, compared
 * where they lie. Without surrogates, UTF-16 order is code point order, as is the order of UTF-8 bytes
 * (a Latin-1 reading); a duplicate is not before.
 */
function isBefore(text: string, a: number, aEnd: number, b: number, bEnd: number): boolean {
  const length = Math.min(aEnd - a, bEnd - b);
  for (let i = 0; i < length; i++) {
    const x = text.charCodeAt(a + i);
    const y = text.charCodeAt(b + i);
    if (x !== y) return x < y;
  }
  return aEnd - a < bEnd - b;
}

/** A skill line's end: `]}`, then `,` and a line break before the next line. */
const LINE_END = ']}';
const NEXT_LINE = ',\n';

/**
 * The skill entries of the skill lines in `text` from `from` to `to` (a
 * body's lines between its first, the envelope's, and its last, `]}`: one
 * line at least), every one checked; undefined when any is not in the plain
 * spelling or breaks a rule (the general reader says which). `utf8`: given
 * when `text` is the Latin-1 reading of bytes, to decode what lies outside ASCII.
 */
export function readCanonicalSkills(text: string, from = 0, to = text.length, utf8?: Utf8Of): ManifestSkill[] | undefined {
  const skills: ManifestSkill[] = [];
  const files: FilesRead = { wide: false };
  let previous: string | undefined;
  let at = from;
  for (;;) {
    SKILL_START.lastIndex = at;
    // `test`, not `exec`: no match array and captures per skill. The path ends at the first `"` (it holds
    // none), and the digest and frontmatter hash, of fixed lengths, lie at fixed places after it.
    if (!SKILL_START.test(text)) return undefined;
    const pathAt = at + PATH_AT;
    const pathEnd = text.indexOf('"', pathAt);
    const read = text.slice(pathAt, pathEnd);
    const path = utf8 && NOT_ASCII.test(read) ? utf8(pathAt, pathEnd) : read;
    if (!isPlain(path, 'skill') || (previous !== undefined && !(previous < path))) return undefined;
    const digestAt = pathEnd + DIGEST_AT;
    const frontmatterAt = digestAt + DIGEST_CHARS + FRONTMATTER_AT;
    const filesAt = SKILL_START.lastIndex;
    const filesEnd = soundFiles(text, filesAt, files);
    if (filesEnd < 0 || !text.startsWith(LINE_END, filesEnd)) return undefined;
    previous = path;
    const frontmatter = text.slice(frontmatterAt, frontmatterAt + HEX_SHA256_CHARS);
    skills.push(new CheckedSkill(path, frontmatter, { text, digestAt, filesAt, filesEnd, utf8: files.wide ? utf8 : undefined }));
    at = filesEnd + LINE_END.length;
    if (at === to) return skills;
    if (at > to || !text.startsWith(NEXT_LINE, at)) return undefined;
    at += NEXT_LINE.length;
  }
}

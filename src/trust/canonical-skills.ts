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
 */
import { SKILL_FILE } from '../base/skill-file.js';
import { MAX_FILES_PER_SKILL, MAX_PATH_CHARS } from './format.js';
import type { ManifestFile, ManifestSkill } from './entries.js';

/**
 * A skill entry's start at the sticky position, through its file list's `[`: its path, digest and
 * frontmatter hash. The body is read in one pass where it lies, not split into lines first (each line
 * a string, each matched twice: 20,000 lines made 40,000 strings and scanned 12.7 MB twice).
 */
const SKILL_START = /\{"path":"([^"\\]*)","digest":"(sha256-[A-Za-z0-9_-]{43})","frontmatter":"([0-9a-f]{64})","files":\[/y;

/** A path's parts in the plain spelling: not `.` or `..`, no `/`, `\\`, `"`, control character or surrogate; no `:` in the first. */
const NOT_DOTS = String.raw`(?!\.\.?(?:\/|"))`;
const FIRST_PART = String.raw`[^/\\:"\u0000-\u001f\u007f\ud800-\udfff]+`;
const PART = String.raw`[^/\\"\u0000-\u001f\u007f\ud800-\udfff]+`;
/**
 * One file entry at the sticky position: a path every rule accepts in the plain spelling (PLAIN's parts,
 * ending at its closing `"`), a size, a hash. Matched with `test`, which makes nothing: 120,000 entries
 * at 20,000 skills made as many arrays and strings for the collector.
 */
const FILE_ENTRY = new RegExp(
  String.raw`\["${NOT_DOTS}${FIRST_PART}(?:\/${NOT_DOTS}${PART})*",(?:0|[1-9][0-9]{0,14}),"[0-9a-f]{64}"\]`,
  'y',
);

/** A path every rule accepts, in the plain spelling above (manifest.ts's PLAIN_PATH without `"` and surrogates). */
const PLAIN = new RegExp(String.raw`^(?!\.\.?(?:\/|$))${FIRST_PART}(?:\/(?!\.\.?(?:\/|$))${PART})*$`);

const isPlain = (path: string, kind: 'skill' | 'file'): boolean =>
  (kind === 'skill' && path === '.') || (path.length <= MAX_PATH_CHARS && PLAIN.test(path));

/**
 * A skill entry whose file list is decoded at its first use, from `filesText`, checked when it was read.
 * One class, not an object with its own getter each: 20,000 skills made 20,000 getters.
 */
class CheckedSkill implements ManifestSkill {
  #files: readonly ManifestFile[] | undefined;

  constructor(
    readonly path: string,
    readonly digest: string,
    readonly frontmatter: string,
    /** The entry's file list as signed, between its brackets. */
    readonly filesText: string,
  ) {}

  get files(): readonly ManifestFile[] {
    this.#files ??= JSON.parse(`[${this.filesText}]`) as ManifestFile[];
    return this.#files;
  }
}

const COMMA = 0x2c;
const CLOSE = 0x5d;

/**
 * Where the file list starting at `from` (after its `[`) ends, at its `]`, when it holds only sound
 * entries (sorted, unique, SKILL.md among them); -1 otherwise.
 */
function soundFiles(text: string, from: number): number {
  FILE_ENTRY.lastIndex = from;
  let previous = -1;
  let previousEnd = -1;
  let count = 0;
  let hasSkillFile = false;
  for (;;) {
    const at = FILE_ENTRY.lastIndex + 2;
    if (!FILE_ENTRY.test(text)) return -1;
    const end = text.indexOf('"', at);
    if (end - at > MAX_PATH_CHARS || (previous >= 0 && !isBefore(text, previous, previousEnd, at, end))) return -1;
    if (++count > MAX_FILES_PER_SKILL) return -1;
    if (end - at === SKILL_FILE.length && text.startsWith(SKILL_FILE, at)) hasSkillFile = true;
    previous = at;
    previousEnd = end;
    // An entry is followed by a comma and another entry, or by the list's end.
    const next = text.charCodeAt(FILE_ENTRY.lastIndex);
    if (next === CLOSE) return hasSkillFile ? FILE_ENTRY.lastIndex : -1;
    if (next !== COMMA) return -1;
    FILE_ENTRY.lastIndex++;
  }
}

/**
 * Whether `text`'s characters from `a` to `aEnd` sort strictly before those from `b` to `bEnd`, compared
 * where they lie. Without surrogates, UTF-16 order is code point order; a duplicate is not before.
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
 * spelling or breaks a rule (the general reader says which).
 */
export function readCanonicalSkills(text: string, from = 0, to = text.length): ManifestSkill[] | undefined {
  const skills: ManifestSkill[] = [];
  let previous: string | undefined;
  let at = from;
  for (;;) {
    SKILL_START.lastIndex = at;
    const match = SKILL_START.exec(text);
    if (!match) return undefined;
    // By index, not destructured: an array iterator per skill, in code that runs once, cold.
    const path = match[1] ?? '';
    const digest = match[2] ?? '';
    const frontmatter = match[3] ?? '';
    if (!isPlain(path, 'skill') || (previous !== undefined && !(previous < path))) return undefined;
    const filesAt = SKILL_START.lastIndex;
    const filesEnd = soundFiles(text, filesAt);
    if (filesEnd < 0 || !text.startsWith(LINE_END, filesEnd)) return undefined;
    previous = path;
    skills.push(new CheckedSkill(path, digest, frontmatter, text.slice(filesAt, filesEnd)));
    at = filesEnd + LINE_END.length;
    if (at === to) return skills;
    if (at > to || !text.startsWith(NEXT_LINE, at)) return undefined;
    at += NEXT_LINE.length;
  }
}

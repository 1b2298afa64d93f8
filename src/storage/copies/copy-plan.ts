/**
 * What a skill's local copy holds, decided before a byte is read: which of
 * its listed files are copied (SKILL.md always; the others within
 * `maxFileSize` each and `maxSkillSize` in all, in path order, with names
 * that are safe on every disk), which are not and why, and the version
 * folder's name, made from each copied file's path, size and ETag (or signed
 * hash), so two versions never share a folder and an unchanged skill finds
 * its folder again without a request. Pure.
 */
import { createHash } from 'node:crypto';
import { hasHiddenCharacters } from '../../base/hidden-characters.js';
import { SKILL_FILE } from '../../base/skill-file.js';

/** A file of the skill as its listing gives it. */
export interface ListedFile {
  /** Relative to the skill folder, `/`-separated, as the object's key has it. */
  path: string;
  /** Where it is read from: `s3://bucket/key`, `az://container/key`. */
  object: string;
  size: number;
  etag: string;
  /** The SHA-256 (hex) its signed manifest gives (`trust`): the bytes must hash to it before they are written. */
  sha256?: string;
}

/** Why a file is left out: its size, its name, or (`trust`, enforce) no signed hash for it. */
export type SkipReason = 'too-large' | 'over-skill-size' | 'unsafe-name' | 'unsigned';

export interface SkippedFile {
  path: string;
  reason: SkipReason;
  /** What the listing says about it, for the model: `over maxFileSize (100 KB)`. */
  detail: string;
}

/**
 * How a copy holds `trust`: `enforce` writes only bytes that hash to their
 * signed SHA-256 (a file without one is not copied, a file that does not
 * match stops the version); `report` writes what is read and says which
 * files are not as signed.
 */
export type CopyVerification = 'enforce' | 'report';

export interface CopyLimits {
  /** Largest file copied, in bytes (SKILL.md aside). */
  maxFileSize: number;
  /** Most bytes copied for one skill (SKILL.md counts, and is copied whatever its size). */
  maxSkillSize: number;
}

export interface CopyPlan {
  /** The skill's name. */
  skill: string;
  /** The skill folder it is copied from. */
  source: string;
  /** The version folder's name: `<skill>-<hash of what is copied>`. */
  name: string;
  files: ListedFile[];
  skipped: SkippedFile[];
  /** Bytes of the files copied, as listed. */
  bytes: number;
  /** Under `trust`: how the files' bytes are held to their signed hashes. Absent: they are not. */
  verify?: CopyVerification;
}

/** Changes whenever the layout of a version folder does, so a folder of another layout is never taken for this one. */
const LAYOUT = 'sisu-skills-copy/1';
/** Longest file or folder name most disks take, in bytes. */
const MAX_NAME_BYTES = 255;
/** Hex characters of the version hash in a folder name: 2^-48 odds that two versions of one skill collide. */
const VERSION_CHARS = 12;

/**
 * Why `path` (a key relative to the skill folder) must not become a file
 * under the copy: undefined when it is a plain relative path of plain names.
 * Stricter than a disk needs, so that no spelling (`..`, `%2e%2e`, `a\b`,
 * `C:`, a leading `/`, a NUL, an invisible character) means one thing in the
 * bucket and another on some disk.
 */
export function unsafeNameProblem(path: string): string | undefined {
  if (path === '' || path.startsWith('/')) return 'it is empty or absolute';
  if (path.includes('\\')) return 'it holds a backslash, a folder separator on Windows';
  if (hasHiddenCharacters(path)) return 'it holds control or invisible characters';
  if (/%[0-9a-f]{2}/iu.test(path)) return 'it holds %-escapes, which may spell `..` or `/`';
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.' || segment === '..') return 'it holds an empty, `.` or `..` segment';
    if (/^[a-z]:/iu.test(segment) || segment.includes(':')) return 'it holds a `:` (a drive or stream name on Windows)';
    if (Buffer.byteLength(segment) > MAX_NAME_BYTES) return `a name in it is longer than ${MAX_NAME_BYTES} bytes`;
  }
  return undefined;
}

function kilobytes(bytes: number): string {
  return `${Math.round(bytes / 1024).toLocaleString('en-US')} KB`;
}

/** Why `file` is not copied, given what is copied already; undefined when it is. */
function skipOf(file: ListedFile, copied: number, limits: CopyLimits, verify: CopyVerification | undefined): SkippedFile | undefined {
  const problem = unsafeNameProblem(file.path);
  if (problem !== undefined) return { path: file.path, reason: 'unsafe-name', detail: `not copied: ${problem}` };
  if (file.path === SKILL_FILE) return undefined;
  if (verify === 'enforce' && file.sha256 === undefined) {
    return { path: file.path, reason: 'unsigned', detail: "not copied: its library's signed manifest does not list it" };
  }
  if (file.size > limits.maxFileSize) {
    return { path: file.path, reason: 'too-large', detail: `not copied: over maxFileSize (${kilobytes(limits.maxFileSize)})` };
  }
  if (copied + file.size > limits.maxSkillSize) {
    return {
      path: file.path,
      reason: 'over-skill-size',
      detail: `not copied: the skill's copy would pass maxSkillSize (${kilobytes(limits.maxSkillSize)})`,
    };
  }
  return undefined;
}

/** The folder name of a version holding `files`: the skill's name made safe, and a hash of what the folder holds. */
export function versionName(skill: string, files: readonly Pick<ListedFile, 'path' | 'size' | 'etag' | 'sha256'>[]): string {
  const hash = createHash('sha256').update(`${LAYOUT}\n`);
  for (const file of [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    hash.update(`${file.path}\0${file.size}\0${file.sha256 ?? file.etag}\n`);
  }
  const slug =
    skill
      .toLowerCase()
      .replace(/[^a-z0-9-]+/gu, '-')
      .replace(/^-+|-+$/gu, '')
      .slice(0, 64) || 'skill';
  return `${slug}-${hash.digest('hex').slice(0, VERSION_CHARS)}`;
}

/**
 * What a copy of the skill `skill` at `source`, whose files are `listed`,
 * holds. `verify` (`trust`): the listed files carry their signed hashes, and
 * how the copy holds them (copy-write.ts).
 */
export function planCopy(
  skill: string,
  source: string,
  listed: readonly ListedFile[],
  limits: CopyLimits,
  verify?: CopyVerification,
): CopyPlan {
  const files: ListedFile[] = [];
  const skipped: SkippedFile[] = [];
  let bytes = 0;
  // SKILL.md first: it is copied whatever the limits, and counts against maxSkillSize before the rest.
  const ordered = [...listed].sort((a, b) => Number(b.path === SKILL_FILE) - Number(a.path === SKILL_FILE) || (a.path < b.path ? -1 : 1));
  for (const file of ordered) {
    const skip = skipOf(file, bytes, limits, verify);
    if (skip) {
      skipped.push(skip);
      continue;
    }
    files.push(file);
    bytes += file.size;
  }
  return { skill, source, name: versionName(skill, files), files, skipped, bytes, ...(verify ? { verify } : {}) };
}

/**
 * Writing one version of a skill under the copy root: every file read from
 * storage and written into a partial folder of this owner (read-only, or
 * read-and-execute for a file that starts with `#!`), then the folder renamed
 * to its version's name in one step. A reader sees a whole version or
 * nothing; a crash leaves only a partial folder, which is never used and is
 * swept later. Under `trust` each file's bytes are hashed as read, before
 * they are written, and the very bytes hashed are the ones written: in
 * enforce mode a file that does not hash to its signed SHA-256 stops the
 * copy and nothing of the version is kept (a version is whole as signed or
 * not at all); in report mode it is written and named as not signed.
 */
import { createHash } from 'node:crypto';
import { dirname, join, sep } from 'node:path';
import { createLimiter } from '../../base/concurrency.js';
import { SKILL_FILE } from '../../base/skill-file.js';
import { CopyCodes, CopyError, diskFailure, errnoOf } from './copy-error.js';
import type { UntrustedFile } from '../../base/skill-folder.js';
import type { CopyFileSystem } from './copy-fs.js';
import { versionName, type CopyLimits, type CopyPlan, type ListedFile, type SkippedFile } from './copy-plan.js';
import type { CopyRoot } from './copy-root.js';

/** Reads one object whole: its bytes and the ETag they had. Rejects with the storage's error. */
export type ReadObject = (object: string, signal?: AbortSignal) => Promise<{ bytes: Uint8Array; etag: string }>;

/** Objects read at once for one copy. */
const READS_IN_FLIGHT = 8;
const READ_ONLY = 0o444;
const EXECUTABLE = 0o555;

export interface WrittenVersion {
  /** The version folder's name, from the ETags (or hashes) and sizes actually read. */
  name: string;
  skipped: SkippedFile[];
  /** `trust`, report mode: files written that are not as signed. */
  untrusted: UntrustedFile[];
  /** Bytes written. */
  bytes: number;
}

interface Job {
  root: CopyRoot;
  fs: CopyFileSystem;
  plan: CopyPlan;
  read: ReadObject;
  limits: CopyLimits;
  signal?: AbortSignal | undefined;
}

/** `file` as read (with, in report mode, how it is not as signed), or why it is not copied after all (grown past the limit since it was listed). */
type Fetched = { file: ListedFile; bytes: Uint8Array; untrusted?: UntrustedFile } | { skipped: SkippedFile };

function startsWithShebang(bytes: Uint8Array): boolean {
  return bytes[0] === 0x23 && bytes[1] === 0x21;
}

async function fetchOne(job: Job, file: ListedFile): Promise<Fetched> {
  let got: { bytes: Uint8Array; etag: string };
  try {
    got = await job.read(file.object, job.signal);
  } catch (error) {
    const reason = (error as { reason?: unknown }).reason;
    const why = typeof reason === 'string' ? reason : error instanceof Error ? error.message : String(error);
    throw new CopyError(CopyCodes.readFailed, job.plan.skill, `${file.path} could not be read (${why})`, { cause: error });
  }
  if (file.path !== SKILL_FILE && got.bytes.length > job.limits.maxFileSize) {
    return { skipped: { path: file.path, reason: 'too-large', detail: 'not copied: it grew past maxFileSize after it was listed' } };
  }
  const read = { ...file, size: got.bytes.length, etag: got.etag };
  if (!job.plan.verify) return { file: read, bytes: got.bytes };
  const sha256 = createHash('sha256').update(got.bytes).digest('hex');
  if (sha256 === file.sha256) return { file: read, bytes: got.bytes };
  const untrusted: UntrustedFile = { path: file.path, ...(file.sha256 === undefined ? {} : { read: { sha256, size: got.bytes.length } }) };
  if (job.plan.verify === 'enforce') throw unverified(job.plan.skill, untrusted, file.sha256);
  // Report mode: written as read, and the version named from the bytes it holds, not the ones signed.
  return { file: { ...read, sha256 }, bytes: got.bytes, untrusted };
}

function unverified(skill: string, untrusted: UntrustedFile, signed: string | undefined): CopyError {
  const why =
    signed === undefined || untrusted.read === undefined
      ? "its library's signed manifest does not list it"
      : `it is not the file its publisher signed (expected sha256 ${signed.slice(0, 12)}…, read ${untrusted.read.sha256.slice(0, 12)}…)`;
  return new CopyError(CopyCodes.unverified, skill, `${untrusted.path}: ${why}, so nothing of this version was written or is used`, {
    untrusted,
  });
}

/** Writes `bytes` as `relative` under `folder`, which it must not leave whatever `relative` holds. */
async function writeInside(fs: CopyFileSystem, folder: string, relative: string, bytes: Uint8Array): Promise<void> {
  const target = join(folder, ...relative.split('/'));
  if (!target.startsWith(folder + sep)) throw new CopyError(CopyCodes.writeFailed, undefined, `${relative} would leave the copy's folder`);
  if (dirname(target) !== folder) await fs.mkdir(dirname(target), 0o700, true);
  await fs.writeNew(target, bytes, startsWithShebang(bytes) ? EXECUTABLE : READ_ONLY);
}

/**
 * Reads and writes every planned file into `partial`; what was written, and
 * what was skipped on the way. After a failure no new read starts, and it
 * rejects only once every started write has ended (none then writes into a
 * folder being removed).
 */
async function fill(job: Job, partial: string): Promise<{ written: ListedFile[]; skipped: SkippedFile[]; untrusted: UntrustedFile[] }> {
  const limit = createLimiter(READS_IN_FLIGHT);
  const written: ListedFile[] = [];
  const skipped = [...job.plan.skipped];
  const untrusted: UntrustedFile[] = [];
  let failed = false;
  const copyOne = async (file: ListedFile): Promise<void> => {
    if (failed) return;
    const fetched = await fetchOne(job, file);
    if ('skipped' in fetched) {
      skipped.push(fetched.skipped);
      return;
    }
    try {
      await writeInside(job.fs, partial, file.path, fetched.bytes);
    } catch (error) {
      throw diskFailure(error, job.root.path, job.plan.skill, `writing ${file.path}`);
    }
    written.push(fetched.file);
    if (fetched.untrusted) untrusted.push(fetched.untrusted);
  };
  const outcomes = await Promise.allSettled(
    job.plan.files.map((file) =>
      limit(() =>
        copyOne(file).catch((error: unknown) => {
          failed = true;
          throw error;
        }),
      ),
    ),
  );
  const failure = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failure) throw failure.reason;
  return { written, skipped, untrusted };
}

/**
 * The version of `job.plan` under the root: written now, or, when another
 * process renamed the same version into place first, theirs. Leased before it
 * is renamed into place.
 */
export async function writeVersion(job: Job): Promise<WrittenVersion> {
  const { root, fs, plan } = job;
  const partial = root.scratch('partial');
  let leased: string | undefined;
  try {
    await fs.mkdir(partial, 0o700).catch((error: unknown) => {
      throw diskFailure(error, root.path, plan.skill, 'making a folder for the copy');
    });
    const { written, skipped, untrusted } = await fill(job, partial);
    const name = versionName(plan.skill, written);
    leased = name;
    await root.lease(name);
    try {
      await fs.rename(partial, root.folder(name));
    } catch (error) {
      const errno = errnoOf(error);
      if (errno !== 'ENOTEMPTY' && errno !== 'EEXIST') throw diskFailure(error, root.path, plan.skill, 'putting the copy in place');
      // The same version, put there by another process (or instance) first: identical by its name.
      await fs.removeTree(partial);
    }
    return { name, skipped, untrusted, bytes: written.reduce((sum, file) => sum + file.size, 0) };
  } catch (error) {
    await fs.removeTree(partial).catch(() => undefined);
    if (leased !== undefined) await root.release(leased).catch(() => undefined);
    throw diskFailure(error, root.path, plan.skill, 'copying');
  }
}

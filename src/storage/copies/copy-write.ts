/**
 * Writing one version of a skill under the copy root: every file read from
 * storage and written into a partial folder of this owner (read-only, or
 * read-and-execute for a file that starts with `#!`), then the folder renamed
 * to its version's name in one step. A reader sees a whole version or
 * nothing; a crash leaves only a partial folder, which is never used and is
 * swept later. With a signed hash, the bytes are checked before they are
 * written: a file that does not match stops the copy and nothing of it stays.
 */
import { createHash } from 'node:crypto';
import { dirname, join, sep } from 'node:path';
import { createLimiter } from '../../base/concurrency.js';
import { SKILL_FILE } from '../../base/skill-file.js';
import { CopyCodes, CopyError, diskFailure, errnoOf } from './copy-error.js';
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
  /** The version folder's name, from the ETags and sizes actually read. */
  name: string;
  skipped: SkippedFile[];
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

/** `file` as read, or why it is not copied after all (grown past the limit since it was listed). */
type Fetched = { file: ListedFile; bytes: Uint8Array } | { skipped: SkippedFile };

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
  if (file.sha256 !== undefined) {
    const actual = createHash('sha256').update(got.bytes).digest('hex');
    if (actual !== file.sha256) {
      throw new CopyError(
        CopyCodes.unverified,
        job.plan.skill,
        `${file.path} is not the file its signed manifest names (sha256 ${file.sha256.slice(0, 12)}…, read ${actual.slice(0, 12)}…): ` +
          'nothing of this version was written',
      );
    }
  }
  return { file: { ...file, size: got.bytes.length, etag: got.etag }, bytes: got.bytes };
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
async function fill(job: Job, partial: string): Promise<{ written: ListedFile[]; skipped: SkippedFile[] }> {
  const limit = createLimiter(READS_IN_FLIGHT);
  const written: ListedFile[] = [];
  const skipped = [...job.plan.skipped];
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
  return { written, skipped };
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
    const { written, skipped } = await fill(job, partial);
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
    return { name, skipped, bytes: written.reduce((sum, file) => sum + file.size, 0) };
  } catch (error) {
    await fs.removeTree(partial).catch(() => undefined);
    if (leased !== undefined) await root.release(leased).catch(() => undefined);
    throw diskFailure(error, root.path, plan.skill, 'copying');
  }
}

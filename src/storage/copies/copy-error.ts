/**
 * Why a skill's local copy could not be made: a code callers act on, the
 * folder involved, and a reason that says what to fix. The message is built
 * here from those fields; a `[skills]` prefix is added where it is shown.
 */

import type { UntrustedFile } from '../../base/skill-folder.js';

export const CopyCodes = {
  /** The copy root cannot be made or written (EACCES, EROFS, ENOTDIR, a file in its place...). */
  rootUnwritable: 'COPY_ROOT_UNWRITABLE',
  /** The disk (or the user's quota) is full. */
  diskFull: 'COPY_DISK_FULL',
  /** A file of the skill could not be read from storage. */
  readFailed: 'COPY_READ_FAILED',
  /** A file's bytes are not the ones its signed manifest names: nothing of the version is kept. */
  unverified: 'COPY_UNVERIFIED',
  /** Any other failure of the disk while the copy was written. */
  writeFailed: 'COPY_WRITE_FAILED',
  /** `close()` was called: no more copies are made. */
  closed: 'COPY_CLOSED',
} as const;

export type CopyCode = (typeof CopyCodes)[keyof typeof CopyCodes];

const FULL = new Set(['ENOSPC', 'EDQUOT']);
const UNWRITABLE = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'EEXIST', 'ELOOP']);

/** The `code` of a node error, if it has one. */
export function errnoOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

export class CopyError extends Error {
  override readonly name = 'CopyError';
  /** `COPY_UNVERIFIED`: the file that stopped the copy. */
  readonly untrusted: UntrustedFile | undefined;

  constructor(
    readonly code: CopyCode,
    /** The skill whose copy failed, when one was being copied. */
    readonly skill: string | undefined,
    /** What went wrong and what to do, in one sentence. */
    readonly reason: string,
    options?: { cause?: unknown; untrusted?: UntrustedFile },
  ) {
    super(skill === undefined ? reason : `cannot copy skill "${skill}" to the local disk: ${reason}`, options);
    this.untrusted = options?.untrusted;
  }
}

/** A failure of the disk under `root` while `skill` was copied, said with what to do about it. */
export function diskFailure(error: unknown, root: string, skill: string | undefined, doing: string): CopyError {
  if (error instanceof CopyError) return error;
  const errno = errnoOf(error) ?? 'EIO';
  if (FULL.has(errno)) {
    return new CopyError(
      CopyCodes.diskFull,
      skill,
      `the disk holding ${root} is full (${errno}) while ${doing}: free space there, lower localCopies.maxBytes, or set localCopies.root to another disk`,
      { cause: error },
    );
  }
  if (UNWRITABLE.has(errno)) {
    return new CopyError(
      CopyCodes.rootUnwritable,
      skill,
      `${root} cannot be written (${errno}) while ${doing}: set localCopies.root to a folder this process may write, or fix its permissions`,
      { cause: error },
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return new CopyError(CopyCodes.writeFailed, skill, `${doing} under ${root} failed (${errno}: ${message})`, { cause: error });
}

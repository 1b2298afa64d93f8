/**
 * What went wrong with a storage request, said the way the rest of the
 * package reads a filesystem error: a `code` (ENOENT for a missing object,
 * EACCES for access denied...) and a `reason` that says what to fix, naming
 * the container and key (never credentials) and the permission or role
 * missing. Each engine turns its SDK's errors into these (s3-client.ts,
 * azure-client.ts); the wording they share is here.
 */

/** Codes a storage error may carry, besides the filesystem's ENOENT, EACCES, EFBIG. */
export const StorageCodes = {
  /** Storage did not answer (connection refused or cut, timeout, 5xx or throttled after the SDK's retries). */
  unavailable: 'STORAGE_UNAVAILABLE',
  /** The bucket does not exist. */
  noBucket: 'NO_SUCH_BUCKET',
  /** The object changed between the listing and the read. */
  changed: 'OBJECT_CHANGED',
  /** The answer ended before the body its headers promised. */
  truncated: 'BODY_TRUNCATED',
  /** The AWS SDK is not installed. */
  noSdk: 'S3_SDK_MISSING',
  /** The Azure SDK is not installed. */
  noAzureSdk: 'AZURE_SDK_MISSING',
  /** No connection to storage is configured (the option and its environment variable are both missing or unusable). */
  notConfigured: 'STORAGE_NOT_CONFIGURED',
} as const;

export class StorageError extends Error {
  override readonly name = 'StorageError';
  constructor(
    readonly code: string,
    /** A short reason that says what to fix, read by `errorReason`. */
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(reason, options);
  }
}

/** The HTTP status and error name an SDK's error carries, however it carries them (the engines say how). */
export interface SdkFailure {
  /** undefined: storage did not answer (connection refused or cut, aborted). */
  status: number | undefined;
  /** `NoSuchKey`, `AccessDenied`, `BlobNotFound`, `ECONNREFUSED`...; '' when there is none. */
  name: string;
}

export type StorageOperation = 'list' | 'get' | 'put';

/** A missing object (ENOENT), as a missing file is. */
export function missingObject(where: string, cause: unknown): StorageError {
  return new StorageError('ENOENT', `${where} does not exist`, { cause });
}

/** A range past the end of an object that was longer when it was listed or read before (416): OBJECT_CHANGED, worth a retry. */
export function changedWhileRead(where: string, cause: unknown): StorageError {
  return new StorageError(StorageCodes.changed, `${where} changed while it was read (it is shorter now); it is read again`, { cause });
}

/** Storage did not answer, or answered with an outage or throttling: STORAGE_UNAVAILABLE, worth a retry. */
export function unavailable(where: string, failure: SdkFailure, cause: unknown): StorageError {
  const { status, name } = failure;
  const why = status === undefined ? `no answer (${name || messageOf(cause)})` : `HTTP ${status}${name ? ` ${name}` : ''}`;
  return new StorageError(StorageCodes.unavailable, `storage unavailable for ${where}: ${why}`, { cause });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Whether trying again later may help (an outage or throttling), rather than a fix on the user's side. */
export function isTransient(error: unknown): boolean {
  const code = error instanceof StorageError ? error.code : undefined;
  return code === StorageCodes.unavailable || code === StorageCodes.truncated || code === StorageCodes.changed;
}

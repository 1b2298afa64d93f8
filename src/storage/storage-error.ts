/**
 * What went wrong with a storage request, said the way the rest of the
 * package reads a filesystem error: a `code` (ENOENT for a missing object,
 * EACCES for access denied...) and a `reason` that says what to fix, naming
 * the bucket and key (never credentials) and the IAM permission missing.
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
  /** The SDK is not installed. */
  noSdk: 'S3_SDK_MISSING',
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

/** What the SDK's errors carry: a name (`NoSuchKey`, `AccessDenied`...) and the HTTP status in `$metadata`. */
interface SdkErrorShape {
  name?: unknown;
  code?: unknown;
  $metadata?: { httpStatusCode?: unknown };
}

/** The HTTP status of an SDK error, if the server answered at all. */
export function httpStatusOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const status = (error as SdkErrorShape).$metadata?.httpStatusCode;
  return typeof status === 'number' ? status : undefined;
}

function nameOf(error: unknown): string {
  if (typeof error !== 'object' || error === null) return '';
  const { name, code } = error as SdkErrorShape;
  return typeof name === 'string' && name !== 'Error' ? name : typeof code === 'string' ? code : '';
}

export type StorageOperation = 'list' | 'get' | 'put';

const PERMISSION: Record<StorageOperation, string> = { list: 's3:ListBucket', get: 's3:GetObject', put: 's3:PutObject' };

/**
 * The StorageError for an SDK error met doing `operation` on `bucket`
 * (`key`: the object or prefix). Network failures and 5xx answers are
 * `unavailable`: they are worth retrying; the rest say what to fix.
 */
export function storageError(error: unknown, operation: StorageOperation, bucket: string, key: string): StorageError {
  if (error instanceof StorageError) return error;
  const status = httpStatusOf(error);
  const name = nameOf(error);
  const where = `s3://${bucket}/${key}`;
  const options = { cause: error };
  if (name === 'NoSuchBucket') {
    return new StorageError(StorageCodes.noBucket, `bucket "${bucket}" does not exist (check its name, region and endpoint)`, options);
  }
  if (name === 'NoSuchKey' || name === 'NotFound' || status === 404) return new StorageError('ENOENT', `${where} does not exist`, options);
  if (name === 'AccessDenied' || name === 'Forbidden' || status === 403) {
    const resource = operation === 'list' ? `arn:aws:s3:::${bucket}` : `arn:aws:s3:::${bucket}/${key}`;
    return new StorageError('EACCES', `access denied to ${where}: grant ${PERMISSION[operation]} on ${resource}`, options);
  }
  const why = status === undefined ? `no answer (${name || messageOf(error)})` : `HTTP ${status}${name ? ` ${name}` : ''}`;
  return new StorageError(StorageCodes.unavailable, `storage unavailable for ${where}: ${why}`, options);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Whether trying again later may help (an outage or throttling), rather than a fix on the user's side. */
export function isTransient(error: unknown): boolean {
  const code = error instanceof StorageError ? error.code : undefined;
  return code === StorageCodes.unavailable || code === StorageCodes.truncated || code === StorageCodes.changed;
}

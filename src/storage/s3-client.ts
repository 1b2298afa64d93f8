/**
 * The S3 engine of the storage edge (object-store.ts): the AWS SDK v3, loaded
 * only when an `s3://` place is configured (it is an optional peer), and the
 * edge's requests made through it: ListObjectsV2 pages, GetObject (ranged,
 * conditional, whole), HeadObject and PutObject, with the SDK's errors said
 * in the package's terms. Signing, XML and retries with backoff and jitter
 * are the SDK's.
 */
import { isS3Client, type S3ClientLike, type S3Option } from '../config/storage-options.js';
import {
  connectOnce,
  etagOf,
  optionalPeer,
  sizeFromContentRange,
  type GotObject,
  type ListOptions,
  type ListPage,
  type ObjectInfo,
} from './object-store.js';
import { EngineStore, type ReadRequest } from './engine-store.js';
import { StorageCodes, StorageError, missingObject, unavailable, type SdkFailure, type StorageOperation } from './storage-error.js';

/**
 * The parts of `@aws-sdk/client-s3` used here, written out: naming the SDK in
 * a type (or in a literal `import()`) pulls its ~600 declaration files into
 * every program that type-checks this source (ours: typecheck, the build's
 * declarations, the real-SISU type test). The s3 tests run the real SDK.
 */
export interface Sdk {
  S3Client: new (config: Record<string, unknown>) => S3ClientLike;
  ListObjectsV2Command: new (input: { Bucket: string; Prefix: string; ContinuationToken?: string; MaxKeys: number }) => object;
  GetObjectCommand: new (input: { Bucket: string; Key: string; Range?: string; IfNoneMatch?: string }) => object;
  HeadObjectCommand: new (input: { Bucket: string; Key: string }) => object;
  PutObjectCommand: new (input: { Bucket: string; Key: string; Body: string | Uint8Array; ContentType: string }) => object;
}

/** What the SDK answers to ListObjectsV2, as read here. */
export interface ListAnswer {
  Contents?: { Key?: string; Size?: number; ETag?: string; LastModified?: Date }[];
  IsTruncated?: boolean;
  NextContinuationToken?: string;
}

/** What the SDK answers to GetObject, as read here. */
export interface GetAnswer {
  Body?: { transformToByteArray(): Promise<Uint8Array> };
  ETag?: string;
  ContentRange?: string;
  ContentLength?: number;
}

/** What the SDK answers to HeadObject, as read here. */
export interface HeadAnswer {
  ContentLength?: number;
  ETag?: string;
  LastModified?: Date;
}

/**
 * The SDK's module name, held in a constant: a literal would make bundlers
 * (webpack, Vite) demand the optional peer at build time in apps that never
 * use a bucket; the comments keep them from rewriting the import.
 */
export const SDK_MODULE = '@aws-sdk/client-s3';

/**
 * Attempts per request (the SDK's standard retry mode: exponential backoff
 * with jitter, throttling answers such as 503 SlowDown and 429 included).
 * One more than the SDK's default 3: a throttled bucket gets a 4th chance
 * before a read is reported as failed.
 */
export const DEFAULT_MAX_ATTEMPTS = 4;

/** Keys per ListObjectsV2 page: the most S3 returns. */
export const LIST_PAGE_SIZE = 1000;

const peer = optionalPeer<Sdk>(
  SDK_MODULE,
  (cause) =>
    new StorageError(
      StorageCodes.noSdk,
      's3:// sources need the AWS SDK v3: run `npm install @aws-sdk/client-s3` (see the README for the versions that run on your Node)',
      { cause },
    ),
);

/** The SDK, imported once; rejects with a StorageError that says how to install it. */
export const loadSdk: () => Promise<Sdk> = peer.load;

/** Imports the SDK from `moduleName` (not cached: see loadSdk); a StorageError that says how to install it when that fails. */
export const importSdk: (moduleName: string) => Promise<Sdk> = peer.importFrom;

/**
 * A client from `option`. Without one, the SDK's default credential chain and
 * environment (AWS_REGION, AWS_ENDPOINT_URL_S3). With a custom endpoint
 * (given, or from the environment), path-style addressing: MinIO, Ceph RGW
 * and most self-hosted servers need it.
 */
export async function makeClient(option: S3Option | undefined): Promise<S3ClientLike> {
  if (isS3Client(option)) return option;
  const { S3Client } = await loadSdk();
  const config = option ?? {};
  const customEndpoint =
    config.endpoint !== undefined || process.env.AWS_ENDPOINT_URL_S3 !== undefined || process.env.AWS_ENDPOINT_URL !== undefined;
  return new S3Client({ forcePathStyle: customEndpoint, maxAttempts: DEFAULT_MAX_ATTEMPTS, ...(config as Record<string, unknown>) });
}

/** The edge's requests, on the client `option` gives (made on first use: the SDK is imported then, never before). */
export class S3Store extends EngineStore {
  readonly scheme = 's3://';
  private readonly connect: () => Promise<S3ClientLike>;

  constructor(option: S3Option | undefined) {
    super();
    this.connect = connectOnce(() => makeClient(option));
  }

  async listPage(bucket: string, prefix: string, options: ListOptions = {}): Promise<ListPage> {
    try {
      const { ListObjectsV2Command } = await loadSdk();
      const input = { Bucket: bucket, Prefix: prefix, ContinuationToken: options.token, MaxKeys: options.pageSize ?? LIST_PAGE_SIZE };
      const page = (await (await this.connect()).send(new ListObjectsV2Command(input), { abortSignal: options.signal })) as ListAnswer;
      const objects = (page.Contents ?? []).map((item) => ({
        key: (item.Key ?? '').slice(prefix.length),
        size: item.Size ?? 0,
        etag: etagOf(item.ETag),
        modifiedMs: item.LastModified?.getTime() ?? 0,
      }));
      return page.IsTruncated && page.NextContinuationToken ? { objects, next: page.NextContinuationToken } : { objects };
    } catch (error) {
      throw s3Error(error, 'list', bucket, prefix);
    }
  }

  async stat(bucket: string, key: string, signal?: AbortSignal): Promise<ObjectInfo> {
    try {
      const { HeadObjectCommand } = await loadSdk();
      const command = new HeadObjectCommand({ Bucket: bucket, Key: key });
      const answer = (await (await this.connect()).send(command, { abortSignal: signal })) as HeadAnswer;
      return { key, size: answer.ContentLength ?? 0, etag: etagOf(answer.ETag), modifiedMs: answer.LastModified?.getTime() ?? 0 };
    } catch (error) {
      throw s3Error(error, 'get', bucket, key);
    }
  }

  async write(bucket: string, key: string, body: string | Uint8Array, contentType: string, signal?: AbortSignal): Promise<void> {
    try {
      const { PutObjectCommand } = await loadSdk();
      const command = new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: contentType });
      await (await this.connect()).send(command, { abortSignal: signal });
    } catch (error) {
      throw s3Error(error, 'put', bucket, key);
    }
  }

  /** The object (or the range asked for). The SDK reports a 304 and a 416 as errors, told by their status (EngineStore). */
  protected async fetch(bucket: string, key: string, request: ReadRequest): Promise<GotObject> {
    // Making the client can fail too (the SDK missing, a config it refuses): EngineStore makes every failure a StorageError.
    const { GetObjectCommand } = await loadSdk();
    const { range, ifNoneMatch } = request;
    const input = { Bucket: bucket, Key: key, Range: range && `bytes=${range[0]}-${range[1]}`, IfNoneMatch: ifNoneMatch };
    const answer = (await (await this.connect()).send(new GetObjectCommand(input), { abortSignal: request.signal })) as GetAnswer;
    const bytes = await bodyOf(answer, `s3://${bucket}/${key}`);
    return { bytes, etag: etagOf(answer.ETag), size: sizeFromContentRange(answer.ContentRange, answer.ContentLength ?? bytes.length) };
  }

  protected statusOf(error: unknown): number | undefined {
    return httpStatusOf(error);
  }

  protected storageError(error: unknown, operation: StorageOperation, bucket: string, key: string): StorageError {
    return s3Error(error, operation, bucket, key);
  }
}

/**
 * The whole body of an answer. A body cut off (the connection closed after
 * the headers) or shorter than Content-Length is a StorageError `truncated`:
 * worth a retry, never text to parse.
 */
async function bodyOf(answer: GetAnswer, where: string): Promise<Uint8Array> {
  let bytes: Uint8Array;
  try {
    bytes = answer.Body ? await answer.Body.transformToByteArray() : new Uint8Array(0);
  } catch (error) {
    throw new StorageError(StorageCodes.truncated, `the answer for ${where} was cut off`, { cause: error });
  }
  if (answer.ContentLength !== undefined && bytes.length < answer.ContentLength) {
    throw new StorageError(
      StorageCodes.truncated,
      `the answer for ${where} ended early (${bytes.length} of ${answer.ContentLength} bytes)`,
    );
  }
  return bytes;
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

function failureOf(error: unknown): SdkFailure {
  if (typeof error !== 'object' || error === null) return { status: undefined, name: '' };
  const { name, code } = error as SdkErrorShape;
  return {
    status: httpStatusOf(error),
    name: typeof name === 'string' && name !== 'Error' ? name : typeof code === 'string' ? code : '',
  };
}

const PERMISSION: Record<StorageOperation, string> = { list: 's3:ListBucket', get: 's3:GetObject', put: 's3:PutObject' };

/**
 * The StorageError for an SDK error met doing `operation` on `bucket`
 * (`key`: the object or prefix). Network failures and 5xx answers are
 * `unavailable`: they are worth retrying; the rest say what to fix.
 */
export function s3Error(error: unknown, operation: StorageOperation, bucket: string, key: string): StorageError {
  if (error instanceof StorageError) return error;
  const failure = failureOf(error);
  const { status, name } = failure;
  const where = `s3://${bucket}/${key}`;
  if (name === 'NoSuchBucket') {
    const reason = `bucket "${bucket}" does not exist (check its name, region and endpoint)`;
    return new StorageError(StorageCodes.noBucket, reason, { cause: error });
  }
  if (name === 'NoSuchKey' || name === 'NotFound' || status === 404) return missingObject(where, error);
  if (name === 'AccessDenied' || name === 'Forbidden' || status === 403) {
    const resource = operation === 'list' ? `arn:aws:s3:::${bucket}` : `arn:aws:s3:::${bucket}/${key}`;
    return new StorageError('EACCES', `access denied to ${where}: grant ${PERMISSION[operation]} on ${resource}`, { cause: error });
  }
  return unavailable(where, failure, error);
}

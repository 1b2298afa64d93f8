/**
 * The AWS SDK v3, loaded only when an `s3://` place is configured (it is an
 * optional peer), and the few requests the package makes through it:
 * ListObjectsV2 pages, GetObject (whole, ranged, conditional), HeadObject and
 * PutObject. Signing, XML and retries with backoff and jitter are the SDK's.
 */
import { StorageCodes, StorageError, httpStatusOf, storageError } from './storage-error.js';

/** An `S3Client` of the user's: anything that sends the SDK's commands. */
export interface S3ClientLike {
  send(command: unknown, options?: { abortSignal?: AbortSignal }): Promise<unknown>;
}

/** The `S3ClientConfig` to make a client from (`endpoint`, `region`, `credentials`, `forcePathStyle`, `maxAttempts`...). */
export interface S3ConfigLike {
  endpoint?: unknown;
  region?: unknown;
  credentials?: unknown;
  forcePathStyle?: unknown;
  maxAttempts?: unknown;
}

/** The `s3` option: a client you made, or the config to make one. */
export type S3Option = S3ClientLike | S3ConfigLike;

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
  PutObjectCommand: new (input: { Bucket: string; Key: string; Body: string; ContentType: string }) => object;
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

/**
 * How long one request (a listing page, or a GET with its whole body) may take
 * before it is abandoned as unavailable and retried later. The SDK sets no
 * limit, so without one a connection that stops answering would stall the
 * refresh loop for good. Long enough for the 18 MB published index of
 * 20,000 skills (with instructions) at 300 kB/s.
 */
export const REQUEST_TIMEOUT_MS = 60_000;

/** Keys per ListObjectsV2 page: the most S3 returns. */
export const LIST_PAGE_SIZE = 1000;

let sdk: Promise<Sdk> | undefined;

/** The SDK, imported once; rejects with a StorageError that says how to install it. */
export function loadSdk(): Promise<Sdk> {
  sdk ??= importSdk(SDK_MODULE).catch((error: unknown) => {
    sdk = undefined;
    throw error;
  });
  return sdk;
}

/** Imports the SDK from `moduleName` (not cached: see loadSdk); a StorageError that says how to install it when that fails. */
export async function importSdk(moduleName: string): Promise<Sdk> {
  try {
    return (await import(/* webpackIgnore: true */ /* @vite-ignore */ moduleName)) as Sdk;
  } catch (error) {
    throw new StorageError(
      StorageCodes.noSdk,
      's3:// sources need the AWS SDK v3: run `npm install @aws-sdk/client-s3` (see the README for the versions that run on your Node)',
      { cause: error },
    );
  }
}

export function isS3Client(option: S3Option | undefined): option is S3ClientLike {
  return typeof (option as { send?: unknown } | undefined)?.send === 'function';
}

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

export interface ObjectInfo {
  /** The key relative to the listed prefix. */
  key: string;
  size: number;
  etag: string;
  /** Last-Modified, in ms since the epoch. */
  modifiedMs: number;
}

export interface GotObject {
  bytes: Uint8Array;
  etag: string;
  /** The whole object's size (from Content-Range when a range was asked for). */
  size: number;
}

/** The size of the whole object, from `Content-Range: bytes a-b/size`, else the body's length. */
function totalSize(contentRange: string | undefined, length: number): number {
  const total = contentRange?.split('/')[1];
  return total !== undefined && total !== '*' ? Number(total) : length;
}

export interface GetRequest {
  /** Bytes `start` to `end`, inclusive. */
  range?: [number, number];
  ifNoneMatch?: string;
  signal?: AbortSignal;
}

/** A signal that aborts after `ms` or when `outer` does; `timedOut` tells which. `clear` when the request is over. */
function timeLimit(outer: AbortSignal | undefined, ms: number) {
  const controller = new AbortController();
  const state = { timedOut: false };
  const onOuter = () => controller.abort(outer?.reason);
  const timer = setTimeout(() => {
    state.timedOut = true;
    controller.abort(new Error(`no answer within ${ms} ms`));
  }, ms);
  timer.unref?.();
  if (outer?.aborted) onOuter();
  else outer?.addEventListener('abort', onOuter, { once: true });
  const clear = () => {
    clearTimeout(timer);
    outer?.removeEventListener('abort', onOuter);
  };
  return { signal: controller.signal, state, clear };
}

/** The requests the package makes, on one client. */
export class BucketClient {
  /** `connect`: the client, made on first use. `requestTimeoutMs`: see REQUEST_TIMEOUT_MS. */
  constructor(
    private readonly connect: () => Promise<S3ClientLike>,
    private readonly requestTimeoutMs = REQUEST_TIMEOUT_MS,
  ) {}

  /**
   * `work` with the client and a signal limited to `requestTimeoutMs`; a
   * request that runs over is a StorageError `unavailable` (worth a retry).
   */
  private async limited<T>(
    signal: AbortSignal | undefined,
    where: string,
    work: (client: S3ClientLike, signal: AbortSignal) => Promise<T>,
  ) {
    const client = await this.connect();
    const limit = timeLimit(signal, this.requestTimeoutMs);
    try {
      return await work(client, limit.signal);
    } catch (error) {
      if (!limit.state.timedOut) throw error;
      const reason = `storage unavailable for ${where}: no answer within ${this.requestTimeoutMs} ms`;
      throw new StorageError(StorageCodes.unavailable, reason, { cause: error });
    } finally {
      limit.clear();
    }
  }

  /** One ListObjectsV2 page under `prefix`. */
  async listPage(
    bucket: string,
    prefix: string,
    token: string | undefined,
    signal?: AbortSignal,
    pageSize = LIST_PAGE_SIZE,
  ): Promise<{ objects: ObjectInfo[]; next?: string }> {
    const { ListObjectsV2Command } = await loadSdk();
    const command = new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token, MaxKeys: pageSize });
    try {
      const page = await this.limited(signal, `s3://${bucket}/${prefix}`, async (client, abortSignal) => {
        return (await client.send(command, { abortSignal })) as ListAnswer;
      });
      const objects = (page.Contents ?? []).map((item) => ({
        key: (item.Key ?? '').slice(prefix.length),
        size: item.Size ?? 0,
        etag: item.ETag ?? '',
        modifiedMs: item.LastModified?.getTime() ?? 0,
      }));
      return page.IsTruncated && page.NextContinuationToken ? { objects, next: page.NextContinuationToken } : { objects };
    } catch (error) {
      throw storageError(error, 'list', bucket, prefix);
    }
  }

  /**
   * The object (or the range asked for), or undefined when `ifNoneMatch`
   * still matches: the SDK reports a 304 as an error, told by its status.
   * The time limit covers the body too.
   */
  async get(bucket: string, key: string, request: GetRequest = {}): Promise<GotObject | undefined> {
    const { GetObjectCommand } = await loadSdk();
    const where = `s3://${bucket}/${key}`;
    const command = new GetObjectCommand({
      Bucket: bucket,
      Key: key,
      Range: request.range ? `bytes=${request.range[0]}-${request.range[1]}` : undefined,
      IfNoneMatch: request.ifNoneMatch,
    });
    try {
      return await this.limited(request.signal, where, async (client, abortSignal) => {
        let answer: GetAnswer;
        try {
          answer = (await client.send(command, { abortSignal })) as typeof answer;
        } catch (error) {
          if (httpStatusOf(error) === 304) return undefined;
          throw error;
        }
        return {
          bytes: await bodyOf(answer, where),
          etag: answer.ETag ?? '',
          size: totalSize(answer.ContentRange, answer.ContentLength ?? 0),
        };
      });
    } catch (error) {
      // Making the client can fail too (the SDK missing, a config it refuses): every failure is a StorageError.
      throw storageError(error, 'get', bucket, key);
    }
  }

  /** HeadObject: the object's size, ETag and date. */
  async head(bucket: string, key: string): Promise<ObjectInfo> {
    const { HeadObjectCommand } = await loadSdk();
    try {
      const answer = await this.limited(undefined, `s3://${bucket}/${key}`, async (client, abortSignal) => {
        return (await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }), { abortSignal })) as HeadAnswer;
      });
      return { key, size: answer.ContentLength ?? 0, etag: answer.ETag ?? '', modifiedMs: answer.LastModified?.getTime() ?? 0 };
    } catch (error) {
      throw storageError(error, 'get', bucket, key);
    }
  }

  async put(bucket: string, key: string, body: string, contentType: string): Promise<void> {
    const { PutObjectCommand } = await loadSdk();
    const command = new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: contentType });
    try {
      await this.limited(undefined, `s3://${bucket}/${key}`, (client, abortSignal) => client.send(command, { abortSignal }));
    } catch (error) {
      throw storageError(error, 'put', bucket, key);
    }
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

/**
 * The `azure` option's type, as config/ checks it and the Azure engine
 * (storage/azure-client.ts) uses it: the parts of `@azure/storage-blob`'s
 * clients and answers the package calls, written out. Naming the SDK's own
 * types would pull its declarations into every program that checks this
 * source; test/azure-client.test.ts checks that the real ones fit.
 */

export interface BlobItemLike {
  name: string;
  properties: { contentLength?: number; etag?: string; lastModified?: Date };
}

export interface BlobPageLike {
  segment: { blobItems: BlobItemLike[] };
  continuationToken?: string;
}

export interface BlobDownloadLike {
  etag?: string;
  contentRange?: string;
  contentLength?: number;
  readableStreamBody?: AsyncIterable<unknown>;
}

export interface BlobPropertiesLike {
  contentLength?: number;
  etag?: string;
  lastModified?: Date;
}

/** A `ContainerClient` of the SDK's, as used here. */
export interface ContainerClientLike {
  readonly containerName: string;
  listBlobsFlat(options?: { prefix?: string; abortSignal?: AbortSignal }): {
    byPage(settings?: { continuationToken?: string; maxPageSize?: number }): AsyncIterator<BlobPageLike>;
  };
  getBlobClient(name: string): {
    download(
      offset?: number,
      count?: number,
      options?: { abortSignal?: AbortSignal; conditions?: { ifNoneMatch?: string } },
    ): Promise<BlobDownloadLike>;
    getProperties(options?: { abortSignal?: AbortSignal }): Promise<BlobPropertiesLike>;
  };
  getBlockBlobClient(name: string): {
    upload(
      body: string | Uint8Array,
      contentLength: number,
      options?: { abortSignal?: AbortSignal; blobHTTPHeaders?: { blobContentType?: string } },
    ): Promise<unknown>;
  };
}

/** A `BlobServiceClient` of the SDK's, as used here. */
export interface BlobServiceClientLike {
  getContainerClient(name: string): ContainerClientLike;
}

/** The SDK's client options (`StoragePipelineOptions`: `retryOptions`, `userAgentOptions`, `proxyOptions`...). */
export type AzureClientOptions = Record<string, unknown>;

/**
 * The `azure` option: a `ContainerClient` or `BlobServiceClient` the app
 * made, a connection string, or an account URL (with a SAS, or a
 * `credential`: a `StorageSharedKeyCredential` or a `TokenCredential` such
 * as `DefaultAzureCredential`). `options` go to the client made from them.
 */
export type AzureOption =
  | ContainerClientLike
  | BlobServiceClientLike
  | { connectionString: string; options?: AzureClientOptions }
  | { url: string; credential?: unknown; options?: AzureClientOptions };

/** The environment variable read when no `azure` option is given. */
export const AZURE_CONNECTION_VARIABLE = 'AZURE_STORAGE_CONNECTION_STRING';

const isFunction = (value: unknown, name: string): boolean =>
  typeof value === 'object' && value !== null && typeof (value as Record<string, unknown>)[name] === 'function';

export function isContainerClient(option: unknown): option is ContainerClientLike {
  return isFunction(option, 'listBlobsFlat') && isFunction(option, 'getBlobClient');
}

export function isBlobServiceClient(option: unknown): option is BlobServiceClientLike {
  return isFunction(option, 'getContainerClient');
}

/**
 * The Azure Blob engine of the storage edge (object-store.ts), for `az://`
 * places: `@azure/storage-blob` v12, an optional peer imported only when a
 * connection must be made from a connection string or a URL (a client the
 * app made is used as it is). Listing pages, ranged, conditional and whole
 * downloads, blob properties and block uploads, with Azure's answers said
 * in the package's terms: ETags in one form, a 304 (thrown by the SDK) as
 * "not modified", a range on an empty blob (416) as the empty blob, and each
 * error code with what to fix. Signing, XML and retries are the SDK's.
 */
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
import {
  AZURE_CONNECTION_VARIABLE,
  isBlobServiceClient,
  isContainerClient,
  type AzureClientOptions,
  type AzureOption,
  type BlobDownloadLike,
  type BlobPageLike,
  type BlobServiceClientLike,
  type ContainerClientLike,
} from '../config/azure-option.js';
import { StorageCodes, StorageError, missingObject, unavailable, type SdkFailure, type StorageOperation } from './storage-error.js';

/** The parts of `@azure/storage-blob` used here, written out (see config/azure-option.ts). */
export interface AzureSdk {
  BlobServiceClient: {
    new (url: string, credential?: unknown, options?: AzureClientOptions): BlobServiceClientLike;
    fromConnectionString(connectionString: string, options?: AzureClientOptions): BlobServiceClientLike;
  };
  StorageSharedKeyCredential: new (accountName: string, accountKey: string) => object;
  AnonymousCredential: new () => object;
}

/** The SDK's module name, held in a constant so that bundlers leave the optional peer alone (see optionalPeer). */
export const AZURE_SDK_MODULE = '@azure/storage-blob';

/** Blobs per listing page: the most Azure returns. */
export const AZURE_LIST_PAGE_SIZE = 5000;

const peer = optionalPeer<AzureSdk>(
  AZURE_SDK_MODULE,
  (cause) =>
    new StorageError(
      StorageCodes.noAzureSdk,
      'az:// sources need the Azure SDK: run `npm install @azure/storage-blob` (see docs/fleet.md for the versions that run on your Node)',
      { cause },
    ),
);

/** The SDK, imported once; rejects with a StorageError that says how to install it. */
export const loadAzureSdk: () => Promise<AzureSdk> = peer.load;

/** Imports the SDK from `moduleName` (not cached: see loadAzureSdk). */
export const importAzureSdk: (moduleName: string) => Promise<AzureSdk> = peer.importFrom;

function notConfigured(reason: string): StorageError {
  return new StorageError(StorageCodes.notConfigured, reason);
}

/**
 * The credential to make a client with. The SDK tests `instanceof` its own
 * `StorageSharedKeyCredential`: one made by another copy of the SDK (a
 * second install, or `require` beside `import`) would silently sign nothing.
 * Such a key credential is made again with this copy; anything that is
 * neither a key, a token credential nor anonymous is refused, so no request
 * goes out unsigned by mistake.
 */
export function usableCredential(azure: AzureSdk, credential: unknown): object {
  if (credential === undefined) return new azure.AnonymousCredential();
  if (credential instanceof azure.StorageSharedKeyCredential || credential instanceof azure.AnonymousCredential) return credential;
  if (typeof (credential as { getToken?: unknown }).getToken === 'function') return credential as object;
  const foreign = credential as { constructor?: { name?: unknown }; accountName?: unknown; accountKey?: unknown };
  if (typeof foreign.accountName === 'string' && foreign.accountKey instanceof Uint8Array) {
    return new azure.StorageSharedKeyCredential(foreign.accountName, Buffer.from(foreign.accountKey).toString('base64'));
  }
  if (foreign.constructor?.name === 'AnonymousCredential') return new azure.AnonymousCredential();
  throw notConfigured(
    '`azure.credential` is not a credential @azure/storage-blob signs with: pass a StorageSharedKeyCredential, a TokenCredential ' +
      '(e.g. DefaultAzureCredential from @azure/identity), or { connectionString } instead (requests are never sent unsigned)',
  );
}

/** The service client `option` names (made with the SDK), or undefined when the option is a client of the app's. */
async function serviceClientOf(option: AzureOption | undefined): Promise<BlobServiceClientLike> {
  if (isBlobServiceClient(option)) return option;
  if (option === undefined) {
    const connectionString = process.env[AZURE_CONNECTION_VARIABLE];
    if (connectionString === undefined || connectionString.trim() === '') {
      throw notConfigured(
        `az:// sources need a connection: set ${AZURE_CONNECTION_VARIABLE}, or pass the \`azure\` option ` +
          '({ connectionString }, { url, credential }, or a BlobServiceClient or ContainerClient you made)',
      );
    }
    return (await loadAzureSdk()).BlobServiceClient.fromConnectionString(connectionString);
  }
  const azure = await loadAzureSdk();
  if ('connectionString' in option) return azure.BlobServiceClient.fromConnectionString(option.connectionString, option.options);
  if ('url' in option) return new azure.BlobServiceClient(option.url, usableCredential(azure, option.credential), option.options);
  throw notConfigured('`azure` must be a ContainerClient, a BlobServiceClient, { connectionString } or { url, credential }');
}

/** Each container's client, from `option` (see AzureOption), made on first use. */
export function containerClients(option: AzureOption | undefined): (container: string) => Promise<ContainerClientLike> {
  if (isContainerClient(option)) {
    return (container) =>
      container === option.containerName
        ? Promise.resolve(option)
        : Promise.reject(
            notConfigured(
              `the \`azure\` option is a ContainerClient for container "${option.containerName}", and az://${container}/ names another: ` +
                'pass a BlobServiceClient, { connectionString } or { url, credential } to read several containers',
            ),
          );
  }
  const service = connectOnce(() => serviceClientOf(option));
  const made = new Map<string, ContainerClientLike>();
  return async (container) => {
    const client = made.get(container) ?? (await service()).getContainerClient(container);
    made.set(container, client);
    return client;
  };
}

/** The edge's requests against Azure Blob Storage, through the clients `option` gives. */
export class AzureStore extends EngineStore {
  readonly scheme = 'az://';
  private readonly clientOf: (container: string) => Promise<ContainerClientLike>;

  constructor(option: AzureOption | undefined) {
    super();
    this.clientOf = containerClients(option);
  }

  async listPage(container: string, prefix: string, options: ListOptions = {}): Promise<ListPage> {
    try {
      const client = await this.clientOf(container);
      const pages = client
        .listBlobsFlat({ prefix, abortSignal: options.signal })
        .byPage({ continuationToken: options.token, maxPageSize: options.pageSize ?? AZURE_LIST_PAGE_SIZE });
      const page = (await pages.next()).value as BlobPageLike | undefined;
      const objects = (page?.segment.blobItems ?? []).map((item) => ({
        key: item.name.slice(prefix.length),
        size: item.properties.contentLength ?? 0,
        etag: etagOf(item.properties.etag),
        modifiedMs: item.properties.lastModified?.getTime() ?? 0,
      }));
      return page?.continuationToken ? { objects, next: page.continuationToken } : { objects };
    } catch (error) {
      throw azureError(error, 'list', container, prefix);
    }
  }

  async stat(container: string, key: string, signal?: AbortSignal): Promise<ObjectInfo> {
    try {
      const properties = await (await this.clientOf(container)).getBlobClient(key).getProperties({ abortSignal: signal });
      const modifiedMs = properties.lastModified?.getTime() ?? 0;
      return { key, size: properties.contentLength ?? 0, etag: etagOf(properties.etag), modifiedMs };
    } catch (error) {
      throw azureError(error, 'get', container, key);
    }
  }

  async write(container: string, key: string, body: string | Uint8Array, contentType: string, signal?: AbortSignal): Promise<void> {
    try {
      const blob = (await this.clientOf(container)).getBlockBlobClient(key);
      await blob.upload(body, Buffer.byteLength(body), { abortSignal: signal, blobHTTPHeaders: { blobContentType: contentType } });
    } catch (error) {
      throw azureError(error, 'put', container, key);
    }
  }

  /**
   * The blob (or the range asked for). The SDK throws a 304 as a RestError
   * with an empty message, and any range on an empty blob as a 416
   * InvalidRange (EngineStore reads the empty blob whole then, so an empty
   * SKILL.md is read as one from disk is).
   */
  protected async fetch(container: string, key: string, request: ReadRequest): Promise<GotObject> {
    const { range, ifNoneMatch, signal } = request;
    const blob = (await this.clientOf(container)).getBlobClient(key);
    const conditions = ifNoneMatch === undefined ? {} : { conditions: { ifNoneMatch } };
    const answer = await blob.download(range?.[0] ?? 0, range && range[1] - range[0] + 1, { abortSignal: signal, ...conditions });
    const bytes = await bodyOf(answer, `az://${container}/${key}`);
    return { bytes, etag: etagOf(answer.etag), size: sizeFromContentRange(answer.contentRange, answer.contentLength ?? bytes.length) };
  }

  protected statusOf(error: unknown): number | undefined {
    return failureOf(error).status;
  }

  protected storageError(error: unknown, operation: StorageOperation, container: string, key: string): StorageError {
    return azureError(error, operation, container, key);
  }
}

/**
 * The whole body of a download. The SDK resumes a body that ends early (with
 * If-Match on its ETag) but not one whose connection was cut; either one it
 * cannot finish, or shorter than Content-Length, is a StorageError
 * `truncated`: worth a retry, never text.
 */
async function bodyOf(answer: BlobDownloadLike, where: string): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  try {
    for await (const chunk of answer.readableStreamBody ?? []) chunks.push(chunk as Uint8Array);
  } catch (error) {
    throw new StorageError(StorageCodes.truncated, `the answer for ${where} was cut off`, { cause: error });
  }
  const bytes = new Uint8Array(Buffer.concat(chunks));
  if (answer.contentLength !== undefined && bytes.length < answer.contentLength) {
    throw new StorageError(
      StorageCodes.truncated,
      `the answer for ${where} ended early (${bytes.length} of ${answer.contentLength} bytes)`,
    );
  }
  return bytes;
}

/** What the SDK's errors carry: `statusCode`, and the error code in `code` (or, for answers with no body such as HEAD's, in `details.errorCode`). */
interface RestErrorShape {
  name?: unknown;
  code?: unknown;
  statusCode?: unknown;
  details?: { errorCode?: unknown };
}

export function failureOf(error: unknown): SdkFailure {
  if (typeof error !== 'object' || error === null) return { status: undefined, name: '' };
  const { name, code, statusCode, details } = error as RestErrorShape;
  const errorCode = typeof code === 'string' ? code : details?.errorCode;
  return {
    status: typeof statusCode === 'number' ? statusCode : undefined,
    name: typeof errorCode === 'string' ? errorCode : typeof name === 'string' && name !== 'Error' && name !== 'RestError' ? name : '',
  };
}

/** What to grant for each operation: the built-in RBAC role, or the SAS permission. */
const GRANT: Record<StorageOperation, string> = {
  list: 'the Storage Blob Data Reader role (or a SAS with list permission)',
  get: 'the Storage Blob Data Reader role (or a SAS with read permission)',
  put: 'the Storage Blob Data Contributor role (or a SAS with write permission)',
};

/**
 * The StorageError for an SDK error met doing `operation` on `container`
 * (`key`: the blob or prefix). Network failures, 5xx answers (503 ServerBusy,
 * 500 OperationTimedOut) and anything unknown are `unavailable`, worth a
 * retry; the rest say what to fix.
 */
export function azureError(error: unknown, operation: StorageOperation, container: string, key: string): StorageError {
  if (error instanceof StorageError) return error;
  const failure = failureOf(error);
  const { status, name } = failure;
  const where = `az://${container}/${key}`;
  const options = { cause: error };
  if (name === 'ContainerNotFound') {
    const reason = `container "${container}" does not exist (check its name, and the account in the connection string or URL)`;
    return new StorageError(StorageCodes.noBucket, reason, options);
  }
  if (name === 'BlobNotFound' || status === 404) return missingObject(where, error);
  if (name === 'AuthenticationFailed') {
    const fix = "check the account key or connection string, the SAS token's signature and expiry, and the clock";
    return new StorageError('EACCES', `Azure refused the credentials for ${where} (AuthenticationFailed): ${fix}`, options);
  }
  if (status === 403) {
    const fix = `grant ${GRANT[operation]} on container "${container}"; a wrong account key or a storage firewall is also answered this way`;
    return new StorageError('EACCES', `access denied to ${where}${name ? ` (${name})` : ''}: ${fix}`, options);
  }
  if (status === 412) return new StorageError(StorageCodes.changed, `${where} changed while it was read`, options);
  return unavailable(where, failure, error);
}

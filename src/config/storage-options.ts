/**
 * The options for skills in object storage: `s3://bucket/prefix` and
 * `az://container/prefix` entries in `directories`, the `s3` client or config
 * and the `azure` connection, `refresh` and `storageWait`. Checked once, into
 * data: the places, the `s3` and `azure` options as given, the published
 * index's URL. Nothing is built here: source/storage.ts makes the bucket
 * store and the filesystem that routes object paths to it.
 */
import { AZURE_SCHEME, containerOf, parseObjectUrl, S3_SCHEME, splitObjectPath, type BucketPlace } from '../base/object-url.js';
import { AZURE_CONNECTION_VARIABLE, isBlobServiceClient, isContainerClient, type AzureOption } from './azure-option.js';
import { DEFAULTS } from './defaults.js';
import { describeValue, failOption } from './errors.js';

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

export function isS3Client(option: S3Option | undefined): option is S3ClientLike {
  return typeof (option as { send?: unknown } | undefined)?.send === 'function';
}

export interface StorageOptions {
  /**
   * The S3 client for `s3://` sources: an `S3Client` you made, or the
   * `S3ClientConfig` to make one (`endpoint`, `region`, `credentials`,
   * `forcePathStyle`). Without it, the SDK's default credential chain and
   * environment (`AWS_REGION`, `AWS_ENDPOINT_URL_S3`). With a custom
   * endpoint, path-style addressing. Needs `@aws-sdk/client-s3` installed.
   * @default undefined (the SDK's defaults)
   */
  s3?: S3Option;
  /**
   * The connection for `az://container/prefix` sources (Azure Blob Storage):
   * a `ContainerClient` or `BlobServiceClient` you made, `{ connectionString }`,
   * or `{ url, credential }` (a `StorageSharedKeyCredential` or a
   * `TokenCredential`; or a SAS in the URL); `options` in the last two go to
   * the client. Needs `@azure/storage-blob` installed, unless you pass a client.
   * @default undefined (the connection string in AZURE_STORAGE_CONNECTION_STRING)
   */
  azure?: AzureOption;
  /**
   * How often each process checks its `s3://` sources, in ms: a listing
   * that re-reads only the SKILL.md objects whose ETag changed, or, with an
   * index published to a bucket, one conditional GET of it. `0` never checks.
   * @default 60000 (1 minute; see docs/fleet.md for the cost per process per hour)
   */
  refresh?: number;
  /**
   * Longest the first request waits on storage, in ms: a bucket's listing and
   * the SKILL.md reads after it (or the published index's GET). Past it the
   * request answers with the other sources, and the bucket's skills come with
   * a later request once read.
   * @default 3000 (docs/fleet.md, How long a request waits)
   */
  storageWait?: number;
}

/** The `s3://` sources, as data: what source/storage.ts builds the bucket store from. */
export interface BucketSettings {
  /** The `s3://` places in `directories`, each once. */
  readonly places: readonly BucketPlace[];
  /** The `s3` option as given (a client is kept as it is; a config is copied). */
  readonly s3: S3Option | undefined;
  /** The `azure` option as given (a client is kept as it is; the rest is copied); undefined: AZURE_STORAGE_CONNECTION_STRING. */
  readonly azure: AzureOption | undefined;
  /** The published index's `s3://bucket/key` (`index: 's3://...'`), if any. */
  readonly index: string | undefined;
}

export interface ResolvedStorage {
  refresh: number;
  storageWait: number;
  /** undefined: no `s3://` source. */
  buckets: BucketSettings | undefined;
}

/** The place an `s3://` or `az://` entry names (`option`: where it was given), or a SkillsConfigError that says how to write it. */
export function checkS3Place(option: string, url: string): BucketPlace {
  const place = parseObjectUrl(url.trim());
  const { example } = containerOf(url.trim());
  const scheme = example.slice(0, example.indexOf('://') + 3);
  if ('problem' in place)
    failOption(option, `(${JSON.stringify(url)}) is not a usable ${scheme} URL: ${place.problem}.`, `Write it as '${example}'.`);
  return place;
}

function checkWait(name: 'refresh' | 'storageWait', value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    failOption(name, `must be a whole number of milliseconds (0 or more), got ${describeValue(value)}.`, `Default: ${fallback}.`);
  }
  return value;
}

/** The `azure` option as given, or a SkillsConfigError; `containers`: those the az:// places and index name (none: it must not be set). */
function checkAzure(value: unknown, containers: readonly string[]): AzureOption | undefined {
  if (value === undefined) {
    if (containers.length > 0 && !process.env[AZURE_CONNECTION_VARIABLE]?.trim()) {
      failOption(
        'azure',
        `is not set and neither is ${AZURE_CONNECTION_VARIABLE}: az:// sources need a connection.`,
        `set ${AZURE_CONNECTION_VARIABLE}, or pass the \`azure\` option ` +
          '({ connectionString }, { url, credential }, or a BlobServiceClient or ContainerClient).',
      );
    }
    return undefined;
  }
  if (containers.length === 0) {
    failOption(
      'azure',
      'is set, but no source is in an Azure container:',
      "add an 'az://container/prefix/' entry to `directories`, or leave `azure` out.",
    );
  }
  if (isContainerClient(value)) return checkContainerClient(value, containers);
  if (isBlobServiceClient(value)) return value;
  const given = (typeof value === 'object' && value !== null ? value : {}) as {
    connectionString?: unknown;
    url?: unknown;
    credential?: unknown;
  };
  if (typeof given.connectionString === 'string') return { ...given, connectionString: given.connectionString };
  if (typeof given.url === 'string') {
    if (given.credential !== undefined && (typeof given.credential !== 'object' || given.credential === null)) {
      failOption(
        'azure.credential',
        'is not a credential @azure/storage-blob signs with:',
        'pass a StorageSharedKeyCredential, a TokenCredential (e.g. DefaultAzureCredential from @azure/identity), or a SAS in the URL.',
      );
    }
    return { ...given, url: given.url };
  }
  return failOption(
    'azure',
    'must be a ContainerClient, a BlobServiceClient, { connectionString } or { url, credential },',
    'e.g. azure: { connectionString: process.env.SKILLS_STORAGE } or azure: new BlobServiceClient(url, credential).',
  );
}

/** A ContainerClient reads its own container only: every az:// source must be in it. */
function checkContainerClient<T extends { containerName: string }>(client: T, containers: readonly string[]): T {
  const other = containers.find((name) => name !== client.containerName);
  if (other !== undefined) {
    failOption(
      'azure',
      `is a ContainerClient for container "${client.containerName}", and az://${other}/ names another:`,
      'pass a BlobServiceClient, { connectionString } or { url, credential } to read several containers.',
    );
  }
  return client;
}

function checkS3(value: unknown): S3Option | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    failOption('s3', 'must be an S3Client or an S3ClientConfig object,', "e.g. s3: { region: 'eu-west-1' } or s3: new S3Client({...}).");
  }
  return isS3Client(value as S3Option) ? (value as S3Option) : { ...(value as object) };
}

/** `places`: the resolved `s3://` and `az://` roots in `directories`; `indexUrl`: a published index. Duplicates are one place. */
export function checkStorage(options: StorageOptions, places: readonly BucketPlace[], indexUrl?: string): ResolvedStorage {
  const urls = [...places.map((place) => place.root), ...(indexUrl === undefined ? [] : [indexUrl])];
  const s3 = checkS3(options.s3);
  const azure = checkAzure(
    options.azure,
    urls.filter((url) => url.startsWith(AZURE_SCHEME)).map((url) => splitObjectPath(url).bucket),
  );
  const refresh = checkWait('refresh', options.refresh, DEFAULTS.refresh);
  const storageWait = checkWait('storageWait', options.storageWait, DEFAULTS.storageWait);
  if (s3 !== undefined && !urls.some((url) => url.startsWith(S3_SCHEME)))
    failOption('s3', 'is set, but no source is in a bucket:', "add an 's3://bucket/prefix/' entry to `directories`, or leave `s3` out.");
  if (urls.length === 0) return { refresh, storageWait, buckets: undefined };
  const unique = [...new Map(places.map((place) => [place.root, place])).values()];
  return { refresh, storageWait, buckets: { places: unique, s3, azure, index: indexUrl } };
}

/** A published index's `s3://bucket/key` or `az://container/key`, or a SkillsConfigError that says how to write it. */
export function checkS3Index(url: string): string {
  const place = checkS3Place('index', url);
  if (place.prefix === '' || url.trim().endsWith('/')) {
    failOption(
      'index',
      `(${JSON.stringify(url)}) names a folder, not an object.`,
      `Give the key \`sisu-skills index -o\` published, e.g. '${containerOf(url.trim()).example}skills.index'.`,
    );
  }
  return place.root;
}

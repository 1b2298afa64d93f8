/**
 * The storage engines the edge's tests run against, each on a real server:
 * S3 on s3rver, Azure Blob on Azurite. A test written once against
 * `TestEngine` runs on both (`describe.each(ENGINES)`).
 */
import type { SkillsOptions } from '../../../src/index.js';
import { buildPrebuiltIndex, serializePrebuiltIndex } from '../prebuilt.js';
import type { StorageConnections } from '../../../src/storage/engines.js';
import { makeContainer } from '../azure/container.js';
import { AZURITE_ACCOUNT, AZURITE_KEY, azuriteConnectionString, sharedAzurite } from '../azure/server.js';
import { makeBucket, s3Config } from '../s3/bucket.js';
import { S3RVER_CREDENTIALS, sharedS3rver } from '../s3/server.js';
import { azureDialect, S3_DIALECT, type Dialect } from './proxy.js';

/** A container (bucket) of the engine's, made for one test file. */
export interface EngineContainer {
  name: string;
  /** The server's own address (no proxy): what a test's writes go to. */
  endpoint: string;
  put(key: string, body: string | Uint8Array): Promise<void>;
  remove(key: string): Promise<void>;
  upload(dir: string, prefix: string): Promise<number>;
}

export interface TestEngine {
  /** How test names call it. */
  name: string;
  scheme: 's3://' | 'az://';
  /** The server, started on first use in this worker. */
  server(): Promise<{ port: number; endpoint: string }>;
  dialect: Dialect;
  makeContainer(label: string): Promise<EngineContainer>;
  /**
   * How the engine reaches `endpoint`: `attempts` tries per request (the SDK's retries), backing off
   * from a few ms so that tests of throttling are quick.
   */
  connections(endpoint: string, attempts?: number): StorageConnections;
  /** The code an injected 403 carries; Azure's are also tried as AuthenticationFailed. */
  deniedCodes: readonly string[];
  /** What each throttling answer is called in the engine's terms. */
  throttling: readonly { status: number; code: string }[];
  /** The middleware's options that reach `endpoint` (`s3` or `azure`), `attempts` tries per request. */
  options(endpoint: string, attempts?: number): Pick<SkillsOptions, 's3' | 'azure'>;
  /** The environment the CLI reads its connection from. */
  cliEnvironment(endpoint: string): Record<string, string>;
  /** What a denied `list` or `get` of `key` in `container` says to grant. */
  grant(operation: 'list' | 'get', container: string, key: string): string;
  /** How a missing container is named: `bucket "x"`, `container "x"`. */
  containerWord: string;
  /** A piece of the credentials, which no message may show. */
  secret: string;
}

export const S3_ENGINE: TestEngine = {
  name: 'S3 (s3rver)',
  scheme: 's3://',
  server: sharedS3rver,
  dialect: S3_DIALECT,
  makeContainer: makeBucket,
  connections: (endpoint, attempts = 4) => ({ s3: s3Config(endpoint, { maxAttempts: attempts }) }),
  deniedCodes: ['AccessDenied'],
  options: (endpoint, attempts) => ({ s3: s3Config(endpoint, attempts === undefined ? {} : { maxAttempts: attempts }) }),
  cliEnvironment: (endpoint) => ({
    AWS_ENDPOINT_URL_S3: endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
  }),
  grant: (operation, container, key) =>
    operation === 'list' ? `grant s3:ListBucket on arn:aws:s3:::${container}` : `grant s3:GetObject on arn:aws:s3:::${container}/${key}`,
  containerWord: 'bucket',
  secret: S3RVER_CREDENTIALS.secretAccessKey,
  throttling: [
    { status: 503, code: 'SlowDown' },
    { status: 429, code: 'TooManyRequests' },
  ],
};

/**
 * Azurite through `endpoint`, with the SDK's retries backed off from 20 ms (its default is 4 s): the S3 SDK's
 * start at 100 ms, so the same fault tests take about as long on both.
 */
function azureOptions(endpoint: string, attempts = 4) {
  const retryOptions = { maxTries: attempts, retryDelayInMs: 20, maxRetryDelayInMs: 500 };
  return { azure: { connectionString: azuriteConnectionString(endpoint), options: { retryOptions } } };
}

export const AZURE_ENGINE: TestEngine = {
  name: 'Azure Blob (Azurite)',
  scheme: 'az://',
  server: sharedAzurite,
  dialect: azureDialect(AZURITE_ACCOUNT),
  makeContainer,
  connections: (endpoint, attempts = 4) => azureOptions(endpoint, attempts),
  options: (endpoint, attempts) => azureOptions(endpoint, attempts),
  cliEnvironment: (endpoint) => ({ AZURE_STORAGE_CONNECTION_STRING: azuriteConnectionString(endpoint) }),
  grant: (operation, container) =>
    `grant the Storage Blob Data Reader role (or a SAS with ${operation === 'list' ? 'list' : 'read'} permission) on container "${container}"`,
  containerWord: 'container',
  secret: AZURITE_KEY.slice(0, 12),
  deniedCodes: ['AuthorizationFailure', 'AuthenticationFailed', 'AuthorizationPermissionMismatch'],
  throttling: [
    { status: 503, code: 'ServerBusy' },
    { status: 500, code: 'OperationTimedOut' },
  ],
};

export const ENGINES: readonly TestEngine[] = [S3_ENGINE, AZURE_ENGINE];

/**
 * Build a prebuilt index over `directories` (straight to the server) and put it at `key` in `container`, dated at the
 * epoch so the same skills give the same bytes. `mustHold`: skill names the build must hold, or it throws (the
 * test's own writes did not reach the listing).
 */
export async function publishIndexTo(
  engine: TestEngine,
  container: EngineContainer,
  key: string,
  directories: string[],
  mustHold: string[] = [],
): Promise<void> {
  const options = { directories, ...engine.options(container.endpoint) };
  const document = await buildPrebuiltIndex(options, `${engine.scheme}${container.name}/${key}`, () => new Date(0));
  const lacking = mustHold.filter((name) => !document.skills.some((skill) => skill.metadata.name === name));
  if (lacking.length > 0) throw new Error(`publishIndexTo: the build over ${directories.join(', ')} lacks ${lacking.join(', ')}`);
  await container.put(key, serializePrebuiltIndex(document));
}

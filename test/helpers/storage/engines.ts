/**
 * The storage engines the edge's tests run against, each on a real server:
 * S3 on s3rver, Azure Blob on Azurite. A test written once against
 * `TestEngine` runs on both (`describe.each(ENGINES)`).
 */
import type { StorageConnections } from '../../../src/storage/engines.js';
import { makeContainer } from '../azure/container.js';
import { AZURITE_ACCOUNT, azuriteConnectionString, sharedAzurite } from '../azure/server.js';
import { makeBucket, s3Config } from '../s3/bucket.js';
import { sharedS3rver } from '../s3/server.js';
import { azureDialect, S3_DIALECT, type Dialect } from './proxy.js';

/** A container (bucket) of the engine's, made for one test file. */
export interface EngineContainer {
  name: string;
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
}

export const S3_ENGINE: TestEngine = {
  name: 'S3 (s3rver)',
  scheme: 's3://',
  server: sharedS3rver,
  dialect: S3_DIALECT,
  makeContainer: makeBucket,
  connections: (endpoint, attempts = 4) => ({ s3: s3Config(endpoint, { maxAttempts: attempts }) }),
  deniedCodes: ['AccessDenied'],
  throttling: [
    { status: 503, code: 'SlowDown' },
    { status: 429, code: 'TooManyRequests' },
  ],
};

export const AZURE_ENGINE: TestEngine = {
  name: 'Azure Blob (Azurite)',
  scheme: 'az://',
  server: sharedAzurite,
  dialect: azureDialect(AZURITE_ACCOUNT),
  makeContainer,
  connections: (endpoint, attempts = 4) => ({
    azure: {
      connectionString: azuriteConnectionString(endpoint),
      options: { retryOptions: { maxTries: attempts, retryDelayInMs: 20, maxRetryDelayInMs: 100 } },
    },
  }),
  deniedCodes: ['AuthorizationFailure', 'AuthenticationFailed', 'AuthorizationPermissionMismatch'],
  throttling: [
    { status: 503, code: 'ServerBusy' },
    { status: 500, code: 'OperationTimedOut' },
  ],
};

export const ENGINES: readonly TestEngine[] = [S3_ENGINE, AZURE_ENGINE];

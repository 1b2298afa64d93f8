/**
 * The Azure engine's connection: each form of the `azure` option reaches
 * Azurite, the connection string comes from AZURE_STORAGE_CONNECTION_STRING
 * when there is no option, a credential made by another copy of the SDK is
 * signed with (or refused), never sent unsigned, and the SDK is an optional
 * peer. The answers as read here are the real SDK's (checked by the compiler).
 */
import { createRequire } from 'node:module';
import {
  AnonymousCredential,
  BlobServiceClient,
  ContainerClient,
  StorageSharedKeyCredential,
  type BlobDownloadResponseParsed,
  type BlobGetPropertiesResponse,
  type ContainerListBlobFlatSegmentResponse,
} from '@azure/storage-blob';
import type * as AzureBlob from '@azure/storage-blob';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import {
  AZURE_CONNECTION_VARIABLE,
  type AzureOption,
  type BlobDownloadLike,
  type BlobPageLike,
  type BlobPropertiesLike,
  type BlobServiceClientLike,
  type ContainerClientLike,
} from '../src/config/azure-option.js';
import { AzureStore, azureError, importAzureSdk, loadAzureSdk, usableCredential, type AzureSdk } from '../src/storage/azure-client.js';
import { StorageError } from '../src/storage/storage-error.js';
import { makeContainer, type TestContainer } from './helpers/azure/container.js';
import { AZURITE_ACCOUNT, AZURITE_KEY, azuriteConnectionString, sharedAzurite } from './helpers/azure/server.js';
import { azureDialect, startProxy, type StorageProxy } from './helpers/storage/proxy.js';

let container: TestContainer;
let proxy: StorageProxy;
const accountUrl = () => `${proxy.endpoint}/${AZURITE_ACCOUNT}`;
const FAST = { retryOptions: { maxTries: 1 } };

beforeAll(async () => {
  container = await makeContainer('client');
  proxy = await startProxy(await sharedAzurite(), azureDialect(AZURITE_ACCOUNT));
  await container.put('lib/a/SKILL.md', 'hello');
});
afterAll(() => proxy.close());

/** What `option` reads of lib/a/SKILL.md, or the StorageError code it fails with. */
async function readWith(option: AzureOption | undefined, name = container.name): Promise<string> {
  return new AzureStore(option).read(name, 'lib/a/SKILL.md').then(
    (got) => new TextDecoder().decode(got.bytes),
    (error: unknown) => (error instanceof StorageError ? `${error.code}: ${error.reason}` : String(error)),
  );
}

/** `work` with AZURE_STORAGE_CONNECTION_STRING set to `value` (or unset), put back after. */
async function withVariable<T>(value: string | undefined, work: () => Promise<T>): Promise<T> {
  const saved = process.env[AZURE_CONNECTION_VARIABLE];
  if (value === undefined) delete process.env[AZURE_CONNECTION_VARIABLE];
  else process.env[AZURE_CONNECTION_VARIABLE] = value;
  try {
    return await work();
  } finally {
    if (saved === undefined) delete process.env[AZURE_CONNECTION_VARIABLE];
    else process.env[AZURE_CONNECTION_VARIABLE] = saved;
  }
}

describe('the azure option', () => {
  it('reads through each form: a ContainerClient, a BlobServiceClient, { connectionString }, { url, credential }', async () => {
    const service = BlobServiceClient.fromConnectionString(azuriteConnectionString(proxy.endpoint), FAST);
    expect(await readWith(service.getContainerClient(container.name))).toBe('hello');
    expect(await readWith(service)).toBe('hello');
    expect(await readWith({ connectionString: azuriteConnectionString(proxy.endpoint), options: FAST })).toBe('hello');
    const credential = new StorageSharedKeyCredential(AZURITE_ACCOUNT, AZURITE_KEY);
    expect(await readWith({ url: accountUrl(), credential, options: FAST })).toBe('hello');
  });

  it('a ContainerClient reads its own container only, and says what to pass for others', async () => {
    const own = new ContainerClient(`${accountUrl()}/${container.name}`, new StorageSharedKeyCredential(AZURITE_ACCOUNT, AZURITE_KEY));
    proxy.reset();
    expect(await readWith(own, 'another-container')).toMatch(
      /^STORAGE_NOT_CONFIGURED: .*ContainerClient for container "client-.*", and az:\/\/another-container\/ names another: pass a BlobServiceClient/,
    );
    expect(proxy.count()).toBe(0);
  });

  it('without the option, connects with AZURE_STORAGE_CONNECTION_STRING; without either, says what to set', async () => {
    expect(await withVariable(azuriteConnectionString(proxy.endpoint), () => readWith(undefined))).toBe('hello');
    for (const value of [undefined, '  ']) {
      expect(await withVariable(value, () => readWith(undefined))).toMatch(
        /^STORAGE_NOT_CONFIGURED: az:\/\/ sources need a connection: set AZURE_STORAGE_CONNECTION_STRING, or pass the `azure` option/,
      );
    }
  });
});

describe('credentials across copies of the SDK', () => {
  // The SDK's CommonJS build, beside the ES module build the package imports: two copies, as a bundled
  // app or a second install gives, whose classes fail each other's `instanceof`.
  const cjs = createRequire(import.meta.url)('@azure/storage-blob') as typeof AzureBlob;

  it('a key credential made by another copy is signed with, not sent anonymous (which Azurite would refuse)', async () => {
    const foreign = new cjs.StorageSharedKeyCredential(AZURITE_ACCOUNT, AZURITE_KEY);
    expect(foreign instanceof StorageSharedKeyCredential).toBe(false);
    // What the SDK does with it when given it as it is: no signature, refused.
    const unsigned = new BlobServiceClient(accountUrl(), foreign, FAST).getContainerClient(container.name);
    await expect(unsigned.getBlobClient('lib/a/SKILL.md').download()).rejects.toMatchObject({ statusCode: 403 });
    expect(await readWith({ url: accountUrl(), credential: foreign, options: FAST })).toBe('hello');
  });

  it('takes token and anonymous credentials as they are; refuses anything else before any request', async () => {
    const azure = await loadAzureSdk();
    const token = { getToken: () => Promise.resolve({ token: 't', expiresOnTimestamp: Date.now() + 60_000 }) };
    expect(usableCredential(azure, token)).toBe(token);
    const anonymous = new AnonymousCredential();
    expect(usableCredential(azure, anonymous)).toBe(anonymous);
    expect(usableCredential(azure, new cjs.AnonymousCredential())).toBeInstanceOf(AnonymousCredential);
    expect(usableCredential(azure, undefined)).toBeInstanceOf(AnonymousCredential);
    proxy.reset();
    for (const credential of [{ accountName: AZURITE_ACCOUNT, accountKey: AZURITE_KEY }, 'key', {}]) {
      expect(await readWith({ url: accountUrl(), credential, options: FAST })).toMatch(
        /^STORAGE_NOT_CONFIGURED: `azure.credential` is not a credential @azure\/storage-blob signs with.*never sent unsigned/,
      );
    }
    expect(proxy.count()).toBe(0);
  });
});

describe('Azure errors in the package terms', () => {
  it('each code says what to fix; unknown failures are worth a retry', () => {
    const rest = (statusCode: number | undefined, code?: string, details?: object) =>
      Object.assign(new Error(''), { name: 'RestError', statusCode, code, details });
    expect(azureError(rest(404, undefined, { errorCode: 'ContainerNotFound' }), 'get', 'c', 'k').code).toBe('NO_SUCH_BUCKET');
    expect(azureError(rest(404), 'get', 'c', 'k').code).toBe('ENOENT');
    expect(azureError(rest(403), 'list', 'c', 'p/').reason).toBe(
      'access denied to az://c/p/: grant the Storage Blob Data Reader role (or a SAS with list permission) on container "c"; ' +
        'a wrong account key or a storage firewall is also answered this way',
    );
    expect(azureError(rest(412, 'ConditionNotMet'), 'get', 'c', 'k').code).toBe('OBJECT_CHANGED');
    const refused = azureError(rest(undefined, 'ECONNREFUSED'), 'list', 'c', '');
    expect(refused.reason).toBe('storage unavailable for az://c/: no answer (ECONNREFUSED)');
    expect(azureError('plain', 'get', 'c', 'k').reason).toBe('storage unavailable for az://c/k: no answer (plain)');
    expect(azureError(Object.assign(new Error('x'), { name: 'AbortError' }), 'get', 'c', 'k').reason).toContain('no answer (AbortError)');
    const own = new StorageError('EFBIG', 'too big');
    expect(azureError(own, 'get', 'c', 'k')).toBe(own);
  });
});

describe('the Azure SDK, an optional peer', () => {
  it('is loaded by name, and its real clients and answers have every part the package writes out (a compile-time check)', async () => {
    const real = await import('@azure/storage-blob');
    const loaded = await loadAzureSdk();
    expect(loaded).toBe(await importAzureSdk('@azure/storage-blob'));
    for (const part of ['BlobServiceClient', 'StorageSharedKeyCredential', 'AnonymousCredential'] as const) {
      expect(loaded[part], part).toBe(real[part]);
    }
    // The constructors take the SDK's own credential types, where AzureSdk takes what usableCredential returns.
    expectTypeOf(real.BlobServiceClient.fromConnectionString).returns.toExtend<BlobServiceClientLike>();
    expectTypeOf<InstanceType<typeof real.BlobServiceClient>>().toExtend<BlobServiceClientLike>();
    expectTypeOf<typeof real.StorageSharedKeyCredential>().toExtend<AzureSdk['StorageSharedKeyCredential']>();
    expectTypeOf<typeof real.AnonymousCredential>().toExtend<AzureSdk['AnonymousCredential']>();
    expectTypeOf<ContainerClient>().toExtend<ContainerClientLike>();
    expectTypeOf<BlobServiceClient>().toExtend<BlobServiceClientLike>();
    expectTypeOf<ContainerListBlobFlatSegmentResponse>().toExtend<BlobPageLike>();
    expectTypeOf<BlobDownloadResponseParsed>().toExtend<BlobDownloadLike>();
    expectTypeOf<BlobGetPropertiesResponse>().toExtend<BlobPropertiesLike>();
  });

  it('missing, fails with a StorageError that says what to install', async () => {
    const missing = importAzureSdk('@azure/storage-blob-not-installed');
    await expect(missing).rejects.toMatchObject({
      code: 'AZURE_SDK_MISSING',
      message: expect.stringContaining('npm install @azure/storage-blob'),
    });
  });
});

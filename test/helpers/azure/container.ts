/**
 * Containers for the tests: a fresh container on the shared Azurite, filled
 * from a local tree or from keys and text, as test/helpers/s3/bucket.ts does
 * with buckets on s3rver.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BlobServiceClient, type ContainerClient } from '@azure/storage-blob';
import { filesUnder, uniqueName } from '../storage/files.js';
import { azuriteConnectionString, sharedAzurite } from './server.js';

export interface TestContainer {
  name: string;
  /** A client straight to Azurite (no proxy): for putting and deleting blobs. */
  client: ContainerClient;
  /** Azurite's own address. */
  endpoint: string;
  put(key: string, body: string | Uint8Array): Promise<void>;
  remove(key: string): Promise<void>;
  /** Upload every file under `dir` to `prefix` (keys joined with `/`). */
  upload(dir: string, prefix: string): Promise<number>;
}

/** A new, empty container named after `label` (unique in this worker). */
export async function makeContainer(label: string): Promise<TestContainer> {
  const { endpoint } = await sharedAzurite();
  const name = uniqueName(label);
  const client = BlobServiceClient.fromConnectionString(azuriteConnectionString(endpoint)).getContainerClient(name);
  await client.create();
  const put = async (key: string, body: string | Uint8Array): Promise<void> => {
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    await client.getBlockBlobClient(key).upload(bytes, bytes.length);
  };
  return {
    name,
    client,
    endpoint,
    put,
    remove: async (key) => {
      await client.deleteBlob(key);
    },
    upload: async (dir, prefix) => {
      const files = await filesUnder(dir);
      await Promise.all(files.map(async (file) => put(prefix + file, await readFile(join(dir, file)))));
      return files.length;
    },
  };
}

/**
 * Containers for the tests: a fresh container on the shared Azurite, filled
 * from a local tree or from keys and text, as test/helpers/s3/bucket.ts does
 * with buckets on s3rver.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BlobServiceClient, type ContainerClient } from '@azure/storage-blob';
import { azuriteConnectionString, sharedAzurite } from './server.js';

let made = 0;

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

/** A new, empty container named after `label` (unique in this worker; Azure allows no `--` in a name). */
export async function makeContainer(label: string): Promise<TestContainer> {
  const { endpoint } = await sharedAzurite();
  const name = `${label}-${process.pid}-${++made}`
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-')
    .replace(/-+/g, '-')
    .slice(0, 63);
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

async function filesUnder(dir: string, base = ''): Promise<string[]> {
  const entries = await readdir(join(dir, base), { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) => {
      const rel = base === '' ? entry.name : `${base}/${entry.name}`;
      return entry.isDirectory() ? filesUnder(dir, rel) : Promise.resolve(entry.isFile() ? [rel] : []);
    }),
  );
  return nested.flat();
}

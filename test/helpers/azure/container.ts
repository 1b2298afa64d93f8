/**
 * Containers for the tests: a fresh container on the shared Azurite, filled
 * from a local tree or from keys and text, as test/helpers/s3/bucket.ts does
 * with buckets on s3rver.
 */
import { BlobServiceClient, type ContainerClient } from '@azure/storage-blob';
import { type TestPlace, uniqueName, withUpload } from '../storage/files.js';
import { azuriteConnectionString, sharedAzurite } from './server.js';

export type TestContainer = TestPlace<ContainerClient>;

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
  const remove = async (key: string): Promise<void> => {
    await client.deleteBlob(key);
  };
  return withUpload({ name, client, endpoint, put, remove });
}

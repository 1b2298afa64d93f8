/**
 * Buckets for the tests: a fresh bucket on the shared s3rver, filled from a
 * local tree or from a map of keys to text, and the `s3` option that reaches
 * it (directly or through a proxy).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CreateBucketCommand, DeleteObjectCommand, PutObjectCommand, S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { buildPrebuiltIndex, serializePrebuiltIndex } from '../prebuilt.js';
import { S3RVER_CREDENTIALS, sharedS3rver } from './server.js';

let made = 0;

/** The SDK's client config for `endpoint` (s3rver or a proxy in front of it). */
export function s3Config(endpoint: string, extra: Partial<S3ClientConfig> = {}): S3ClientConfig {
  return { endpoint, region: 'us-east-1', credentials: S3RVER_CREDENTIALS, ...extra };
}

export interface TestBucket {
  name: string;
  /** A client straight to s3rver (no proxy): for putting and deleting objects. */
  client: S3Client;
  endpoint: string;
  put(key: string, body: string | Uint8Array): Promise<void>;
  remove(key: string): Promise<void>;
  /** Upload every file under `dir` to `prefix` (keys joined with `/`). */
  upload(dir: string, prefix: string): Promise<number>;
}

/** A new, empty bucket named after `label` (unique in this worker). */
export async function makeBucket(label: string): Promise<TestBucket> {
  const { endpoint } = await sharedS3rver();
  const name = `${label}-${process.pid}-${++made}`
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-')
    .slice(0, 63);
  const client = new S3Client({ ...s3Config(endpoint), forcePathStyle: true });
  await client.send(new CreateBucketCommand({ Bucket: name }));
  const put = async (key: string, body: string | Uint8Array): Promise<void> => {
    await client.send(new PutObjectCommand({ Bucket: name, Key: key, Body: body }));
  };
  return {
    name,
    client,
    endpoint,
    put,
    remove: async (key) => {
      await client.send(new DeleteObjectCommand({ Bucket: name, Key: key }));
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

/**
 * Build a prebuilt index over `directories` (straight to s3rver) and put it at `key` in `bucket`, dated at the epoch
 * so the same skills give the same bytes (and ETag). `mustHold`: skill names the build must hold, or it throws (the
 * test's own PUTs did not reach the listing: s3rver reads after writes only as patched in s3rver-consistency.mjs).
 */
export async function publishIndex(bucket: TestBucket, key: string, directories: string[], mustHold: string[] = []): Promise<void> {
  const options = { directories, s3: s3Config(bucket.endpoint) };
  const document = await buildPrebuiltIndex(options, `s3://${bucket.name}/${key}`, () => new Date(0));
  const lacking = mustHold.filter((name) => !document.skills.some((skill) => skill.metadata.name === name));
  if (lacking.length > 0) throw new Error(`publishIndex: the build over ${directories.join(', ')} lacks ${lacking.join(', ')}`);
  await bucket.put(key, serializePrebuiltIndex(document));
}

/**
 * Buckets for the tests: a fresh bucket on the shared s3rver, filled from a
 * local tree or from a map of keys to text, and the `s3` option that reaches
 * it (directly or through a proxy).
 */
import { CreateBucketCommand, DeleteObjectCommand, PutObjectCommand, S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { type TestPlace, uniqueName, withUpload } from '../storage/files.js';
import { S3RVER_CREDENTIALS, sharedS3rver } from './server.js';

/** The SDK's client config for `endpoint` (s3rver or a proxy in front of it). */
export function s3Config(endpoint: string, extra: Partial<S3ClientConfig> = {}): S3ClientConfig {
  return { endpoint, region: 'us-east-1', credentials: S3RVER_CREDENTIALS, ...extra };
}

export type TestBucket = TestPlace<S3Client>;

/** A new, empty bucket named after `label` (unique in this worker). */
export async function makeBucket(label: string): Promise<TestBucket> {
  const { endpoint } = await sharedS3rver();
  const name = uniqueName(label);
  const client = new S3Client({ ...s3Config(endpoint), forcePathStyle: true });
  await client.send(new CreateBucketCommand({ Bucket: name }));
  const put = async (key: string, body: string | Uint8Array): Promise<void> => {
    await client.send(new PutObjectCommand({ Bucket: name, Key: key, Body: body }));
  };
  const remove = async (key: string): Promise<void> => {
    await client.send(new DeleteObjectCommand({ Bucket: name, Key: key }));
  };
  return withUpload({ name, client, endpoint, put, remove });
}

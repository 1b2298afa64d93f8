import { createHash } from 'node:crypto';
import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeBucket, s3Config, type TestBucket } from './helpers/s3/bucket.js';
import { startProxy, type S3Proxy } from './helpers/storage/proxy.js';
import { sharedS3rver } from './helpers/s3/server.js';

describe('the S3 test harness', () => {
  let bucket: TestBucket;
  let proxy: S3Proxy;
  let client: S3Client;
  beforeAll(async () => {
    bucket = await makeBucket('harness');
    proxy = await startProxy(await sharedS3rver());
    client = new S3Client({ ...s3Config(proxy.endpoint), forcePathStyle: true, maxAttempts: 1 });
  });
  afterAll(() => proxy.close());

  it('counts listings and ranged GETs through the proxy', async () => {
    await bucket.put('a/SKILL.md', 'hello world');
    const list = await client.send(new ListObjectsV2Command({ Bucket: bucket.name, Prefix: 'a/' }));
    expect(list.Contents?.map((o) => o.Key)).toEqual(['a/SKILL.md']);
    const got = await client.send(new GetObjectCommand({ Bucket: bucket.name, Key: 'a/SKILL.md', Range: 'bytes=0-4' }));
    expect(await got.Body?.transformToString()).toBe('hello');
    expect(proxy.count('list')).toBe(1);
    expect(proxy.log.find((r) => r.op === 'get')?.range).toBe('bytes=0-4');
  });

  it('injects throttling, outages and truncated bodies', async () => {
    proxy.faults.fail = { count: 1, status: 503 };
    await expect(client.send(new ListObjectsV2Command({ Bucket: bucket.name }))).rejects.toMatchObject({ name: 'SlowDown' });
    proxy.faults.down = true;
    await expect(client.send(new ListObjectsV2Command({ Bucket: bucket.name }))).rejects.toThrow();
    proxy.faults.down = false;
    proxy.faults.truncate = 1;
    const got = await client.send(new GetObjectCommand({ Bucket: bucket.name, Key: 'a/SKILL.md' }));
    await expect(got.Body?.transformToString()).rejects.toThrow();
  });

  it('reads after writes as S3 does: a GET racing PUTs of its key answers a body whose MD5 is its ETag, a listing after a DELETE lacks the key', async () => {
    const direct = new S3Client({ ...s3Config(bucket.endpoint), forcePathStyle: true, maxAttempts: 1 });
    const key = 'race/SKILL.md';
    const version = (i: number) => `version ${i} `.repeat(1500 + (i % 5) * 400);
    await bucket.put(key, version(0));
    let writing = true;
    const writes = (async () => {
      for (let i = 1; i <= 40; i++) await bucket.put(key, version(i));
      writing = false;
    })();
    const mismatches: string[] = [];
    const read = async () => {
      while (writing) {
        const got = await direct.send(new GetObjectCommand({ Bucket: bucket.name, Key: key }));
        const bytes = (await got.Body?.transformToByteArray()) ?? new Uint8Array();
        const md5 = `"${createHash('md5').update(bytes).digest('hex')}"`;
        if (md5 !== got.ETag) mismatches.push(`${got.ETag} for ${bytes.length} bytes`);
      }
    };
    await Promise.all([writes, read(), read(), read()]);
    expect(mismatches).toEqual([]);
    await direct.send(new DeleteObjectCommand({ Bucket: bucket.name, Key: key }));
    const list = await direct.send(new ListObjectsV2Command({ Bucket: bucket.name, Prefix: 'race/' }));
    expect(list.Contents ?? []).toEqual([]);
  });
});

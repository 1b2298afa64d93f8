/**
 * Google Cloud Storage through its XML API's interoperability endpoint: the
 * S3 source's settings docs/fleet.md gives for it (read from the doc itself)
 * make the requests GCS takes: path-style, signed (SigV4) for region `auto`,
 * ListObjectsV2 for listings, ranged and conditional GETs, and no checksum
 * headers (AWS SDK 3.729+ sends CRC32 checksums by default, which GCS's XML
 * API does not take). No GCS is reachable here: s3rver stands in, behind a
 * proxy that records what the SDK sends.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSkills, skillsMiddleware } from '../src/index.js';
import { ObjectStores } from '../src/storage/engines.js';
import { makeBucket, s3Config, type TestBucket } from './helpers/s3/bucket.js';
import { cliWithEnvironment } from './helpers/s3/cli.js';
import { S3RVER_CREDENTIALS, sharedS3rver } from './helpers/s3/server.js';
import { startProxy, type LoggedRequest, type StorageProxy } from './helpers/storage/proxy.js';
import { compose, conversation, createContext } from './helpers/stack.js';

/** The GCS block of docs/fleet.md and the settings it gives. */
const doc = readFileSync(new URL('../docs/fleet.md', import.meta.url), 'utf8');
const block = /### Google Cloud Storage[\s\S]*?```ts\n([\s\S]*?)```/.exec(doc)?.[1] ?? '';
const setting = (name: string) => new RegExp(`${name}: '([^']+)'`).exec(block)?.[1];

let bucket: TestBucket;
let proxy: StorageProxy;

beforeAll(async () => {
  bucket = await makeBucket('gcs');
  proxy = await startProxy(await sharedS3rver());
  await bucket.put('prod/one/SKILL.md', '---\nname: one\ndescription: The one skill, read as from GCS.\n---\nDo the thing.\n');
});
afterAll(() => proxy.close());

/** What GCS's XML API would refuse in a request, or nothing. */
function unlikeGcs(request: LoggedRequest): string[] {
  const problems: string[] = [];
  const checksums = Object.keys(request.headers).filter((name) => /^x-amz-(sdk-)?checksum/.test(name));
  if (checksums.length > 0) problems.push(`checksum headers ${checksums.join(', ')}`);
  if (!String(request.headers.authorization).includes('/auto/s3/aws4_request')) problems.push('not signed for region auto');
  if (!request.path.startsWith(`/${bucket.name}/`)) problems.push(`not path-style: ${request.path}`);
  return problems.map((problem) => `${request.method} ${request.path}: ${problem}`);
}

describe('the S3 source set up for GCS as docs/fleet.md says', () => {
  it('the doc gives the interoperability endpoint, region auto and checksums only when required', () => {
    expect(setting('endpoint')).toBe('https://storage.googleapis.com');
    expect(setting('region')).toBe('auto');
    expect(setting('requestChecksumCalculation')).toBe('WHEN_REQUIRED');
    expect(setting('responseChecksumValidation')).toBe('WHEN_REQUIRED');
    expect(doc).toContain('AWS_REQUEST_CHECKSUM_CALCULATION=WHEN_REQUIRED AWS_RESPONSE_CHECKSUM_VALIDATION=WHEN_REQUIRED');
  });

  it('reads, activates and publishes with requests GCS takes; the SDK defaults would send checksums', async () => {
    const gcs = {
      endpoint: proxy.endpoint,
      region: setting('region'),
      credentials: S3RVER_CREDENTIALS,
      requestChecksumCalculation: setting('requestChecksumCalculation'),
      responseChecksumValidation: setting('responseChecksumValidation'),
    };
    proxy.reset();
    const middleware = skillsMiddleware({ directories: [`s3://${bucket.name}/prod/`], s3: gcs, rankInstructions: false });
    const ctx = createContext({ messages: conversation('Use $one.') });
    await compose([middleware])(ctx);
    expect(getSkills(ctx)?.skills.map((s) => s.metadata.name)).toEqual(['one']);
    await middleware.close();
    const published = await cliWithEnvironment(
      {
        AWS_ENDPOINT_URL_S3: proxy.endpoint,
        AWS_REGION: 'auto',
        AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
        AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
        AWS_REQUEST_CHECKSUM_CALCULATION: 'WHEN_REQUIRED',
        AWS_RESPONSE_CHECKSUM_VALIDATION: 'WHEN_REQUIRED',
      },
      'index',
      `s3://${bucket.name}/prod/`,
      '-o',
      `s3://${bucket.name}/prod.index`,
    );
    expect(published.code, published.err).toBe(0);
    expect(proxy.log.map((r) => r.op).sort()).toEqual(['get', 'get', 'list', 'list', 'put']);
    expect(proxy.log.flatMap(unlikeGcs)).toEqual([]);

    // The SDK's defaults: an upload with a CRC32 checksum header, which the settings above leave out.
    proxy.reset();
    const defaults = new ObjectStores({ s3: s3Config(proxy.endpoint, { region: 'auto' }) }).of('s3://');
    await defaults.write(bucket.name, 'prod/check.json', '{}', 'application/json');
    expect(proxy.log.flatMap(unlikeGcs)).toEqual([expect.stringContaining('x-amz-checksum-crc32')]);
  });
});

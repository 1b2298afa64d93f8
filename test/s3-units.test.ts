/** The storage edge's pure parts, without a server: URLs, errors, the listing's tree, the object cache, the routed filesystem. */
import { Volume } from 'memfs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { SkillsFileSystem } from '../src/base/fs.js';
import { sameObjects, treeOf, type Listing } from '../src/storage/bucket-listing.js';
import type { BucketFileSystem } from '../src/storage/bucket-fs.js';
import { ObjectCache } from '../src/storage/object-cache.js';
import { routedFileSystem } from '../src/storage/routed-fs.js';
import type { GetObjectCommandOutput, HeadObjectCommandOutput, ListObjectsV2CommandOutput } from '@aws-sdk/client-s3';
import {
  httpStatusOf,
  importSdk,
  loadSdk,
  makeClient,
  s3Error,
  SDK_MODULE,
  type GetAnswer,
  type HeadAnswer,
  type ListAnswer,
  type Sdk,
} from '../src/storage/s3-client.js';
import { isS3Client } from '../src/config/storage-options.js';
import { parseObjectUrl, splitObjectPath, type BucketPlace } from '../src/base/object-url.js';
import { isTransient, StorageError } from '../src/storage/storage-error.js';

describe('s3:// URLs', () => {
  it('parses places, keeps a prefix as a folder, and refuses bad names and dot segments', () => {
    expect(parseObjectUrl('s3://skills')).toEqual({ bucket: 'skills', prefix: '', root: 's3://skills' });
    expect(parseObjectUrl('s3://skills/a//b')).toEqual({ bucket: 'skills', prefix: 'a/b/', root: 's3://skills/a/b' });
    expect(parseObjectUrl('s3://Skills/a')).toMatchObject({ problem: expect.stringContaining('not a bucket name') });
    expect(parseObjectUrl('s3://skills/a/./b')).toMatchObject({ problem: expect.stringContaining('`.` or `..`') });
    expect(splitObjectPath('s3://skills')).toEqual({ bucket: 'skills', key: '' });
    expect(splitObjectPath('s3://skills/a/b')).toEqual({ bucket: 'skills', key: 'a/b' });
  });
});

describe('storage errors', () => {
  const sdk = (name: string, status?: number) =>
    Object.assign(new Error(name), { name, $metadata: status === undefined ? {} : { httpStatusCode: status } });
  it('say what to fix, naming the permission for each operation', () => {
    expect(s3Error(sdk('NoSuchBucket', 404), 'list', 'b', 'p/')).toMatchObject({ code: 'NO_SUCH_BUCKET' });
    expect(s3Error(sdk('NoSuchKey', 404), 'get', 'b', 'k')).toMatchObject({ code: 'ENOENT' });
    expect(s3Error(sdk('Unknown', 404), 'get', 'b', 'k')).toMatchObject({ code: 'ENOENT' });
    expect(s3Error(sdk('AccessDenied', 403), 'list', 'b', 'p/').reason).toContain('grant s3:ListBucket on arn:aws:s3:::b');
    expect(s3Error(sdk('Forbidden', 403), 'get', 'b', 'p/k').reason).toContain('grant s3:GetObject on arn:aws:s3:::b/p/k');
    expect(s3Error(sdk('Unknown', 403), 'put', 'b', 'i.json').reason).toContain('grant s3:PutObject');
    const down = s3Error(sdk('InternalError', 500), 'list', 'b', '');
    expect(down.reason).toContain('HTTP 500 InternalError');
    expect(isTransient(down)).toBe(true);
    const cut = s3Error(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }), 'list', 'b', '');
    expect(cut.reason).toContain('no answer (ECONNREFUSED)');
    expect(s3Error('plain', 'get', 'b', 'k').reason).toContain('no answer (plain)');
    const own = new StorageError('EFBIG', 'too big');
    expect(s3Error(own, 'get', 'b', 'k')).toBe(own);
    expect(isTransient(own)).toBe(false);
    expect(isTransient(new Error('x'))).toBe(false);
    expect(httpStatusOf(null)).toBeUndefined();
    expect(httpStatusOf({ $metadata: { httpStatusCode: '500' } })).toBeUndefined();
  });
});

describe('a listing as a tree', () => {
  const place = parseObjectUrl('s3://bkt/lib') as BucketPlace;
  const object = (key: string, etag = '"1"') => ({ key, size: 1, etag, modifiedMs: 0 });
  it('makes folders from keys, skips folder markers, and lets a folder win over a key of the same name', () => {
    const tree = treeOf(place, [object('a/'), object('a/SKILL.md'), object('x'), object('x/y'), object('z/w'), object('z')]);
    expect([...tree.files.keys()].sort()).toEqual(['s3://bkt/lib/a/SKILL.md', 's3://bkt/lib/x/y', 's3://bkt/lib/z/w']);
    expect(tree.folders.get('s3://bkt/lib')).toEqual(
      new Map([
        ['a', 'folder'],
        ['x', 'folder'],
        ['z', 'folder'],
      ]),
    );
  });
  it('tells a changed listing from the same one', () => {
    const listing = (objects: ReturnType<typeof object>[]): Listing => ({ ...treeOf(place, objects), place, listedAt: 0, pages: 1 });
    const base = listing([object('a/SKILL.md')]);
    expect(sameObjects(base, listing([object('a/SKILL.md')]))).toBe(true);
    expect(sameObjects(base, listing([object('a/SKILL.md', '"2"')]))).toBe(false);
    expect(sameObjects(base, listing([object('b/SKILL.md')]))).toBe(false);
    expect(sameObjects(base, listing([]))).toBe(false);
  });
});

describe('the object cache', () => {
  it('keeps by ETag, drops the least recently used past its limit, and forgets what is no longer listed', () => {
    const cache = new ObjectCache(10);
    cache.setHead('h', '"1"', new Uint8Array(2));
    expect(cache.head('h', '"1"')).toHaveLength(2);
    expect(cache.head('h', '"2"')).toBeUndefined();
    cache.setBody('big', '"1"', new Uint8Array(11));
    expect(cache.body('big', '"1"')).toBeUndefined();
    cache.setBody('a', '"1"', new Uint8Array(4));
    cache.setBody('b', '"1"', new Uint8Array(4));
    expect(cache.body('a', '"1"')).toBeDefined();
    cache.setBody('c', '"1"', new Uint8Array(4));
    expect(cache.body('b', '"1"')).toBeUndefined();
    expect(cache.body('a', '"2"')).toBeUndefined();
    cache.prune((path) => path !== 'a' && path !== 'h');
    expect(cache.body('a', '"1"')).toBeUndefined();
    expect(cache.head('h', '"1"')).toBeUndefined();
    expect(cache.body('c', '"1"')).toBeDefined();
  });
});

describe('the routed filesystem', () => {
  it('sends disk paths to the disk (through open() when it has no readUntil) and keeps its watch methods', async () => {
    const volume = Volume.fromJSON({ '/skills/a/SKILL.md': '---\nname: a\n---\nbody\n' });
    const disk = volume.promises as unknown as SkillsFileSystem;
    const buckets = {} as BucketFileSystem;
    const routed = routedFileSystem(
      { ...disk, readUntil: undefined, watch: () => ({}) as never, readlink: (p: string) => disk.readlink!(p) },
      buckets,
    );
    expect(await routed.readFile('/skills/a/SKILL.md', 'utf8')).toContain('name: a');
    expect((await routed.readdir('/skills', { withFileTypes: true })).map((e) => e.name)).toEqual(['a']);
    expect((await routed.stat('/skills/a')).isDirectory()).toBe(true);
    expect((await routed.lstat('/skills/a/SKILL.md')).isFile()).toBe(true);
    expect(await routed.realpath('/skills/a')).toBe('/skills/a');
    const head = await routed.readUntil!('/skills/a/SKILL.md', (_bytes, length) => Math.min(length, 3), 16, {});
    expect(head).toBe('---');
    await expect(routed.readUntil!('/skills/a', () => -1, 16, { checkType: true })).rejects.toBeDefined();
    expect(typeof routed.watch).toBe('function');
    expect(typeof routed.readlink).toBe('function');
    expect(routed.watchFolder).toBeUndefined();
  });
  it('takes a client as it is', async () => {
    const client = { send: () => Promise.resolve({}) };
    expect(isS3Client(client)).toBe(true);
    expect(isS3Client({ region: 'x' })).toBe(false);
    expect(await makeClient(client)).toBe(client);
  });
});

describe('the AWS SDK, an optional peer', () => {
  it('is loaded by name, and its real module has every part the package writes out (a compile-time check too)', async () => {
    // Typed against the SDK's own declarations (the tests have them; src/ names the parts it uses instead).
    const real: Sdk = await import('@aws-sdk/client-s3');
    expect(SDK_MODULE).toBe('@aws-sdk/client-s3');
    expect(await loadSdk()).toBe(await importSdk(SDK_MODULE));
    for (const part of ['S3Client', 'ListObjectsV2Command', 'GetObjectCommand', 'HeadObjectCommand', 'PutObjectCommand'] as const)
      expect(typeof real[part], part).toBe('function');
    // The answers as the package reads them are the SDK's answers (checked by the compiler; nothing to run).
    expectTypeOf<ListObjectsV2CommandOutput>().toExtend<ListAnswer>();
    expectTypeOf<GetObjectCommandOutput>().toExtend<GetAnswer>();
    expectTypeOf<HeadObjectCommandOutput>().toExtend<HeadAnswer>();
  });
  it('missing, fails with a StorageError that says what to install', async () => {
    const missing = importSdk('@aws-sdk/client-s3-not-installed');
    await expect(missing).rejects.toBeInstanceOf(StorageError);
    await expect(missing).rejects.toMatchObject({
      code: 'S3_SDK_MISSING',
      message: expect.stringContaining('npm install @aws-sdk/client-s3'),
    });
  });
});

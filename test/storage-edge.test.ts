/**
 * The storage edge's contract (src/storage/object-store.ts), written once and
 * run against each engine on a real server behind a counting, fault-injecting
 * proxy: S3 on s3rver, Azure Blob on Azurite. What the package above the
 * edge relies on, whichever engine answers: listing pages, ranged, conditional
 * and whole reads, writes, ETags in one form, and every failure said in the
 * same vocabulary with what to fix.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ObjectStores } from '../src/storage/engines.js';
import type { ObjectStore } from '../src/storage/object-store.js';
import { isTransient, StorageError } from '../src/storage/storage-error.js';
import { ENGINES, type EngineContainer, type TestEngine } from './helpers/storage/engines.js';
import { startProxy, type StorageProxy } from './helpers/storage/proxy.js';

const text = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);

/** The StorageError a promise rejects with (the test fails if it resolves, or rejects with anything else). */
async function failure(promise: Promise<unknown>): Promise<StorageError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(StorageError);
  return error as StorageError;
}

describe.each(ENGINES)('the storage edge on $name', (engine: TestEngine) => {
  let container: EngineContainer;
  let proxy: StorageProxy;
  /** Through the proxy, with one try per request unless a test asks for retries. */
  let store: ObjectStore;
  const storeFor = (attempts = 1, requestTimeoutMs?: number) =>
    new ObjectStores({ ...engine.connections(proxy.endpoint, attempts), requestTimeoutMs }).of(engine.scheme);

  beforeAll(async () => {
    container = await engine.makeContainer('edge');
    proxy = await startProxy(await engine.server(), engine.dialect);
    store = storeFor();
    await Promise.all([
      container.put('lib/a/SKILL.md', 'hello world'),
      container.put('lib/a/references/notes.md', 'notes\n'),
      container.put('lib/b/SKILL.md', ''),
      container.put('other/x.md', 'outside the prefix'),
    ]);
  });
  afterAll(() => proxy.close());

  it('lists a prefix page by page, keys relative to it, with sizes and the ETags reads give', async () => {
    proxy.reset();
    const first = await store.listPage(container.name, 'lib/', { pageSize: 2 });
    expect(first.next).toBeDefined();
    const second = await store.listPage(container.name, 'lib/', { pageSize: 2, token: first.next });
    expect(second.next).toBeUndefined();
    const objects = [...first.objects, ...second.objects];
    expect(objects.map((o) => [o.key, o.size])).toEqual([
      ['a/SKILL.md', 11],
      ['a/references/notes.md', 6],
      ['b/SKILL.md', 0],
    ]);
    expect(objects.every((o) => o.modifiedMs > 0)).toBe(true);
    expect(proxy.count('list')).toBe(2);
    // One form of ETag, quoted, from the listing and from a read alike (Azure lists them bare, downloads them quoted).
    const listed = objects[0]?.etag;
    expect(listed).toMatch(/^".+"$/);
    expect((await store.read(container.name, 'lib/a/SKILL.md')).etag).toBe(listed);
    expect((await store.stat(container.name, 'lib/a/SKILL.md')).etag).toBe(listed);
  });

  it('reads a range with the whole size; a range past the end gives what there is; any range on an empty object gives it empty', async () => {
    proxy.reset();
    const head = await store.readRange(container.name, 'lib/a/SKILL.md', [0, 4]);
    expect([text(head.bytes), head.size]).toEqual(['hello', 11]);
    expect(proxy.log[0]?.range).toBe('bytes=0-4');
    const rest = await store.readRange(container.name, 'lib/a/SKILL.md', [6, 4095]);
    expect([text(rest.bytes), rest.size]).toEqual(['world', 11]);
    proxy.reset();
    const empty = await store.readRange(container.name, 'lib/b/SKILL.md', [0, 4095]);
    expect([empty.bytes.length, empty.size]).toEqual([0, 0]);
    expect(empty.etag).toMatch(/^".+"$/);
    // No byte of an empty object is in range: storage answers 416 InvalidRange, and the edge reads it whole instead.
    expect(proxy.log.map((r) => r.status)).toEqual([416, 200]);
  });

  it('a conditional read is answered 304 while the ETag holds, and gives the new object once it changed', async () => {
    await container.put('cond/index.json', '{"v":1}');
    const first = await store.read(container.name, 'cond/index.json');
    proxy.reset();
    expect(await store.readIfChanged(container.name, 'cond/index.json', first.etag)).toBeUndefined();
    expect(proxy.log).toMatchObject([{ op: 'get', ifNoneMatch: first.etag, status: 304 }]);
    await container.put('cond/index.json', '{"v":2}');
    const changed = await store.readIfChanged(container.name, 'cond/index.json', first.etag);
    expect(text(changed?.bytes)).toBe('{"v":2}');
    expect(changed?.etag).not.toBe(first.etag);
  });

  it('re-uploading the same bytes: S3 keeps the ETag (an MD5), Azure gives a new one (a conditional read then reads it again)', async () => {
    await container.put('same/x.md', 'same bytes');
    const before = await store.stat(container.name, 'same/x.md');
    await container.put('same/x.md', 'same bytes');
    const after = await store.stat(container.name, 'same/x.md');
    expect(after.etag === before.etag).toBe(engine.scheme === 's3://');
  });

  it('writes an object whole, and reads and stats it back', async () => {
    await store.write(container.name, 'published/skills.index', '{"format":"x"}', 'application/json');
    const got = await store.read(container.name, 'published/skills.index');
    expect([text(got.bytes), got.size]).toEqual(['{"format":"x"}', 14]);
    const info = await store.stat(container.name, 'published/skills.index');
    expect(info).toMatchObject({ key: 'published/skills.index', size: 14, etag: got.etag });
  });

  it('a missing object is ENOENT, a missing container NO_SUCH_BUCKET naming what to check', async () => {
    for (const read of [() => store.read(container.name, 'nope.md'), () => store.stat(container.name, 'nope.md')]) {
      expect(await failure(read())).toMatchObject({ code: 'ENOENT', reason: `${engine.scheme}${container.name}/nope.md does not exist` });
    }
    const word = engine.scheme === 'az://' ? 'container' : 'bucket';
    const missing = await failure(store.listPage('no-such-container-here', 'lib/'));
    expect(missing).toMatchObject({
      code: 'NO_SUCH_BUCKET',
      reason: expect.stringContaining(`${word} "no-such-container-here" does not exist`),
    });
    expect(isTransient(missing)).toBe(false);
  });

  it("access denied, in each of the engine's terms, is EACCES naming the permission or role to grant", async () => {
    for (const code of engine.deniedCodes) {
      for (const [operation, request] of [
        ['list', () => store.listPage(container.name, 'lib/')],
        ['get', () => store.read(container.name, 'lib/a/SKILL.md')],
        ['put', () => store.write(container.name, 'x.json', '{}', 'application/json')],
      ] as const) {
        proxy.reset();
        proxy.faults.fail = { count: 1, status: 403, code };
        const denied = await failure(request());
        expect(denied.code, `${code} ${operation}`).toBe('EACCES');
        expect(isTransient(denied)).toBe(false);
        const fix =
          engine.scheme === 's3://'
            ? { list: 'grant s3:ListBucket', get: 'grant s3:GetObject', put: 'grant s3:PutObject' }[operation]
            : code === 'AuthenticationFailed'
              ? 'check the account key or connection string'
              : { list: 'Storage Blob Data Reader', get: 'Storage Blob Data Reader', put: 'Storage Blob Data Contributor' }[operation];
        expect(denied.reason, `${code} ${operation}`).toContain(fix);
      }
    }
  });

  it('throttling is retried by the SDK, then reads; throttled for good it is unavailable, worth a retry later', async () => {
    const retrying = storeFor(2);
    for (const { status, code } of engine.throttling) {
      proxy.reset();
      proxy.faults.fail = { count: 1, status, code };
      expect(text((await retrying.read(container.name, 'lib/a/SKILL.md')).bytes)).toBe('hello world');
      expect(proxy.log.map((r) => r.status)).toEqual([status, 200]);
      proxy.reset();
      proxy.faults.fail = { count: 100, status, code };
      const down = await failure(retrying.listPage(container.name, 'lib/'));
      expect(down).toMatchObject({ code: 'STORAGE_UNAVAILABLE', reason: expect.stringContaining(`HTTP ${status} ${code}`) });
      expect(isTransient(down)).toBe(true);
      expect(proxy.count('list')).toBe(2);
    }
  });

  it('storage unreachable is unavailable, naming the place and never the credentials', async () => {
    proxy.reset();
    proxy.faults.down = true;
    const down = await failure(store.listPage(container.name, 'lib/'));
    expect(down).toMatchObject({ code: 'STORAGE_UNAVAILABLE', reason: expect.stringContaining(`${engine.scheme}${container.name}/lib/`) });
    expect(JSON.stringify(down.reason)).not.toMatch(/S3RVER|Eby8vd/);
    proxy.reset();
  });

  it('a body cut off is BODY_TRUNCATED, worth a retry; never returned short', async () => {
    // Neither SDK resumes a body whose connection was cut (Azure's resumes a body that ends early, not one aborted).
    const long = `${'line of text\n'.repeat(2000)}the end`;
    await container.put('cut/SKILL.md', long);
    proxy.reset();
    proxy.faults.truncate = 1;
    const cut = await failure(store.read(container.name, 'cut/SKILL.md'));
    expect(cut).toMatchObject({
      code: 'BODY_TRUNCATED',
      reason: `the answer for ${engine.scheme}${container.name}/cut/SKILL.md was cut off`,
    });
    expect(isTransient(cut)).toBe(true);
    expect(proxy.count('get')).toBe(1);
  });

  it('an object that shrank between two ranged reads is OBJECT_CHANGED (worth a retry), not bytes of two versions', async () => {
    await container.put('shrink/SKILL.md', 'x'.repeat(100));
    expect((await store.readRange(container.name, 'shrink/SKILL.md', [0, 9])).size).toBe(100);
    await container.put('shrink/SKILL.md', 'short');
    const changed = await failure(store.readRange(container.name, 'shrink/SKILL.md', [10, 49]));
    expect(changed.code).toBe('OBJECT_CHANGED');
    expect(isTransient(changed)).toBe(true);
  });

  it('a request never answered is abandoned at the time limit as unavailable; a caller abort ends it at once', async () => {
    const limited = storeFor(1, 300);
    proxy.reset();
    // An answer a minute away: without a limit of ours the SDK would wait for it.
    proxy.faults.delayMs = 60_000;
    const started = Date.now();
    const hung = await failure(limited.read(container.name, 'lib/a/SKILL.md'));
    expect(hung).toMatchObject({ code: 'STORAGE_UNAVAILABLE', reason: expect.stringContaining('no answer within 300 ms') });
    expect(await failure(limited.listPage(container.name, 'lib/'))).toMatchObject({ code: 'STORAGE_UNAVAILABLE' });
    expect(Date.now() - started).toBeLessThan(10_000);
    const caller = new AbortController();
    const aborted = storeFor(1, 60_000).read(container.name, 'lib/a/SKILL.md', caller.signal);
    caller.abort();
    expect(await failure(aborted)).toMatchObject({ code: 'STORAGE_UNAVAILABLE', reason: expect.not.stringContaining('no answer within') });
    // Storage answering again is read again (through a store with the default limit: a loaded machine's answers may take 300 ms).
    proxy.reset();
    expect(text((await store.read(container.name, 'lib/a/SKILL.md')).bytes)).toBe('hello world');
  });
});

/**
 * Local copies read through the storage edge, whichever engine answers: the
 * same skill in an S3 bucket (s3rver) and an Azure container (Azurite), each
 * behind the counting proxy, copied to the disk from its listing and found
 * again with no request. Nothing above the edge asks which engine it is.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listPlace } from '../src/storage/bucket-listing.js';
import { planCopy } from '../src/storage/copies/copy-plan.js';
import { LocalCopies } from '../src/storage/copies/local-copies.js';
import { ObjectStores } from '../src/storage/engines.js';
import { ENGINES, type TestEngine } from './helpers/storage/engines.js';
import { startProxy, type StorageProxy } from './helpers/storage/proxy.js';

describe.each(ENGINES)('local copies on $name', (engine: TestEngine) => {
  let proxy: StorageProxy;
  let stores: ObjectStores;
  let container: string;
  let work: string;
  beforeAll(async () => {
    const made = await engine.makeContainer('copies');
    container = made.name;
    await Promise.all([
      made.put('lib/run/SKILL.md', '---\nname: run\ndescription: Runs.\n---\nRun scripts/go.sh.\n'),
      made.put('lib/run/scripts/go.sh', '#!/usr/bin/env bash\necho go\n'),
      made.put('lib/run/references/notes.md', '# Notes\n'),
    ]);
    proxy = await startProxy(await engine.server(), engine.dialect);
    stores = new ObjectStores(engine.connections(proxy.endpoint));
    work = mkdtempSync(join(tmpdir(), 'copies-engines-'));
    // The engine's server may start here (Azurite takes seconds on a loaded machine).
  }, 60_000);
  afterAll(async () => {
    await proxy?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('copies a skill from its listing, read-only with the script executable, and finds it again with no request', async () => {
    const root = `${engine.scheme}${container}/lib`;
    const store = stores.of(engine.scheme);
    const listing = await listPlace(store, { bucket: container, prefix: 'lib/', root });
    const listed = [...listing.files].map(([object, info]) => ({
      path: object.slice(`${root}/run/`.length),
      object,
      size: info.size,
      etag: info.etag,
    }));
    const plan = planCopy('run', `${root}/run`, listed, { maxFileSize: 100_000, maxSkillSize: 500_000 });
    expect(plan.files.map((file) => file.path)).toEqual(['SKILL.md', 'references/notes.md', 'scripts/go.sh']);
    const read = async (object: string) => {
      const { store: edge, container: where, key } = stores.locate(object);
      return edge.read(where, key);
    };
    const limits = { maxFileSize: 100_000, maxSkillSize: 500_000 };
    const copies = new LocalCopies({ read, root: join(work, engine.scheme.replace('://', '')), maxBytes: 1 << 20, limits });
    proxy.reset();
    const copy = await copies.copy(plan);
    expect(proxy.count('get')).toBe(3);
    expect(readFileSync(join(copy.folder, 'scripts/go.sh'), 'utf8')).toBe('#!/usr/bin/env bash\necho go\n');
    expect(statSync(join(copy.folder, 'scripts/go.sh')).mode & 0o777).toBe(0o555);
    expect(statSync(join(copy.folder, 'references/notes.md')).mode & 0o777).toBe(0o444);
    proxy.reset();
    expect(await copies.copy(plan)).toMatchObject({ folder: copy.folder, reused: true });
    expect(proxy.log).toEqual([]);
    await copies.close();
  });
});

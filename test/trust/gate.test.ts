/**
 * The trust gate over a process's life: a place's manifest admitted once
 * and reused while its text is unchanged (expiry still checked against the
 * clock), every refusal with its code, a rollback that keeps the last good
 * manifest, and the head, file and listing checks against an admitted one.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkFile, checkHead, checkListing, EntryCursor, TrustGate, type AcceptedManifest } from '../../src/trust/gate.js';
import { hex, keyPair, observed, signedManifest } from '../helpers/trust.js';

const NOW = Date.UTC(2026, 0, 1);
const DAY = 86_400_000;
const PDF = observed('pdf', { 'SKILL.md': '\uFEFF---\nname: pdf\n---\nBody.\n', 'ref.md': 'ref' }, '\uFEFF---\nname: pdf\n---\n');

function gate(clock: { now: number }, threshold = 1) {
  return new TrustGate({ keys: [keyPair(0).trusted, keyPair(1).trusted], threshold, now: () => clock.now });
}

function admitted(verdict: Awaited<ReturnType<TrustGate['admit']>>): AcceptedManifest {
  if (!verdict.ok) throw new Error(verdict.message);
  return verdict.accepted;
}

describe('TrustGate.admit', () => {
  it('admits two versions of a place at once (signatures checked off the thread) without rolling the place back', async () => {
    const trust = gate({ now: NOW });
    const [v2, v1] = await Promise.all([2, 1].map((version) => trust.admit('/lib', signedManifest([PDF], { version }))));
    expect(admitted(v2 ?? { ok: false, code: 'MANIFEST_INVALID', message: '' }).manifest.body.version).toBe(2);
    // Whichever signature check ended first: version 1 was accepted before version 2, or refused after it.
    expect(v1?.ok || (v1?.code === 'MANIFEST_ROLLBACK' && v1.lastGood?.manifest.body.version === 2)).toBe(true);
    expect(await trust.admit('/lib', signedManifest([PDF], { version: 1 }))).toMatchObject({ ok: false, code: 'MANIFEST_ROLLBACK' });
    expect(trust.acceptedPlaces().map(({ manifest }) => manifest.body.version)).toEqual([2]);
  });

  it('admits a signed manifest, reuses it while its text is unchanged, and refuses it from its expiry on', async () => {
    const clock = { now: NOW };
    const trust = gate(clock);
    const text = signedManifest([PDF], { now: NOW, days: 1 });
    const first = admitted(await trust.admit('/lib', text));
    expect(first.skills.get('pdf')?.files.map(([path]) => path)).toEqual(['SKILL.md', 'ref.md']);
    expect(admitted(await trust.admit('/lib', text))).toBe(first);
    clock.now = NOW + DAY;
    expect(await trust.admit('/lib', text)).toMatchObject({ ok: false, code: 'MANIFEST_EXPIRED' });
  });

  it('refuses a place without a manifest, a damaged one, one signed by an unknown key, or by too few', async () => {
    const clock = { now: NOW };
    expect(await gate(clock).admit('/lib', undefined)).toEqual({
      ok: false,
      code: 'MANIFEST_INVALID',
      message:
        'has no skills.manifest.json: nothing here is signed, so nothing is served. Sign the place (`sisu-skills sign /lib --key <file>`).',
    });
    expect(await gate(clock).admit('/lib', '{}')).toMatchObject({ ok: false, code: 'MANIFEST_INVALID' });
    expect(await gate(clock).admit('/lib', signedManifest([PDF], { pair: keyPair(2) }))).toMatchObject({
      ok: false,
      code: 'MANIFEST_INVALID',
      message: expect.stringMatching(/^is signed by no trusted key/) as string,
    });
    expect(await gate(clock, 2).admit('/lib', signedManifest([PDF]))).toMatchObject({ ok: false, code: 'MANIFEST_INVALID' });
  });

  it('refuses a lower version than the place showed, keeping the last good manifest; other places are their own', async () => {
    const clock = { now: NOW };
    const trust = gate(clock);
    const v2 = admitted(await trust.admit('/lib', signedManifest([PDF], { version: 2 })));
    const replay = await trust.admit('/lib', signedManifest([PDF], { version: 1 }));
    expect(replay).toMatchObject({ ok: false, code: 'MANIFEST_ROLLBACK' });
    expect(!replay.ok && replay.lastGood).toBe(v2);
    expect(admitted(await trust.admit('/other', signedManifest([PDF], { version: 1 }))).manifest.body.version).toBe(1);
    expect(admitted(await trust.admit('/lib', signedManifest([PDF], { version: 3 }))).manifest.body.version).toBe(3);
    // The last good one has expired: nothing is kept.
    clock.now = NOW + 40 * DAY;
    const late = await trust.admit('/lib', signedManifest([PDF], { version: 2, now: clock.now }));
    expect(late).toMatchObject({ ok: false, code: 'MANIFEST_ROLLBACK' });
    expect(!late.ok && late.lastGood).toBeUndefined();
  });
});

const accepted = admitted(await gate({ now: NOW }).admit('/lib', signedManifest([PDF])));

describe('checks against an admitted manifest', () => {
  it('checkHead: the skill must be listed and its head hash signed', () => {
    expect(checkHead(accepted, 'pdf', hex('\uFEFF---\nname: pdf\n---\n'))).toBeUndefined();
    expect(checkHead(accepted, 'pdf-2', hex('x'))).toEqual({ kind: 'unlisted-skill', skill: 'pdf-2' });
    expect(checkHead(accepted, 'pdf', hex('---\nname: evil\n---\n'))).toMatchObject({ kind: 'frontmatter', file: 'SKILL.md' });
  });

  it('checkFile: the bytes, or text as UTF-8 (a BOM kept), must be the signed ones; an unsigned file is "added"', () => {
    expect(checkFile(accepted, 'pdf', 'SKILL.md', '\uFEFF---\nname: pdf\n---\nBody.\n')).toBeUndefined();
    expect(checkFile(accepted, 'pdf', 'SKILL.md', Buffer.from('\uFEFF---\nname: pdf\n---\nBody.\n'))).toBeUndefined();
    expect(checkFile(accepted, 'pdf', 'SKILL.md', '---\nname: pdf\n---\nBody.\n')).toMatchObject({
      kind: 'changed',
      expectedSize: 27,
      actualSize: 24,
    });
    expect(checkFile(accepted, 'pdf', 'new.md', 'x')).toEqual({ kind: 'added', skill: 'pdf', file: 'new.md', actual: hex('x') });
    expect(checkFile(accepted, 'nope', 'SKILL.md', 'x')).toEqual({ kind: 'unlisted-skill', skill: 'nope' });
  });

  it('checkListing: files listed but unsigned, and signed files no longer listed unless the listing leaves them out anyway', () => {
    expect(checkListing(accepted, 'pdf', ['ref.md'])).toEqual([]);
    expect(checkListing(accepted, 'pdf', ['new.md'])).toEqual([
      { kind: 'added', skill: 'pdf', file: 'new.md' },
      { kind: 'removed', skill: 'pdf', file: 'ref.md', expected: hex('ref') },
    ]);
    expect(checkListing(accepted, 'pdf', [], (path) => path === 'ref.md')).toEqual([]);
    expect(checkListing(accepted, 'nope', [])).toEqual([{ kind: 'unlisted-skill', skill: 'nope' }]);
  });
});

describe('EntryCursor', () => {
  it('finds, in any order, exactly the entry a lookup by path finds (in order, without one)', async () => {
    const names = ['a', 'a-b', 'a/c', 'a/d', 'b', 'b.c', 'c/d/e', 'z'];
    const skills = names.map((name) => observed(name, { 'SKILL.md': `---\nname: ${name.replace(/\W/g, '-')}\n---\n` }));
    const read = admitted(await gate({ now: NOW }).admit('/lib', signedManifest(skills)));
    const asked = fc.array(fc.constantFrom(...names, 'a/', 'b/c', 'zz', ''), { maxLength: 20 });
    fc.assert(
      fc.property(asked, (paths) => {
        const entries = new EntryCursor(read);
        for (const path of paths) expect(entries.find(path)).toBe(read.skills.get(path));
      }),
      { numRuns: 300 },
    );
    // In the entries' own order, each is found.
    const inOrder = new EntryCursor(read);
    expect(names.map((name) => inOrder.find(name)?.path)).toEqual(names);
  });
});

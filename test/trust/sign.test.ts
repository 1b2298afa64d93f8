/**
 * What `sign` writes over what is there: a first manifest is version 1; new
 * content is one version more, signed by this key alone (others listed as
 * dropped); the same content still valid and signed by others gets this
 * key's signature added to the same bytes; --renew and --version make a new
 * version; an unreadable manifest needs --version.
 */
import { describe, expect, it } from 'vitest';
import { parseManifest } from '../../src/trust/manifest.js';
import { manifestSkills, signManifest, type ExistingManifest, type SignOutcome } from '../../src/trust/sign.js';
import { checkSignatures } from '../../src/trust/verify.js';
import { keyPair, observed } from '../helpers/trust.js';

const NOW = Date.UTC(2026, 0, 1);
const DAY = 86_400_000;
const V1 = manifestSkills([observed('pdf', { 'SKILL.md': '---\nname: pdf\n---\n', 'a.md': 'a' })]);
const V2 = manifestSkills([observed('pdf', { 'SKILL.md': '---\nname: pdf\n---\n', 'a.md': 'A' })]);

function run(existing: ExistingManifest, extra: Partial<Parameters<typeof signManifest>[1]> = {}): SignOutcome {
  const outcome = signManifest(existing, { skills: V1, key: keyPair(0).signing, now: NOW, expiresInMs: 30 * DAY, renew: false, ...extra });
  if ('problem' in outcome) throw new Error(outcome.problem);
  return outcome;
}

function existing(outcome: SignOutcome): ExistingManifest {
  const read = parseManifest(outcome.text);
  if (!read.ok) throw new Error(read.message);
  return { kind: 'manifest', manifest: read.manifest };
}

describe('signManifest', () => {
  it('writes version 1 when there is none, expiring after the time given', () => {
    const first = run({ kind: 'none' });
    expect(first).toMatchObject({ version: 1, expires: '2026-01-31T00:00:00.000Z', added: false, dropped: [], signatures: 1 });
  });

  it('writes one version more for new content, and lists the signatures it drops', () => {
    const first = run({ kind: 'none' });
    const cosigned = run(existing(first), { key: keyPair(1).signing });
    expect(cosigned).toMatchObject({ version: 1, added: true, signatures: 2 });
    const second = run(existing(cosigned), { skills: V2, now: NOW + DAY });
    expect(second).toMatchObject({
      version: 2,
      added: false,
      dropped: [keyPair(1).id],
      signatures: 1,
      expires: '2026-02-01T00:00:00.000Z',
    });
  });

  it('adds a signature to the same bytes when the content is the same, still valid, and signed by another key', () => {
    const first = run({ kind: 'none' });
    const added = run(existing(first), { key: keyPair(1).signing, now: NOW + DAY, expiresInMs: 90 * DAY });
    expect(added).toMatchObject({ version: 1, expires: '2026-01-31T00:00:00.000Z', added: true, signatures: 2 });
    const read = existing(added);
    const before = existing(first);
    if (read.kind !== 'manifest' || before.kind !== 'manifest') throw new Error('unreadable');
    expect(read.manifest.bodyText).toBe(before.manifest.bodyText);
    expect(checkSignatures(read.manifest, [keyPair(0).trusted, keyPair(1).trusted], 2).ok).toBe(true);
    // Signing again with a key already there replaces its own signature: still two.
    expect(run(existing(added), { key: keyPair(1).signing })).toMatchObject({ added: true, signatures: 2 });
  });

  it('makes a new version for the same content when only this key signed it, when --renew, --version, or expired', () => {
    const first = run({ kind: 'none' });
    expect(run(existing(first), { now: NOW + DAY })).toMatchObject({ version: 2, added: false, expires: '2026-02-01T00:00:00.000Z' });
    const cosigned = existing(run(existing(first), { key: keyPair(1).signing }));
    expect(run(cosigned, { renew: true })).toMatchObject({ version: 2, added: false, dropped: [keyPair(1).id] });
    expect(run(cosigned, { version: 10 })).toMatchObject({ version: 10, added: false });
    expect(run(cosigned, { now: NOW + 30 * DAY })).toMatchObject({ version: 2, added: false });
  });

  it('refuses a --version not above the one there, and an unreadable manifest without --version', () => {
    const first = existing(run({ kind: 'none' }));
    expect(signManifest(first, { skills: V1, key: keyPair(0).signing, now: NOW, expiresInMs: DAY, renew: false, version: 1 })).toEqual({
      problem: '--version 1 is not above the version there (1); processes would refuse it.',
    });
    const unreadable: ExistingManifest = { kind: 'unreadable', message: 'is not JSON' };
    expect(signManifest(unreadable, { skills: V1, key: keyPair(0).signing, now: NOW, expiresInMs: DAY, renew: false })).toMatchObject({
      problem: expect.stringMatching(
        /^the manifest there cannot be read \(is not JSON\), so its version is unknown\. Pass --version/,
      ) as string,
    });
    expect(run(unreadable, { version: 7 })).toMatchObject({ version: 7 });
  });
});

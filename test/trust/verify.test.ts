/**
 * Believing a manifest: threshold counts distinct trusted keys whose
 * signatures verify (one key signing twice counts once), an untrusted or
 * wrong signature says so, expiry follows the clock given (refused from the
 * very ms it names), signatures are checked first; and rollback protection
 * per place.
 */
import { describe, expect, it } from 'vitest';
import { parseManifest, serializeManifest, type ParsedManifest } from '../../src/trust/manifest.js';
import { AcceptedVersions } from '../../src/trust/rollback.js';
import { signBody } from '../../src/trust/sign.js';
import { checkExpiry, checkSignatures, shortKeyId, signersOf, verifyManifest } from '../../src/trust/verify.js';
import { keyPair, observed, signedManifest } from '../helpers/trust.js';

const NOW = Date.UTC(2026, 0, 1);
const SKILLS = [observed('pdf', { 'SKILL.md': '---\nname: pdf\n---\n' })];

function parsed(text: string): ParsedManifest {
  const read = parseManifest(text);
  if (!read.ok) throw new Error(read.message);
  return read.manifest;
}

/** The manifest signed by keyPair(0), with signatures by these pairs added to the same body. */
function cosigned(...more: number[]): string {
  const first = parsed(signedManifest(SKILLS, { now: NOW }));
  return serializeManifest(first.bodyText, [...first.signatures, ...more.map((n) => signBody(first.bodyText, keyPair(n).signing))]);
}

describe('signatures and threshold', () => {
  it('counts distinct trusted keys whose signatures verify', () => {
    const manifest = parsed(cosigned(1, 2));
    const keys = [keyPair(0).trusted, keyPair(1).trusted, keyPair(2).trusted];
    expect(signersOf(manifest, keys).trusted).toEqual([keyPair(0).id, keyPair(1).id, keyPair(2).id].sort());
    expect(checkSignatures(manifest, keys, 3).ok).toBe(true);
    expect(checkSignatures(manifest, keys.slice(0, 2), 2).ok).toBe(true);
    const short = checkSignatures(manifest, keys.slice(0, 2), 3);
    expect(short).toMatchObject({ ok: false, code: 'MANIFEST_INVALID' });
    expect(!short.ok && short.message).toMatch(
      /^is signed by 2 trusted keys \(.+\), fewer than the 3 required \(signed by key .+, which is not trusted\)\. Add a signature by another trusted key/,
    );
  });

  it('counts one key once, however many times it signed', () => {
    const manifest = parsed(cosigned(0, 0));
    expect(manifest.signatures).toHaveLength(3);
    expect(checkSignatures(manifest, [keyPair(0).trusted], 1).ok).toBe(true);
    expect(checkSignatures(manifest, [keyPair(0).trusted], 2).ok).toBe(false);
  });

  it('says when no trusted key signed, and when a trusted signature does not match the content', () => {
    const manifest = parsed(cosigned());
    const none = checkSignatures(manifest, [keyPair(1).trusted], 1);
    expect(!none.ok && none.message).toBe(
      `is signed by no trusted key, fewer than the 1 required (signed by key ${shortKeyId(keyPair(0).id)}, which is not trusted). ` +
        'Trust the public key that signs your library (`trust.keys`), or sign the place with a trusted key (`sisu-skills sign`).',
    );
    // The signature of another body under key 0's id.
    const other = parsed(signedManifest([observed('other', { 'SKILL.md': 'x' })], { now: NOW }));
    const forged = parsed(serializeManifest(manifest.bodyText, other.signatures));
    const bad = checkSignatures(forged, [keyPair(0).trusted], 1);
    expect(!bad.ok && bad.message).toMatch(/a signature by trusted key [0-9a-f]{12} does not match its content \(changed after signing\)/);
  });
});

describe('expiry', () => {
  it('is refused from the ms it names on, with the clock given', () => {
    const manifest = parsed(signedManifest(SKILLS, { now: NOW, days: 1 }));
    expect(checkExpiry(manifest, NOW + 86_400_000 - 1).ok).toBe(true);
    const expired = checkExpiry(manifest, NOW + 86_400_000);
    expect(expired).toMatchObject({ ok: false, code: 'MANIFEST_EXPIRED' });
    expect(!expired.ok && expired.message).toBe(
      'expired at 2026-01-02T00:00:00.000Z (version 1). Sign the place again ' +
        '(`sisu-skills sign <place> --key <file> --expires 30d`); a scheduled CI job keeps it fresh.',
    );
  });

  it('is checked after the signatures: an expired manifest nobody trusted signed is invalid', () => {
    const text = signedManifest(SKILLS, { now: NOW, days: 1 });
    const late = NOW + 5 * 86_400_000;
    expect(verifyManifest(text, { keys: [keyPair(1).trusted], threshold: 1, now: late })).toMatchObject({ code: 'MANIFEST_INVALID' });
    expect(verifyManifest(text, { keys: [keyPair(0).trusted], threshold: 1, now: late })).toMatchObject({ code: 'MANIFEST_EXPIRED' });
    expect(verifyManifest('{}', { keys: [keyPair(0).trusted], threshold: 1, now: NOW })).toMatchObject({ code: 'MANIFEST_INVALID' });
    expect(verifyManifest(text, { keys: [keyPair(0).trusted], threshold: 1, now: NOW }).ok).toBe(true);
  });
});

describe('rollback', () => {
  it('refuses a version below the highest accepted for that place only; equal and higher pass', () => {
    const accepted = new AcceptedVersions();
    expect(accepted.check('s3://b/prod/', 1)).toBeUndefined();
    accepted.accept('s3://b/prod/', 5);
    accepted.accept('s3://b/prod/', 3);
    expect(accepted.highestOf('s3://b/prod/')).toBe(5);
    expect(accepted.check('s3://b/prod/', 5)).toBeUndefined();
    expect(accepted.check('s3://b/prod/', 6)).toBeUndefined();
    expect(accepted.check('/skills', 1)).toBeUndefined();
    const refused = accepted.check('s3://b/prod/', 4);
    expect(refused).toEqual({
      code: 'MANIFEST_ROLLBACK',
      message:
        'has version 4, lower than version 5 this process already accepted for this place: an older signed manifest was put back. ' +
        'The last good library keeps serving; publish the current files and manifest again.',
    });
  });
});

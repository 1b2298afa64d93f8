/**
 * The seal of a prebuilt index (format 3): appended after the index's bytes,
 * which a reader without `trust` reads as they were; it names the index's
 * hash and each place's manifest, and is refused when its layout, its
 * statement, the index's bytes or its signatures are not as sealed.
 */
import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { parseManifest, type ParsedManifest } from '../../src/trust/manifest.js';
import { checkSeal, manifestsSection, openSeal, sealedManifests, sealIndex, type OpenedSeal } from '../../src/trust/seal.js';
import { keyPair, observed, signedManifest } from '../helpers/trust.js';

const TEXT = signedManifest([observed('pdf', { 'SKILL.md': '---\nname: pdf\n---\n' })]);
const PLACES = [{ place: 'skills', text: TEXT, manifest: manifest(TEXT) }];
/** Stands for an index's bytes: the seal does not look inside them, but for where the manifests lie (CARRIED). */
const INDEX = Buffer.concat([Buffer.from('sisu-skills-index 3\n', 'latin1'), Buffer.from([0, 1, 2, 0xff, 0x0a]), manifestsSection(PLACES)]);
const CARRIED = { start: INDEX.length - manifestsSection(PLACES).length, end: INDEX.length };

function manifest(text: string): ParsedManifest {
  const read = parseManifest(text);
  if (!read.ok) throw new Error(read.message);
  return read.manifest;
}

function opened(bytes: Uint8Array): OpenedSeal {
  const result = openSeal(bytes);
  if (!result || 'problem' in result) throw new Error(`not opened: ${JSON.stringify(result)}`);
  return result;
}

const SEALED = Buffer.from(sealIndex(INDEX, PLACES, [keyPair(0).signing, keyPair(1).signing], CARRIED));
/** The seal's text (the statement and the signatures), as latin1, with its footer. */
const sealText = () => SEALED.subarray(INDEX.length).toString('latin1');
/** SEALED with its seal's text changed by `change`, the lengths written again when `relength`. */
function withSeal(change: (text: string) => string, relength = true): Buffer {
  const text = SEALED.subarray(INDEX.length, SEALED.length - 16).toString('latin1');
  const [statement = '', signatures = ''] = change(text).split('\n');
  const footer = Buffer.from(SEALED.subarray(SEALED.length - 16));
  if (relength) {
    footer.writeUInt32LE(statement.length, 0);
    footer.writeUInt32LE(signatures.length, 4);
  }
  return Buffer.concat([INDEX, Buffer.from(`${statement}\n${signatures}\n`, 'latin1'), footer]);
}

describe('sealIndex and openSeal', () => {
  it("append the seal after the index's bytes, and give them back as they were", () => {
    expect(SEALED.subarray(0, INDEX.length).equals(INDEX)).toBe(true);
    expect(sealText()).toMatch(/^\{"format":"sisu-skills-index-trust\/3","index":"[0-9a-f]{64}","places":\[/u);
    expect(SEALED.subarray(SEALED.length - 8).toString('latin1')).toBe('SKSEAL01');
    const seal = opened(SEALED);
    expect(Buffer.from(seal.indexBytes).equals(INDEX)).toBe(true);
    expect(seal.statement.places).toEqual([expect.objectContaining({ place: 'skills', version: 1 })]);
    expect(checkSeal(seal, [keyPair(0).trusted, keyPair(1).trusted], 2, CARRIED)).toBeUndefined();
    expect(sealedManifests(manifestsSection(PLACES), seal.statement).get('skills')).toBe(TEXT);
    expect(openSeal(INDEX)).toBeUndefined();
  });

  it('refuse a seal out of layout, past its bounds, not JSON, or with another statement', () => {
    const layout = { problem: 'its seal is not in the layout `sisu-skills index --key` writes' };
    expect(openSeal(withSeal((text) => text.replace('\n', ' '), false))).toEqual(layout);
    const huge = Buffer.from(SEALED);
    huge.writeUInt32LE(0xffffffff, huge.length - 16);
    expect(openSeal(huge)).toEqual(layout);
    const past = Buffer.from(SEALED);
    past.writeUInt32LE(SEALED.length, past.length - 16);
    expect(openSeal(past)).toEqual(layout);
    expect(openSeal(Buffer.from('SKSEAL01'))).toEqual(layout);
    expect(openSeal(withSeal((text) => text.replace('{"format":', '{,"format":')))).toMatchObject({
      problem: expect.stringMatching(/^its seal is not JSON/) as string,
    });
    expect(openSeal(withSeal((text) => text.replace('sisu-skills-index-trust/3', 'sisu-skills-index-trust/1')))).toEqual({
      problem: "its seal's statement is not a sisu-skills-index-trust/3 statement",
    });
    expect(openSeal(withSeal((text) => text.replace(/\n\[.*\]\n$/u, '\n[1]\n')))).toEqual({
      problem: "its seal's signatures are not { keyid, sig } entries",
    });
  });

  it('refuse an index changed after sealing, and too few trusted signatures', () => {
    for (let at = 0; at < CARRIED.start; at++) {
      const flipped = Buffer.from(SEALED);
      flipped[at] = (flipped[at] ?? 0) ^ 0x20;
      expect(checkSeal(opened(flipped), [keyPair(0).trusted], 1, CARRIED)).toBe(
        'was changed after it was sealed: its bytes do not hash to the ones its seal states',
      );
    }
    // Hashed without the carried manifests, the index is not the one sealed; nor is one whose manifests are said to lie elsewhere.
    expect(checkSeal(opened(SEALED), [keyPair(0).trusted], 1, undefined)).toMatch(/^was changed after it was sealed/);
    expect(checkSeal(opened(SEALED), [keyPair(0).trusted], 1, { start: CARRIED.start + 1, end: CARRIED.end })).toMatch(
      /^was changed after it was sealed/,
    );
    expect(checkSeal(opened(SEALED), [keyPair(0).trusted], 2, CARRIED)).toMatch(
      /^is sealed by 1 trusted key \(signatures by [0-9a-f]{12}, [0-9a-f]{12}\), fewer than the 2 required$/,
    );
    expect(checkSeal(opened(SEALED), [keyPair(2).trusted], 1, CARRIED)).toMatch(/^is sealed by 0 trusted keys/);
    // A statement edited (a later expiry) is no longer the one signed.
    const later = withSeal((text) => text.replace(/"expires":"[^"]*"/u, '"expires":"2999-01-01T00:00:00.000Z"'));
    expect(checkSeal(opened(later), [keyPair(0).trusted], 1, CARRIED)).toMatch(/^is sealed by 0 trusted keys/);
  });

  it('leave out a carried manifest that is not the one sealed, or a section that is not JSON', () => {
    const { statement } = opened(SEALED);
    const swapped = manifestsSection([{ ...PLACES[0]!, text: TEXT.replace('"version":1', '"version":2') }]);
    expect(Buffer.from(swapped).equals(Buffer.from(manifestsSection(PLACES)))).toBe(false);
    expect(sealedManifests(swapped, statement).has('skills')).toBe(false);
    // The carried manifests are not in the index's hash: one changed there passes the seal, and is left out here.
    for (let at = CARRIED.start; at < CARRIED.end; at += 5) {
      const flipped = Buffer.from(SEALED);
      flipped[at] = (flipped[at] ?? 0) ^ 0x01;
      const seal = opened(flipped);
      expect(checkSeal(seal, [keyPair(0).trusted], 1, CARRIED)).toBeUndefined();
      expect(sealedManifests(seal.indexBytes.subarray(CARRIED.start, CARRIED.end), statement).has('skills')).toBe(false);
    }
    expect(sealedManifests(Buffer.from('{oops'), statement).size).toBe(0);
    expect(sealedManifests(Buffer.from('null'), statement).size).toBe(0);
    expect(sealedManifests(undefined, statement).size).toBe(0);
  });
});

/**
 * The seal of a prebuilt index: it keeps the document one JSON document,
 * names the index's hash and each place's manifest, and is refused when its
 * layout, its statement, the index's text or its signatures are not as sealed.
 */
import { describe, expect, it } from 'vitest';
import { parseManifest, type ParsedManifest } from '../../src/trust/manifest.js';
import { checkSeal, openSeal, sealedManifests, sealIndex, type OpenedSeal } from '../../src/trust/seal.js';
import { keyPair, observed, signedManifest } from '../helpers/trust.js';

const INDEX = '{\n  "format": "sisu-skills-index",\n  "skills": [\n    {"name":"é"}\n  ]\n}\n';
const TEXT = signedManifest([observed('pdf', { 'SKILL.md': '---\nname: pdf\n---\n' })]);

function manifest(text: string): ParsedManifest {
  const read = parseManifest(text);
  if (!read.ok) throw new Error(read.message);
  return read.manifest;
}

function opened(text: string): OpenedSeal {
  const result = openSeal(text);
  if (!result || 'problem' in result) throw new Error('not opened');
  return result;
}

const SEALED = sealIndex(INDEX, [{ place: 'skills', text: TEXT, manifest: manifest(TEXT) }], [keyPair(0).signing, keyPair(1).signing]);

describe('sealIndex and openSeal', () => {
  it('seal a document that stays one JSON document, and give back the index as it was written', () => {
    expect(JSON.parse(SEALED)).toMatchObject({
      format: 'sisu-skills-index',
      trust: { statement: { format: 'sisu-skills-index-trust/1' } },
    });
    const seal = opened(SEALED);
    expect(seal.indexText).toBe(INDEX);
    expect(seal.statement.places).toEqual([expect.objectContaining({ place: 'skills', version: 1 })]);
    expect(checkSeal(seal, [keyPair(0).trusted, keyPair(1).trusted], 2)).toBeUndefined();
    expect(sealedManifests(seal).get('skills')).toBe(TEXT);
    expect(openSeal(INDEX)).toBeUndefined();
  });

  it('refuse a seal out of layout, not JSON, or with another statement', () => {
    const at = SEALED.indexOf(',"signatures":');
    expect(openSeal(`${SEALED.slice(0, at)}${SEALED.slice(at + 1)}`)).toEqual({
      problem: 'its seal is not in the layout `sisu-skills index --key` writes',
    });
    expect(openSeal(SEALED.replace('{"statement":{', '{"statement":{,'))).toMatchObject({
      problem: expect.stringMatching(/^its seal is not JSON/) as string,
    });
    expect(openSeal(SEALED.replace('sisu-skills-index-trust/1', 'other/1'))).toEqual({
      problem: "its seal's statement is not a sisu-skills-index-trust/1 statement",
    });
    expect(openSeal(SEALED.replace(/"signatures":\[[^\]]*\]/u, '"signatures":[1]'))).toEqual({
      problem: "its seal's signatures are not { keyid, sig } entries",
    });
  });

  it('refuse an index changed after sealing, and too few trusted signatures', () => {
    expect(checkSeal(opened(SEALED.replace('"skills"', '"skillz"')), [keyPair(0).trusted], 1)).toBe(
      'was changed after it was sealed: its text does not hash to the one its seal states',
    );
    expect(checkSeal(opened(SEALED), [keyPair(0).trusted], 2)).toMatch(
      /^is sealed by 1 trusted key \(signatures by [0-9a-f]{12}, [0-9a-f]{12}\), fewer than the 2 required$/,
    );
    expect(checkSeal(opened(SEALED), [keyPair(2).trusted], 1)).toMatch(/^is sealed by 0 trusted keys/);
  });

  it('leave out a carried manifest that is not the one sealed', () => {
    const member = SEALED.slice(SEALED.indexOf('"manifests": '));
    const swapped = SEALED.replace(member, member.replace('\\"version\\":1', '\\"version\\":2'));
    expect(swapped).not.toBe(SEALED);
    expect(sealedManifests(opened(swapped)).has('skills')).toBe(false);
    expect(sealedManifests({ ...opened(SEALED), manifestsText: '{oops' }).size).toBe(0);
  });
});

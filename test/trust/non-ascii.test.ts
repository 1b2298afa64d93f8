/**
 * A manifest read as bytes is read over their Latin-1 reading (trust/manifest.ts
 * manifestSource), and only paths outside ASCII are decoded from UTF-8: skill
 * folders and files named outside ASCII (one outside the Basic Multilingual
 * Plane) read the same as from the manifest's text, are served verified,
 * and an edit to one of them is still refused.
 */
import { describe, expect, it } from 'vitest';
import { checkFile, checkHead, TrustGate } from '../../src/trust/gate.js';
import { parseManifest } from '../../src/trust/manifest.js';
import { folderPlace, sign, TAMPERED, trustedSession, type Call } from '../helpers/tamper.js';
import { hex, keyPair, observed, signedManifest } from '../helpers/trust.js';

const HEAD = '---\nname: cafe\ndescription: Café menus. Use for café work.\n---\n';
const SKILLS = [
  observed('a-plain', { 'SKILL.md': '---\nname: a\n---\nA.\n', 'ref.md': 'a' }),
  observed('café/über', { 'SKILL.md': `${HEAD}Crème brûlée.\n`, 'références/guide.md': 'é', '😀/ünï.md': 'x', 'z.md': 'z' }, HEAD),
  observed('zeta', { 'SKILL.md': '---\nname: z\n---\nZ.\n', 'ñ.md': 'n' }),
];

describe('a manifest outside ASCII, read as bytes', () => {
  it('reads the same entries, file lists and body as its text, with and without a byte order mark', () => {
    const text = signedManifest(SKILLS);
    const fromText = parseManifest(text);
    if (!fromText.ok) throw new Error(fromText.message);
    for (const bytes of [Buffer.from(text), Buffer.concat([Buffer.of(0xef, 0xbb, 0xbf), Buffer.from(text)])]) {
      const read = parseManifest(bytes);
      if (!read.ok) throw new Error(read.message);
      const entries = read.manifest.body.skills.map(({ path, digest, frontmatter, files }) => ({ path, digest, frontmatter, files }));
      const expected = fromText.manifest.body.skills.map(({ path, digest, frontmatter, files }) => ({ path, digest, frontmatter, files }));
      expect(entries).toEqual(expected);
      expect(entries.map((entry) => entry.path)).toEqual(['a-plain', 'café/über', 'zeta']);
      expect(entries[1]?.files.map(([path]) => path)).toEqual(['SKILL.md', 'références/guide.md', 'z.md', '😀/ünï.md']);
      expect(read.manifest.bodyText).toBe(fromText.manifest.bodyText);
      expect(Buffer.from(read.manifest.bodyBytes ?? []).equals(Buffer.from(fromText.manifest.bodyText))).toBe(true);
    }
  });

  it('admits it through the gate: heads and files checked by their names, the text carried as it was, one parse while unchanged', async () => {
    const text = signedManifest(SKILLS);
    const gate = new TrustGate({ keys: [keyPair(0).trusted], threshold: 1, now: () => Date.UTC(2026, 0, 2) });
    const first = await gate.admit('/lib', Buffer.from(text));
    if (!first.ok) throw new Error(first.message);
    expect(checkHead(first.accepted, 'café/über', hex(HEAD))).toBeUndefined();
    expect(checkHead(first.accepted, 'café/über', hex('---\n'))).toMatchObject({ kind: 'frontmatter' });
    expect(checkFile(first.accepted, 'café/über', '😀/ünï.md', 'x')).toBeUndefined();
    expect(checkFile(first.accepted, 'café/über', '😀/ünï.md', 'y')).toMatchObject({ kind: 'changed' });
    expect(checkFile(first.accepted, 'zeta', 'ñ.md', 'n')).toBeUndefined();
    const again = await gate.admit('/lib', Buffer.from(text));
    expect(again.ok && again.accepted).toBe(first.accepted);
    expect(gate.acceptedPlaces()).toEqual([{ place: '/lib', text, manifest: first.accepted.manifest }]);
  });

  it('refuses bytes that are not UTF-8, past the first byte outside ASCII', () => {
    const bytes = Buffer.from(signedManifest(SKILLS));
    const at = bytes.indexOf(Buffer.from('ñ'));
    bytes[at + 1] = 0x28;
    const read = parseManifest(bytes);
    expect(read).toMatchObject({ ok: false, code: 'MANIFEST_INVALID', message: expect.stringMatching(/^is not UTF-8 text/) as string });
  });
});

describe('a folder library named outside ASCII, under trust', () => {
  const PROBES: Call[] = [
    { tool: 'use_skill', args: { skill_name: 'cafe' } },
    { tool: 'read_skill_resource', args: { skill_name: 'cafe', path: 'références/guide.md' } },
    { tool: 'read_skill_resource', args: { skill_name: 'cafe', path: '😀/ünï.md' } },
  ];

  it('serves it verified, and refuses the file edited after signing', async () => {
    const place = await folderPlace();
    await place.write('café/über/SKILL.md', `${HEAD}Crème brûlée.\n`);
    await place.write('café/über/références/guide.md', 'GUIDE-é\n');
    await place.write('café/über/😀/ünï.md', 'SMILE-ü\n');
    await sign(place);
    const live = trustedSession(place);
    const turn = await live.turn('hello', PROBES);
    expect(turn.skills).toEqual(['alpha', 'beta', 'cafe', 'gamma']);
    expect(turn.answers[0]).toContain('Crème brûlée.');
    expect(turn.answers[1]).toContain('GUIDE-é');
    expect(turn.answers[2]).toContain('SMILE-ü');
    expect(live.diagnostics).toEqual([]);
    await place.write('café/über/😀/ünï.md', `${TAMPERED}\n`);
    const after = await live.turn('hello', PROBES);
    expect(after.answers[2]).not.toContain(TAMPERED);
    expect(after.answers[1]).toContain('GUIDE-é');
    expect(live.diagnostics).toEqual([expect.stringMatching(/^UNTRUSTED_SKILL .*ünï\.md$/)]);
  });
});

/**
 * The reader of the layout `sign` writes (trust/canonical-skills.ts) against
 * the general reader (any JSON spelling, each rule one by one): a manifest
 * reads the same through either, every refusal says the same words in both
 * layouts, and whatever the quick reader accepts after random edits, the
 * rules accept too, with the same entries. Nothing is admitted that the
 * rules would refuse.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readCanonicalSkills } from '../../src/trust/canonical-skills.js';
import { parseManifest, serializeBody, serializeManifest, type ManifestBody, type ManifestSkill } from '../../src/trust/manifest.js';
import { signBody } from '../../src/trust/sign.js';
import { hex, keyPair, observed, signedManifest } from '../helpers/trust.js';

const H = hex('x');
const DIGEST = `sha256-${'A'.repeat(43)}`;
const SKILL = { path: 'pdf', digest: DIGEST, frontmatter: H, files: [['SKILL.md', 1, H]] };
const BODY = { format: 'sisu-skills-manifest/1', version: 1, created: '2026-01-01T00:00:00.000Z', expires: '2026-02-01T00:00:00.000Z' };

const signed = (bodyText: string) => serializeManifest(bodyText, [signBody(bodyText, keyPair().signing)]);
/** The body as `sign` lays it out (one skill a line): the quick reader's layout. */
const canonical = (skills: unknown[]) => signed(serializeBody({ ...BODY, skills } as unknown as ManifestBody));
/** The same body on one line: only the general reader reads it. */
const oneLine = (skills: unknown[]) => signed(JSON.stringify({ ...BODY, skills }));

/** An entry as plain data (a quick reader's entry decodes its files when asked). */
const plainEntry = ({ path, digest, frontmatter, files }: ManifestSkill) => ({ path, digest, frontmatter, files });

function outcome(text: string): string {
  const read = parseManifest(text);
  return read.ok ? 'ok' : `${read.code}: ${read.message}`;
}

/** SKILL.md and `entry`, sorted by path: only the entry itself is wrong. */
const file = (entry: [string, ...unknown[]]) => [
  { ...SKILL, files: entry[0] < 'SKILL.md' ? [entry, ['SKILL.md', 1, H]] : [['SKILL.md', 1, H], entry] },
];
const skill = (change: Record<string, unknown>) => [{ ...SKILL, ...change }];

const HOSTILE: Array<[string, unknown[]]> = [
  ['a skill path with ..', skill({ path: '../etc' })],
  ['an absolute skill path', skill({ path: '/etc/skills' })],
  ['an s3:// skill path', skill({ path: 's3://bucket/pdf' })],
  ['a drive', skill({ path: 'C:/skills' })],
  ['a backslash', skill({ path: 'a\\b' })],
  ['a control character', skill({ path: 'a\u0001b' })],
  ['an empty path', skill({ path: '' })],
  ['a path too long', skill({ path: 'a'.repeat(1025) })],
  ['a short frontmatter hash', skill({ frontmatter: 'abc' })],
  ['an uppercase hash', skill({ frontmatter: H.toUpperCase() })],
  ['a hex digest', skill({ digest: `sha256:${H}` })],
  ['no files', skill({ files: [] })],
  ['no SKILL.md', skill({ files: [['a.md', 1, H]] })],
  ['a file path with ..', file(['../../x', 1, H])],
  ['an s3:// file path', file(['s3://b/k', 1, H])],
  ['an absolute file path', file(['/etc/passwd', 1, H])],
  ['a file path of .', file(['.', 1, H])],
  ['a doubled /', file(['a//b.md', 1, H])],
  ['a negative size', file(['b.md', -1, H])],
  ['a fractional size', file(['b.md', 1.5, H])],
  ['a size past 2^53', file(['b.md', 2 ** 60, H])],
  ['a 63-character hash', file(['b.md', 1, H.slice(1)])],
  ['a 65-character hash', file(['b.md', 1, `${H}0`])],
  [
    'a duplicate file',
    skill({
      files: [
        ['SKILL.md', 1, H],
        ['SKILL.md', 2, H],
      ],
    }),
  ],
  [
    'files out of order',
    skill({
      files: [
        ['b.md', 1, H],
        ['SKILL.md', 1, H],
      ],
    }),
  ],
  ['a duplicate skill', [SKILL, SKILL]],
  ['skills out of order', [SKILL, { ...SKILL, path: 'a' }]],
];

/** When the quick reader accepted `lines` (`quick`), they are JSON the rules accept, and read the same. */
function acceptedAsRulesAccept(quick: ManifestSkill[] | undefined, lines: string): void {
  if (!quick) return;
  const general = parseManifest(oneLine(JSON.parse(`[${lines}]`) as unknown[]));
  expect(general.ok).toBe(true);
  if (general.ok) expect(quick.map(plainEntry)).toEqual(general.manifest.body.skills);
}

describe('the layout sign writes, read in one pass', () => {
  it("reads a signed library as the general reader does, and decodes a skill's files only when asked", () => {
    const skills = [
      observed('pdf', { 'SKILL.md': '---\nname: pdf\n---\nPDF.\n', 'scripts/fill.py': 'print(1)\n', 'é/ü b.md': 'x' }),
      observed('docs/review', { 'SKILL.md': '---\nname: review\n---\nReview.\n' }),
      observed('a"quote', { 'SKILL.md': '---\nname: q\n---\nQ.\n', '😀.md': 'x' }),
    ];
    const text = signedManifest(skills);
    const read = parseManifest(text);
    if (!read.ok) throw new Error(read.message);
    const general = JSON.parse(read.manifest.bodyText) as ManifestBody;
    expect(read.manifest.body).toEqual(general);
    const lines = read.manifest.bodyText.split('\n');
    // A path with a `"` (escaped in JSON) or past U+FFFF is not in the quick reader's spelling: the general one reads it all.
    expect(readCanonicalSkills(lines.slice(1, -1).join('\n'))).toBeUndefined();
    const plain = lines.slice(1, -1).filter((line) => !line.includes('\\"'));
    plain[plain.length - 1] = (plain[plain.length - 1] ?? '').replace(/,$/, '');
    const quick = readCanonicalSkills(plain.join('\n'));
    expect(quick?.map((entry) => entry.path)).toEqual(['docs/review', 'pdf']);
    expect(quick?.[1]?.files).toEqual(general.skills.find((entry) => entry.path === 'pdf')?.files);
    expect(quick?.[1]?.files).toBe(quick?.[1]?.files);
  });

  it('reads a body of no skill lines as empty, and leaves a line it cannot read whole to the general reader', () => {
    const none = parseManifest(canonical([]));
    expect(none.ok && none.manifest.body.skills).toEqual([]);
    const lines = serializeBody({ ...BODY, skills: [SKILL, { ...SKILL, path: 'zz' }] } as unknown as ManifestBody).split('\n');
    const inner = lines.slice(1, -1).join('\n');
    expect(readCanonicalSkills(inner)?.map((entry) => entry.path)).toEqual(['pdf', 'zz']);
    // An empty line, a line left without its comma, a comma after the last line: not the layout sign writes.
    for (const broken of [`${inner}\n`, inner.replace(',\n', '\n'), `${inner},`, inner.replace(']}', ']}x')])
      expect(readCanonicalSkills(broken)).toBeUndefined();
  });

  it.each(HOSTILE)('refuses %s with the same words in either layout', (_, skills) => {
    const said = outcome(canonical(skills));
    expect(said).toMatch(/^MANIFEST_INVALID: /);
    expect(said).toBe(outcome(oneLine(skills)));
  });

  it('accepts after random edits only what the rules accept, with the same entries, from text or over bytes', () => {
    const lines = serializeBody({
      ...BODY,
      skills: [
        {
          path: 'a',
          digest: DIGEST,
          frontmatter: H,
          files: [
            ['SKILL.md', 12, H],
            ['scripts/x.sh', 0, H],
          ],
        },
        { path: 'b/c', digest: DIGEST, frontmatter: H, files: [['SKILL.md', 3, H]] },
      ],
    } as ManifestBody).split('\n');
    const inner = lines.slice(1, -1);
    const pieces = ['"', '\\', '/', '.', '..', ',', '[', ']', ':', '0', '9', '-', 'a', '\u0001', '\u{1F600}', 'é', 'SKILL.md', '', ' '];
    const edit = fc.record({
      line: fc.nat({ max: inner.length - 1 }),
      at: fc.nat(),
      cut: fc.nat({ max: 3 }),
      piece: fc.constantFrom(...pieces),
    });
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: 3 }), (edits) => {
        const edited = [...inner];
        for (const { line, at, cut, piece } of edits) {
          const text = edited[line] ?? '';
          const where = at % (text.length + 1);
          edited[line] = text.slice(0, where) + piece + text.slice(where + cut);
        }
        const text = edited.join('\n');
        acceptedAsRulesAccept(readCanonicalSkills(text), text);
        // The same lines as bytes, read over their Latin-1 reading (a manifest read from a file): held to their UTF-8 text.
        const bytes = Buffer.from(text);
        const latin1 = bytes.toString('latin1');
        const overBytes = readCanonicalSkills(latin1, 0, latin1.length, (start, end) => bytes.toString('utf8', start, end));
        acceptedAsRulesAccept(overBytes, bytes.toString('utf8'));
      }),
      { numRuns: 3000 },
    );
  });
});

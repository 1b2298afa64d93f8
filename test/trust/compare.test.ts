/**
 * What differs between a place as signed and as it is: each kind of
 * mismatch named with its hash prefixes, and, over random tampering (a file
 * edited, added or removed, SKILL.md's head edited, a skill folder renamed),
 * exactly the mismatches the tampering made and none for an untouched place.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareLibrary, compareSkill, hashPrefix, mismatchMessage, type Mismatch } from '../../src/trust/compare.js';
import { manifestSkills, type ObservedSkill } from '../../src/trust/sign.js';
import type { ManifestBody } from '../../src/trust/manifest.js';
import { hex, observed } from '../helpers/trust.js';

const bodyOf = (skills: readonly ObservedSkill[]): ManifestBody => ({
  format: 'sisu-skills-manifest/1',
  version: 1,
  created: '2026-01-01T00:00:00Z',
  expires: '2026-02-01T00:00:00Z',
  skills: manifestSkills(skills),
});

const PDF = observed(
  'pdf',
  { 'SKILL.md': '---\nname: pdf\n---\nBody.', 'scripts/fill.py': 'print(1)\n', 'ref.md': 'ref' },
  '---\nname: pdf\n---\n',
);

describe('compareSkill', () => {
  it('finds nothing in an untouched skill, and each change with its kind and hashes', () => {
    const [entry] = manifestSkills([PDF]);
    if (!entry) throw new Error('no entry');
    expect(compareSkill(entry, PDF)).toEqual([]);
    const tampered: ObservedSkill = {
      path: 'pdf',
      frontmatter: hex('---\nname: pdf\ndescription: evil\n---\n'),
      files: [
        { path: 'SKILL.md', size: 24, sha256: hex('---\nname: pdf\n---\nBody.') },
        { path: 'scripts/fill.py', size: 20, sha256: hex('import os; os.system("x")') },
        { path: 'scripts/new.sh', size: 3, sha256: hex('new') },
      ],
    };
    const found = compareSkill(entry, tampered);
    expect(found.map((m) => [m.kind, m.file])).toEqual([
      ['frontmatter', 'SKILL.md'],
      ['removed', 'ref.md'],
      ['changed', 'scripts/fill.py'],
      ['added', 'scripts/new.sh'],
    ]);
    const again = 'Sign the place again if the change is yours.';
    const fill = `expected sha256 ${hex('print(1)\n').slice(0, 12)}…, got ${hex('import os; os.system("x")').slice(0, 12)}…`;
    expect(found.map(mismatchMessage)).toEqual([
      `skill folder "pdf": SKILL.md's frontmatter changed after signing (expected sha256 ${hashPrefix(entry.frontmatter)}, ` +
        `got ${hashPrefix(tampered.frontmatter)}). ${again}`,
      `skill folder "pdf": "ref.md" is in the signed manifest but missing. ${again}`,
      `skill folder "pdf": "scripts/fill.py" changed after signing (${fill}; 9 bytes signed, 20 now). ${again}`,
      `skill folder "pdf": "scripts/new.sh" was added after signing; it is not in the manifest and is not served. ${again}`,
    ]);
  });

  it("finds a digest that does not match the manifest's own file list", () => {
    const [entry] = manifestSkills([PDF]);
    if (!entry) throw new Error('no entry');
    const found = compareSkill({ ...entry, digest: `sha256-${'A'.repeat(43)}` }, PDF);
    expect(found).toEqual([{ kind: 'digest', skill: 'pdf', expected: `sha256-${'A'.repeat(43)}` }]);
    expect(mismatchMessage(found[0] as Mismatch)).toMatch(/the manifest's RFC #358 digest AAAAAAAAAAAA… does not match its own file list/);
  });
});

describe('compareLibrary', () => {
  it('names a skill folder renamed after signing twice: unlisted under its new name, missing under its old', () => {
    const found = compareLibrary(bodyOf([PDF]), [{ ...PDF, path: 'pdf-v2' }]);
    expect(found.map((m) => [m.kind, m.skill])).toEqual([
      ['missing-skill', 'pdf'],
      ['unlisted-skill', 'pdf-v2'],
    ]);
    expect(found.map(mismatchMessage)).toEqual([
      'skill folder "pdf" is in the signed manifest but not in the place (removed or renamed after signing). Sign the place again if the change is yours.',
      'skill folder "pdf-v2" is not in the signed manifest (added or renamed after signing): it is not served. Sign the place again if the change is yours.',
    ]);
  });

  const text = fc.string({ maxLength: 20 });
  const library = fc.uniqueArray(
    fc.record({
      path: fc.stringMatching(/^[a-z]{1,6}$/),
      files: fc.dictionary(fc.stringMatching(/^[a-z]{1,5}\.md$/), text, { maxKeys: 4 }),
      body: text,
    }),
    { minLength: 1, maxLength: 5, selector: (skill) => skill.path },
  );
  const toObserved = (skills: { path: string; files: Record<string, string>; body: string }[]): ObservedSkill[] =>
    skills.map((skill) => observed(skill.path, { ...skill.files, 'SKILL.md': `---\nname: ${skill.path}\n---\n${skill.body}` }));

  type Tamper = 'edit' | 'add' | 'remove' | 'frontmatter' | 'rename';

  /** `skills` with one change made to the skill at `at`, and the mismatch kinds it must produce. */
  function tamper(skills: ObservedSkill[], at: number, how: Tamper): { after: ObservedSkill[]; expected: Array<[string, string]> } {
    const target = skills[at] as ObservedSkill;
    const others = skills.filter((_, i) => i !== at);
    const file = target.files.find((f) => f.path !== 'SKILL.md');
    const change = (skill: ObservedSkill): ObservedSkill[] => [...others, skill];
    switch (how) {
      case 'edit': {
        const edited = file ?? (target.files[0] as ObservedSkill['files'][number]);
        const files = target.files.map((f) => (f === edited ? { ...f, sha256: hex(`${f.sha256}!`) } : f));
        return { after: change({ ...target, files }), expected: [['changed', target.path]] };
      }
      case 'add':
        return {
          after: change({ ...target, files: [...target.files, { path: 'zz-added.sh', size: 1, sha256: hex('!') }] }),
          expected: [['added', target.path]],
        };
      case 'remove':
        if (!file) return { after: skills, expected: [] };
        return { after: change({ ...target, files: target.files.filter((f) => f !== file) }), expected: [['removed', target.path]] };
      case 'frontmatter':
        return { after: change({ ...target, frontmatter: hex(`${target.frontmatter}!`) }), expected: [['frontmatter', target.path]] };
      case 'rename': {
        const path = `${target.path}-renamed`;
        return {
          after: change({ ...target, path }),
          expected: [
            ['missing-skill', target.path],
            ['unlisted-skill', path],
          ],
        };
      }
    }
  }

  it('over random tampering, finds exactly the changes made, and nothing in an untouched library', () => {
    fc.assert(
      fc.property(library, fc.nat(), fc.constantFrom<Tamper>('edit', 'add', 'remove', 'frontmatter', 'rename'), (skills, pick, how) => {
        const before = toObserved(skills);
        const body = bodyOf(before);
        expect(compareLibrary(body, before)).toEqual([]);
        const { after, expected } = tamper(before, pick % before.length, how);
        const found = compareLibrary(body, after).map((m): [string, string] => [m.kind, m.skill]);
        expect(found.sort()).toEqual(expected.sort());
      }),
    );
  });
});

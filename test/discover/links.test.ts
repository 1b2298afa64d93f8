/**
 * Symbolic link structures: each real folder is listed (and each SKILL.md
 * read) once whatever the number of paths to it; links the system will not
 * follow are reported once, as what they are; an alias never decides a
 * skill's folder name.
 */
import { mkdir, symlink } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { discover } from '../../src/discover/discover.js';
import { discoverSkills } from '../../src/discover/with-storage.js';
import { scanDirectory } from '../../src/discover/scan.js';
import { resolveOptions } from '../../src/config/resolve.js';
import { cleanup, faultyFs, makeTempTree, skillMd, type Tree } from './helpers.js';

const roots: string[] = [];
afterEach(async () => {
  for (const root of roots.splice(0)) await cleanup(root);
});

const count = (calls: readonly string[], method: string): number => calls.filter((call) => call.startsWith(`${method} `)).length;

/**
 * `levels` folders /store/L0.. in a row, each holding `fanOut` links to the
 * next, the last holding skill `deep`; /r holds `fanOut` links to L0. There
 * are fanOut^(levels+1) paths to the skill and levels + 3 real folders.
 */
function fanOutTree(levels: number, fanOut: number): ReturnType<typeof faultyFs> {
  const made = faultyFs({ [`/store/L${levels - 1}/deep/SKILL.md`]: skillMd('deep'), '/r/.keep': '' });
  for (let level = 0; level < levels; level++) {
    made.volume.mkdirSync(`/store/L${level}`, { recursive: true });
    for (let i = 0; i < fanOut; i++) {
      if (level + 1 < levels) made.volume.symlinkSync(`/store/L${level + 1}`, `/store/L${level}/l${i}`);
      if (level === 0) made.volume.symlinkSync('/store/L0', `/r/l${i}`);
    }
  }
  return made;
}

describe('links that fan out', () => {
  it('lists each real folder once, however many paths lead to it', async () => {
    // 4^5 = 1,024 paths to the skill; each of the 7 real folders is listed once (the walk used to list every path).
    const { fs, calls } = fanOutTree(4, 4);
    const result = await scanDirectory(fs, '/r');
    expect(result.skills.map((s) => [s.directory, s.realDirectory])).toEqual([['/r/l0/l0/l0/l0/deep', '/store/L3/deep']]);
    expect(result.diagnostics).toEqual([]);
    expect(count(calls, 'readdir')).toBe(6);
    // One realpath per link entry of a folder listed once (4 in /r, 4 in each of L0..L2), and the root's.
    expect(count(calls, 'realpath')).toBe(1 + 4 * 4);
  });

  it('reads each SKILL.md of a folder reached through many links once', async () => {
    // Scaled down from 1,000 links to a category of 50 skills (see the stress script for full size).
    const tree: Tree = {};
    for (let s = 0; s < 20; s++)
      tree[`/store/category/s${String(s).padStart(2, '0')}/SKILL.md`] = skillMd(`s${String(s).padStart(2, '0')}`);
    const { fs, volume, calls } = faultyFs({ ...tree, '/r/.keep': '' });
    for (let i = 0; i < 100; i++) volume.symlinkSync('/store/category', `/r/link-${String(i).padStart(3, '0')}`);
    for (const lazy of [false, true]) {
      calls.length = 0;
      const result = await discover(resolveOptions({ directories: ['/r'], fs }), { frontmatterOnly: lazy });
      expect(result.skills).toHaveLength(20);
      expect(result.skills[0]?.directory).toBe('/r/link-000/s00');
      expect(result.warnings).toEqual([]);
      // Eager discovery reads with readFile; lazy reads heads through open().
      expect(count(calls, lazy ? 'open' : 'readFile')).toBe(20);
      expect(calls.filter((call) => call.startsWith('readdir') && call.endsWith('/s07'))).toHaveLength(1);
    }
  });

  it('scans a folder reached through two aliases once, and keeps it at the first path in tree order', async () => {
    const { fs, volume, calls } = faultyFs({
      '/store/shared/SKILL.md': skillMd('shared'),
      '/store/shared/sub/inner/SKILL.md': skillMd('inner'),
    });
    volume.mkdirSync('/r');
    volume.symlinkSync('/store/shared', '/r/b-alias');
    volume.symlinkSync('/store/shared', '/r/a-alias');
    const result = await scanDirectory(fs, '/r');
    expect(result.skills.map((s) => s.directory)).toEqual(['/r/a-alias', '/r/a-alias/sub/inner']);
    expect(calls.filter((call) => call.startsWith('readdir') && call.endsWith('/sub'))).toHaveLength(1);
    expect(calls.filter((call) => call.startsWith('readdir') && call.endsWith('/inner'))).toHaveLength(1);
  });
});

describe('links the system will not follow (ELOOP)', () => {
  it.skipIf(process.platform === 'win32')('reports a 200-link chain once, as a chain, and loads the folder it ends at', async () => {
    const root = await makeTempTree({ 'store/target/SKILL.md': skillMd('target') });
    roots.push(root);
    const skills = join(root, 'skills');
    await mkdir(skills);
    const name = (i: number): string => `link-${String(i).padStart(3, '0')}`;
    await symlink(join(root, 'store/target'), join(skills, name(199)));
    for (let i = 0; i < 199; i++) await symlink(name(i + 1), join(skills, name(i)));
    const result = await discoverSkills({ directories: [skills] });
    expect(result.skills.map((s) => s.metadata.name)).toEqual(['target']);
    // Linux follows 40 links in a row, macOS 32: the links further from the end are refused.
    expect(result.warnings.map((w) => [w.code, relative(skills, w.file)])).toEqual([['SYMLINK_CHAIN_TOO_LONG', name(0)]]);
    const message = result.warnings[0]?.message ?? '';
    expect(message).toMatch(/^1[56]\d symbolic links skipped \(.*link-000, .*link-001, .*link-002, \.\.\.\): they lead to /);
    expect(message).toContain(`${join(root, 'store/target')} through more symbolic links in a row than the system follows`);
  });

  it.skipIf(process.platform === 'win32')('reports a cycle once, with the links leading into it', async () => {
    const root = await makeTempTree({ 'skills/good/SKILL.md': skillMd('good') });
    roots.push(root);
    const skills = join(root, 'skills');
    await symlink('b', join(skills, 'a'));
    await symlink('c', join(skills, 'b'));
    await symlink('a', join(skills, 'c'));
    await symlink('b', join(skills, 'x-into-cycle'));
    const result = await discoverSkills({ directories: [skills] });
    expect(result.skills.map((s) => s.metadata.name)).toEqual(['good']);
    expect(result.warnings.map((w) => [w.code, relative(skills, w.file)])).toEqual([['SYMLINK_LOOP', 'a']]);
    const [a, b, c] = ['a', 'b', 'c'].map((n) => join(skills, n));
    expect(result.warnings[0]?.message).toBe(
      `4 symbolic links skipped (${a}, ${b}, ${c}, ...): they lead into a cycle of symbolic ` +
        `links (${a} -> ${b} -> ${c} -> ${a}). Remove or repoint one link of the cycle.`,
    );
  });

  it('says what it can when the filesystem cannot read links', async () => {
    // The test filesystem has no readlink(), which is optional.
    const { fs, volume } = faultyFs({ '/r/.keep': '' });
    expect(fs.readlink).toBeUndefined();
    volume.symlinkSync('/r/self', '/r/self');
    const result = await scanDirectory(fs, '/r');
    expect(result.diagnostics.map((d) => [d.code, d.file])).toEqual([['SYMLINK_LOOP', '/r/self']]);
    expect(result.diagnostics[0]?.message).toContain(
      'too many levels of symbolic links (a cycle of symbolic links, or a chain longer than the system follows)',
    );
  });
});

describe('folder names through aliases', () => {
  it('judges the folder-name rule by the real folder, not the link that reached it (strict)', async () => {
    const { fs, volume } = faultyFs({ '/store/my-skill/SKILL.md': skillMd('my-skill') });
    volume.mkdirSync('/r');
    volume.symlinkSync('/store/my-skill', '/r/aaa-alias');
    const result = await discoverSkills({ directories: ['/r'], fs, strict: true });
    expect(result.skills.map((s) => [s.metadata.name, s.directory])).toEqual([['my-skill', '/r/aaa-alias']]);
    expect(result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);
  });

  it('filters by the alias, the real folder name or the declared name alike', async () => {
    const { fs, volume } = faultyFs({ '/store/my-skill/SKILL.md': skillMd('my-skill') });
    volume.mkdirSync('/r');
    volume.symlinkSync('/store/my-skill', '/r/aaa-alias');
    for (const pattern of ['aaa-*', 'my-*']) {
      expect((await discoverSkills({ directories: ['/r'], fs, exclude: [pattern] })).skills).toEqual([]);
      expect((await discoverSkills({ directories: ['/r'], fs, include: [pattern] })).skills).toHaveLength(1);
    }
  });
});

import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { discover } from '../../src/discover/discover.js';
import { discoverSkills } from '../../src/discover/with-storage.js';
import { SkillsConfigError } from '../../src/config/errors.js';
import { resolveOptions } from '../../src/config/resolve.js';
import type { DiscoveryResult, SkillEntry } from '../../src/base/model.js';
import { cleanup, faultyFs, link, makeTempTree, skillMd, writeTree } from './helpers.js';

const FIXTURES_INVALID = resolve(__dirname, '../../fixtures/invalid');

let root: string;

beforeEach(async () => {
  root = await makeTempTree();
});

afterEach(async () => {
  await cleanup(root);
});

function names(result: DiscoveryResult<SkillEntry>): string[] {
  return result.skills.map((skill) => skill.metadata.name);
}

function codes(result: DiscoveryResult, kind: 'errors' | 'warnings'): string[] {
  return result[kind].map((d) => d.code);
}

describe('discoverSkills: folders', () => {
  it('loads a flat collection in name order, with instructions and paths', async () => {
    await writeTree(root, {
      'skills/zeta/SKILL.md': skillMd('zeta'),
      'skills/alpha/SKILL.md': skillMd('alpha'),
      'skills/mid/SKILL.md': skillMd('mid'),
      'skills/README.md': '# not a skill',
    });
    const result = await discoverSkills({ directories: [join(root, 'skills')] });
    expect(names(result)).toEqual(['alpha', 'mid', 'zeta']);
    expect(result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);
    expect(result.scannedDirectories).toEqual([join(root, 'skills')]);
    const alpha = result.skills[0];
    expect(alpha?.path).toBe(join(root, 'skills/alpha/SKILL.md'));
    expect(alpha?.directory).toBe(join(root, 'skills/alpha'));
    expect(alpha?.instructions).toBe('# alpha\n\nSteps for alpha.\n');
    expect(alpha?.metadata.description).toBe('Does alpha things. Use when asked about alpha.');
    expect(alpha?.resources).toEqual([]);
  });

  it('loads a configured directory that is itself a skill', async () => {
    await writeTree(root, { 'solo/SKILL.md': skillMd('solo'), 'solo/scripts/run.sh': 'echo hi\n' });
    const result = await discoverSkills({ directory: join(root, 'solo') });
    expect(names(result)).toEqual(['solo']);
    expect(result.skills[0]?.resources.map((r) => r.path)).toEqual(['scripts/run.sh']);
  });

  it('finds skills in category folders and nested skills inside skills', async () => {
    await writeTree(root, {
      'docs/pdf/SKILL.md': skillMd('pdf'),
      'docs/pdf/reference.md': 'ref',
      'docs/pdf/forms/SKILL.md': skillMd('forms'),
      'docs/pdf/forms/guide.md': 'guide',
      'media/images/resize/SKILL.md': skillMd('resize'),
      'top/SKILL.md': skillMd('top'),
    });
    const result = await discoverSkills({ directories: [root] });
    expect(names(result)).toEqual(['pdf', 'forms', 'resize', 'top']);
    // The nested skill's files belong to it, not to its parent.
    expect(result.skills[0]?.resources.map((r) => r.path)).toEqual(['reference.md']);
    expect(result.skills[1]?.resources.map((r) => r.path)).toEqual(['guide.md']);
  });

  it("looks for no skill in a skill's scripts/, references/ and assets/ folders: a SKILL.md there is a resource", async () => {
    await writeTree(root, {
      'pdf/SKILL.md': skillMd('pdf'),
      'pdf/references/SKILL.md': skillMd('references'),
      'pdf/references/forms/SKILL.md': skillMd('forms'),
      'pdf/scripts/tool/SKILL.md': skillMd('tool'),
      'pdf/assets/deep/er/SKILL.md': skillMd('er'),
      'pdf/extras/nested/SKILL.md': skillMd('nested'),
      // Outside a skill these names are ordinary category folders.
      'references/guide/SKILL.md': skillMd('guide'),
    });
    for (const frontmatterOnly of [false, true]) {
      const result = await discover(resolveOptions({ directories: [root] }), { frontmatterOnly });
      expect(names(result)).toEqual(['pdf', 'nested', 'guide']);
      expect(result.errors).toEqual([]);
    }
    const eager = await discoverSkills({ directories: [root] });
    expect(eager.skills[0]?.resources.map((r) => r.path)).toEqual([
      'assets/deep/er/SKILL.md',
      'references/SKILL.md',
      'references/forms/SKILL.md',
      'scripts/tool/SKILL.md',
    ]);
  });

  it('skips dot-folders and node_modules', async () => {
    await writeTree(root, {
      'ok/SKILL.md': skillMd('ok'),
      '.hidden/SKILL.md': skillMd('hidden'),
      '.git/x/SKILL.md': skillMd('x'),
      'node_modules/pkg/SKILL.md': skillMd('pkg'),
      'ok/node_modules/dep/index.js': 'x',
      'ok/.cache/data': 'x',
    });
    const result = await discoverSkills({ directories: [root] });
    expect(names(result)).toEqual(['ok']);
    expect(result.skills[0]?.resources).toEqual([]);
  });

  it('loads a symlinked skill folder, and a folder reached through two links once', async () => {
    await writeTree(root, { 'store/shared/SKILL.md': skillMd('shared'), 'store/shared/notes.md': 'n' });
    await link(join(root, 'store/shared'), join(root, 'skills/a-link/shared'));
    await link(join(root, 'store/shared'), join(root, 'skills/b-link/shared'));
    const result = await discoverSkills({ directories: [join(root, 'skills')] });
    expect(names(result)).toEqual(['shared']);
    expect(result.skills[0]?.directory).toBe(join(root, 'skills/a-link/shared'));
    expect(result.skills[0]?.resources.map((r) => r.path)).toEqual(['notes.md']);
    expect(result.warnings).toEqual([]);
  });

  it('loads a folder once when two configured directories overlap', async () => {
    await writeTree(root, { 'outer/inner/one/SKILL.md': skillMd('one') });
    const result = await discoverSkills({ directories: [join(root, 'outer/inner'), join(root, 'outer')] });
    expect(names(result)).toEqual(['one']);
    expect(result.warnings).toEqual([]);
  });

  it('survives a symlink loop and a broken symlink', async () => {
    await writeTree(root, { 'skills/good/SKILL.md': skillMd('good') });
    await link(join(root, 'skills'), join(root, 'skills/good/back-to-top'));
    await link(join(root, 'nowhere'), join(root, 'skills/broken'));
    await link(join(root, 'skills/self'), join(root, 'skills/self'));
    const result = await discoverSkills({ directories: [join(root, 'skills')] });
    expect(names(result)).toEqual(['good']);
    expect(result.errors).toEqual([]);
    // Each link once, though the scan and the resource listing both meet back-to-top.
    expect(result.warnings.map((w) => [w.code, w.file]).sort()).toEqual([
      ['SYMLINK_BROKEN', join(root, 'skills/broken')],
      ['SYMLINK_LOOP', join(root, 'skills/good/back-to-top')],
      ['SYMLINK_LOOP', join(root, 'skills/self')],
    ]);
  });

  it('warns about a missing directory and still scans the others', async () => {
    await writeTree(root, { 'skills/ok/SKILL.md': skillMd('ok') });
    const missing = join(root, 'missing');
    const result = await discoverSkills({ directories: [missing, join(root, 'skills')] });
    expect(names(result)).toEqual(['ok']);
    expect(result.scannedDirectories).toEqual([missing, join(root, 'skills')]);
    expect(result.warnings).toEqual([
      expect.objectContaining({ code: 'DIRECTORY_NOT_FOUND', severity: 'warning', file: missing, line: 0, column: 0 }),
    ]);
  });

  it('reports a SKILL.md that is a broken link as unreadable', async () => {
    await writeTree(root, { 'ok/SKILL.md': skillMd('ok') });
    await link(join(root, 'missing.md'), join(root, 'dangling/SKILL.md'));
    const result = await discoverSkills({ directories: [root] });
    expect(names(result)).toEqual(['ok']);
    expect(result.errors).toEqual([expect.objectContaining({ code: 'SKILL_UNREADABLE', file: join(root, 'dangling/SKILL.md') })]);
    expect(result.errors[0]?.message).toContain('it does not exist');
  });

  it('warns when a configured directory is a file', async () => {
    await writeTree(root, { 'file.txt': 'x' });
    const result = await discoverSkills({ directories: [join(root, 'file.txt')] });
    expect(result.skills).toEqual([]);
    expect(result.warnings).toEqual([expect.objectContaining({ code: 'DIRECTORY_UNREADABLE' })]);
    expect(result.warnings[0]?.message).toContain('it is not a directory');
  });

  it('resolves relative directories against cwd and ~ against the home folder', async () => {
    await writeTree(root, { 'project/skills/rel/SKILL.md': skillMd('rel'), 'home/.agent-skills/tilde/SKILL.md': skillMd('tilde') });
    const home = process.env.HOME;
    process.env.HOME = join(root, 'home');
    try {
      const result = await discoverSkills({ directories: ['skills', '~/.agent-skills'], cwd: join(root, 'project') });
      expect(names(result)).toEqual(['rel', 'tilde']);
      expect(result.scannedDirectories).toEqual([join(root, 'project/skills'), join(root, 'home/.agent-skills')]);
    } finally {
      process.env.HOME = home;
    }
  });
});

describe('discoverSkills: names and filters', () => {
  it('keeps the first of two skills with the same name across directories', async () => {
    await writeTree(root, { 'project/review/SKILL.md': skillMd('review'), 'user/review/SKILL.md': skillMd('review') });
    const result = await discoverSkills({ directories: [join(root, 'project'), join(root, 'user')] });
    expect(result.skills.map((s) => s.path)).toEqual([join(root, 'project/review/SKILL.md')]);
    expect(result.warnings).toEqual([
      expect.objectContaining({ code: 'SKILL_DUPLICATE', severity: 'warning', file: join(root, 'user/review/SKILL.md') }),
    ]);
    expect(result.warnings[0]?.message).toContain(join(root, 'project/review/SKILL.md'));
    expect(result.warnings[0]?.message).toContain(join(root, 'user/review/SKILL.md'));
  });

  it('keeps the first in path order within one directory', async () => {
    await writeTree(root, { 'b/dup/SKILL.md': skillMd('dup'), 'a/dup/SKILL.md': skillMd('dup') });
    const result = await discoverSkills({ directories: [root] });
    expect(result.skills.map((s) => s.directory)).toEqual([join(root, 'a/dup')]);
    expect(codes(result, 'warnings')).toEqual(['SKILL_DUPLICATE']);
  });

  it('applies include and exclude to names and folder names, exclude winning', async () => {
    await writeTree(root, {
      'pdf-fill/SKILL.md': skillMd('pdf-fill'),
      'pdf-merge/SKILL.md': skillMd('pdf-merge'),
      'review/SKILL.md': skillMd('review'),
      'folder-x/SKILL.md': skillMd('named-y'),
    });
    const all = [root];
    expect(names(await discoverSkills({ directories: all, include: ['pdf-*'] }))).toEqual(['pdf-fill', 'pdf-merge']);
    expect(names(await discoverSkills({ directories: all, include: ['pdf-*'], exclude: ['*merge'] }))).toEqual(['pdf-fill']);
    expect(names(await discoverSkills({ directories: all, exclude: ['pdf-*', 'review'] }))).toEqual(['named-y']);
    // By declared name or by folder name.
    expect(names(await discoverSkills({ directories: all, include: ['named-y'] }))).toEqual(['named-y']);
    expect(names(await discoverSkills({ directories: all, include: ['folder-?'] }))).toEqual(['named-y']);
    expect(names(await discoverSkills({ directories: all, exclude: ['named-y'] }))).toEqual(['pdf-fill', 'pdf-merge', 'review']);
  });

  it('does not read or report skills that are filtered out', async () => {
    await writeTree(root, { 'good/SKILL.md': skillMd('good'), 'broken/SKILL.md': '---\nname: broken\n' });
    const included = await discoverSkills({ directories: [root], include: ['good'] });
    expect(included.errors).toEqual([]);
    const excluded = await discoverSkills({ directories: [root], exclude: ['broken'] });
    expect(excluded.errors).toEqual([]);
    // Exclusion also drops the clash it would have caused.
    await writeTree(root, { 'z-copy/SKILL.md': skillMd('good') });
    expect((await discoverSkills({ directories: [root], exclude: ['z-copy'] })).warnings).toEqual([]);
  });

  it('skips invalid skills with errors and loads the rest', async () => {
    await writeTree(root, {
      'good/SKILL.md': skillMd('good'),
      'unclosed/SKILL.md': '---\nname: unclosed\ndescription: never closed\n',
      'nodesc/SKILL.md': '---\nname: nodesc\n---\nbody\n',
    });
    const result = await discoverSkills({ directories: [root] });
    expect(names(result)).toEqual(['good']);
    expect(result.errors.filter((e) => e.file === join(root, 'nodesc/SKILL.md')).map((e) => e.code)).toEqual(['METADATA_REQUIRED']);
    const unclosed = result.errors.filter((e) => e.file === join(root, 'unclosed/SKILL.md')).map((e) => e.code);
    expect(unclosed).toContain('FRONTMATTER_UNCLOSED');
    // After a fence error, no "name is missing" noise.
    expect(unclosed).not.toContain('METADATA_REQUIRED');
  });

  it('loads naming-rule breakers with warnings, and skips them when strict', async () => {
    await writeTree(root, { 'Bad_Name/SKILL.md': skillMd('Bad_Name'), 'folder/SKILL.md': skillMd('other-name') });
    const lenient = await discoverSkills({ directories: [root] });
    expect(names(lenient)).toEqual(['Bad_Name', 'other-name']);
    expect(codes(lenient, 'warnings')).toEqual(['NAME_FORMAT', 'NAME_MISMATCH']);
    expect(lenient.errors).toEqual([]);
    const strict = await discoverSkills({ directories: [root], strict: true });
    expect(strict.skills).toEqual([]);
    expect(codes(strict, 'errors')).toEqual(['NAME_FORMAT', 'NAME_MISMATCH']);
    expect(strict.warnings).toEqual([]);
  });
});

describe('discoverSkills: fixtures/invalid', () => {
  it('reports each broken fixture and loads only the lenient one', async () => {
    const result = await discoverSkills({ directories: [FIXTURES_INVALID] });
    expect(names(result)).toEqual(['Bad_Name']);
    expect(codes(result, 'warnings')).toEqual(['NAME_FORMAT']);
    const byFolder: Record<string, string[]> = {};
    for (const e of result.errors) (byFolder[e.file.split(/[\\/]/).at(-2) ?? ''] ??= []).push(e.code);
    expect(Object.keys(byFolder).sort()).toEqual(['missing-description', 'no-frontmatter', 'tags-as-string', 'unclosed-frontmatter']);
    expect(byFolder['missing-description']).toEqual(['METADATA_REQUIRED']);
    expect(byFolder['no-frontmatter']).toEqual(['METADATA_REQUIRED', 'METADATA_REQUIRED']);
    expect(byFolder['tags-as-string']).toEqual(['METADATA_INVALID']);
    expect(byFolder['unclosed-frontmatter']).toContain('FRONTMATTER_UNCLOSED');
    const tags = result.errors.find((e) => e.code === 'METADATA_INVALID');
    expect(tags?.message).toMatch(/^tags: must be a list of strings/);
    expect(tags).toMatchObject({ line: 4, column: 1 });
    for (const diagnostic of [...result.errors, ...result.warnings]) expect(diagnostic.message).not.toMatch(/[{}]|\[object/);
  });

  it('skips the bad name in strict mode', async () => {
    const result = await discoverSkills({ directories: [FIXTURES_INVALID], strict: true });
    expect(result.skills).toEqual([]);
    expect(codes(result, 'errors')).toContain('NAME_FORMAT');
  });
});

describe('discoverSkills: options', () => {
  it('rejects bad options with SkillsConfigError', async () => {
    await expect(discoverSkills({ directories: [] })).rejects.toBeInstanceOf(SkillsConfigError);
  });
});

describe('discover: filesystem faults (memfs)', () => {
  const tree = {
    '/skills/alpha/SKILL.md': skillMd('alpha'),
    '/skills/alpha/scripts/run.py': 'print(1)\n',
    '/skills/alpha/secret.txt': 'x',
    '/skills/beta/SKILL.md': skillMd('beta'),
    '/skills/locked/inner/SKILL.md': skillMd('inner'),
  };

  it('reads through the injected fs and loads every skill', async () => {
    const { fs } = faultyFs(tree);
    const result = await discover(resolveOptions({ directories: ['/skills'], fs }));
    expect(names(result)).toEqual(['alpha', 'beta', 'inner']);
    expect(result.skills[0]?.resources.map((r) => [r.path, r.type, r.size])).toEqual([
      ['scripts/run.py', 'script', 9],
      ['secret.txt', 'reference', 1],
    ]);
  });

  it('lists each folder once per discovery, and again in the next one', async () => {
    const { fs, calls } = faultyFs(tree);
    const options = resolveOptions({ directories: ['/skills'], fs });
    await discover(options);
    const readdirs = calls.filter((c) => c.startsWith('readdir'));
    expect(readdirs.length).toBeGreaterThan(0);
    expect(new Set(readdirs).size).toBe(readdirs.length);
    await discover(options);
    expect(calls.filter((c) => c.startsWith('readdir'))).toHaveLength(readdirs.length * 2);
  });

  it('warns on EACCES for a directory and loads the rest', async () => {
    const { fs } = faultyFs(tree, [{ method: 'readdir', path: '/skills/locked', code: 'EACCES' }]);
    const result = await discover(resolveOptions({ directories: ['/skills'], fs }));
    expect(names(result)).toEqual(['alpha', 'beta']);
    expect(result.warnings).toEqual([
      expect.objectContaining({ code: 'DIRECTORY_UNREADABLE', severity: 'warning', file: '/skills/locked', line: 0, column: 0 }),
    ]);
    expect(result.warnings[0]?.message).toContain('permission denied');
  });

  it('warns on EACCES for a configured directory', async () => {
    const { fs } = faultyFs(tree, [{ method: 'realpath', path: '/skills', code: 'EACCES' }]);
    const result = await discover(resolveOptions({ directories: ['/skills'], fs }));
    expect(result.skills).toEqual([]);
    expect(codes(result, 'warnings')).toEqual(['DIRECTORY_UNREADABLE']);
  });

  it('reports EIO on a SKILL.md as SKILL_UNREADABLE and loads the others', async () => {
    const { fs } = faultyFs(tree, [{ method: 'readFile', path: '/skills/beta/SKILL.md', code: 'EIO' }]);
    const result = await discover(resolveOptions({ directories: ['/skills'], fs }));
    expect(names(result)).toEqual(['alpha', 'inner']);
    expect(result.errors).toEqual([
      expect.objectContaining({ code: 'SKILL_UNREADABLE', severity: 'error', file: '/skills/beta/SKILL.md', line: 0, column: 0 }),
    ]);
    expect(result.errors[0]?.message).toContain('EIO');
  });

  it('warns on EACCES for a resource and keeps the skill', async () => {
    const { fs } = faultyFs(tree, [{ method: 'stat', path: '/skills/alpha/secret.txt', code: 'EACCES' }]);
    const result = await discover(resolveOptions({ directories: ['/skills'], fs }));
    expect(names(result)).toEqual(['alpha', 'beta', 'inner']);
    expect(result.skills[0]?.resources.map((r) => r.path)).toEqual(['scripts/run.py']);
    expect(result.warnings).toEqual([expect.objectContaining({ code: 'RESOURCE_UNREADABLE', file: '/skills/alpha/secret.txt' })]);
  });

  it('keeps output order fixed however reads complete, with at most 32 calls in flight', async () => {
    const skills: Record<string, string> = {};
    for (let i = 0; i < 300; i++) {
      const name = `s-${String(i).padStart(3, '0')}`;
      skills[`/many/${name}/SKILL.md`] = skillMd(name);
      skills[`/many/${name}/notes.md`] = 'n';
    }
    const { fs } = faultyFs(skills);
    let inFlight = 0;
    let peak = 0;
    let seed = 7;
    const jittered = Object.fromEntries(
      Object.entries(fs).map(([method, call]) => [
        method,
        async (...args: unknown[]) => {
          inFlight++;
          peak = Math.max(peak, inFlight);
          seed = (seed * 48271) % 2147483647;
          await new Promise((r) => setTimeout(r, seed % 3));
          try {
            return await (call as (...a: unknown[]) => Promise<unknown>)(...args);
          } finally {
            inFlight--;
          }
        },
      ]),
    ) as unknown as typeof fs;
    const result = await discover(resolveOptions({ directories: ['/many'], fs: jittered }));
    expect(names(result)).toEqual(
      Object.keys(skills)
        .filter((p) => p.endsWith('SKILL.md'))
        .map((p) => p.split('/')[2])
        .sort(),
    );
    expect(peak).toBeLessThanOrEqual(32);
    expect(peak).toBeGreaterThan(1);
  });
});

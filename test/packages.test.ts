/**
 * Skill packages resolved the way Node resolves them: SISU's real skill
 * packages laid out as npm and as pnpm lay them out, and our own fixtures for
 * collections, workspace links, shadowing, names that do not resolve and
 * packages that hold no skill. Every tree is built in a temporary folder.
 */
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nodeFileSystem, type SkillsFileSystem } from '../src/base/fs.js';
import { parseFrontmatter } from '../src/frontmatter/parse.js';
import {
  expectedSkillName,
  nodeModulesFolders,
  packageNameProblem,
  packageOrigin,
  resolvePackage,
  resolvePackages,
  type PackageResolution,
  type UnresolvedPackage,
} from '../src/config/packages.js';
import { describeWith } from './helpers/needs-shared.js';
import { SISU_SKILLS } from './helpers/shared.js';

/** SISU's six skill packages (folder name under ../shared/sisu/skills). */
const SISU_SKILL_FOLDERS = ['skill-code-review', 'skill-debug', 'skill-deploy', 'skill-explain', 'skill-repo-search', 'skill-test-gen'];
const SISU_SKILL_PACKAGES = SISU_SKILL_FOLDERS.map((folder) => `@sisu-ai/${folder}`);

let root: string;

beforeEach(async () => {
  // Real path: tmpdir() is itself a symbolic link on some systems, and resolution returns real paths.
  root = await realpath(await mkdtemp(join(tmpdir(), 'mw-skills-packages-')));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function write(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
}

/** A relative link, as npm, pnpm and workspaces make them. */
async function link(target: string, path: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await symlink(relative(dirname(path), target), path, 'dir');
}

/** Copies a folder file by file, so the copy is writable (the shared originals are read-only). */
async function copyTree(from: string, to: string): Promise<void> {
  await mkdir(to, { recursive: true });
  for (const entry of await readdir(from, { withFileTypes: true })) {
    if (entry.isDirectory()) await copyTree(join(from, entry.name), join(to, entry.name));
    else await writeFile(join(to, entry.name), await readFile(join(from, entry.name)));
  }
}

function skillMd(name: string): string {
  return `---\nname: ${name}\ndescription: Does ${name} things. Use when asked about ${name}.\n---\n# ${name}\n`;
}

function manifest(name: string, version: string): string {
  return JSON.stringify({ name, version });
}

async function sisuVersion(folder: string): Promise<string> {
  const parsed = JSON.parse(await readFile(join(SISU_SKILLS, folder, 'package.json'), 'utf8')) as { version: string };
  return parsed.version;
}

function failed(result: PackageResolution): UnresolvedPackage {
  if (result.ok) throw new Error(`expected ${result.name} not to resolve, got ${result.kind} at ${result.directory}`);
  return result;
}

/** nodeFileSystem, with chosen calls failing as the system would fail them. */
function faulty(faults: ReadonlyArray<{ method: 'stat' | 'readdir' | 'realpath'; path: string; code: string }>): SkillsFileSystem {
  const fail = (method: string, path: string): void => {
    const fault = faults.find((f) => f.method === method && f.path === path);
    if (fault) throw Object.assign(new Error(`${fault.code}: injected, ${method} '${path}'`), { code: fault.code });
  };
  return {
    ...nodeFileSystem,
    async stat(path) {
      fail('stat', path);
      return nodeFileSystem.stat(path);
    },
    async readdir(path, options) {
      fail('readdir', path);
      return nodeFileSystem.readdir(path, options);
    },
    async realpath(path) {
      fail('realpath', path);
      return nodeFileSystem.realpath(path);
    },
  };
}

describeWith('sisu-skills', "SISU's skill packages (../shared/sisu/skills)", () => {
  it('resolve in an npm layout: six skills, real paths, versions, and a SKILL.md name that expectedSkillName predicts', async () => {
    const app = join(root, 'app');
    await write(join(app, 'package.json'), manifest('app', '1.0.0'));
    for (const folder of [...SISU_SKILL_FOLDERS, 'skill-install']) {
      await copyTree(join(SISU_SKILLS, folder), join(app, 'node_modules', '@sisu-ai', folder));
    }

    const results = await resolvePackages(SISU_SKILL_PACKAGES, { cwd: app });

    expect(results.map((r) => r.name)).toEqual(SISU_SKILL_PACKAGES);
    for (const [i, result] of results.entries()) {
      const folder = SISU_SKILL_FOLDERS[i] as string;
      expect(result).toEqual({
        ok: true,
        kind: 'skill',
        name: `@sisu-ai/${folder}`,
        version: await sisuVersion(folder),
        directory: join(app, 'node_modules', '@sisu-ai', folder),
      });
      // The naming rule matches what SISU's authors wrote, so these packages need no NAME_MISMATCH.
      const skill = parseFrontmatter(await readFile(join(app, 'node_modules', '@sisu-ai', folder, 'SKILL.md'), 'utf8'));
      expect(skill.metadata['name']).toBe(expectedSkillName(result.name));
    }
  });

  it('resolve in a pnpm layout to the real folder inside node_modules/.pnpm', async () => {
    const app = join(root, 'app');
    const expected: string[] = [];
    for (const folder of SISU_SKILL_FOLDERS) {
      const version = await sisuVersion(folder);
      const store = join(app, 'node_modules', '.pnpm', `@sisu-ai+${folder}@${version}`, 'node_modules', '@sisu-ai', folder);
      await copyTree(join(SISU_SKILLS, folder), store);
      await link(store, join(app, 'node_modules', '@sisu-ai', folder));
      expected.push(store);
    }

    const results = await resolvePackages(SISU_SKILL_PACKAGES, { cwd: app });

    for (const [i, result] of results.entries()) {
      if (!result.ok) throw new Error(result.diagnostic.message);
      expect(result.kind).toBe('skill');
      expect(result.directory).toBe(expected[i]);
      expect(result.version).toBe(await sisuVersion(SISU_SKILL_FOLDERS[i] as string));
    }
  });

  it('@sisu-ai/skill-install (an installer CLI) is a PACKAGE_NOT_A_SKILL warning that says to remove it', async () => {
    const app = join(root, 'app');
    await copyTree(join(SISU_SKILLS, 'skill-install'), join(app, 'node_modules', '@sisu-ai', 'skill-install'));

    const result = failed(await resolvePackage('@sisu-ai/skill-install', { cwd: app }));

    expect(result.diagnostic).toMatchObject({
      code: 'PACKAGE_NOT_A_SKILL',
      severity: 'warning',
      file: join(app, 'node_modules', '@sisu-ai', 'skill-install'),
      line: 0,
      column: 0,
    });
    expect(result.diagnostic.message).toContain(`package @sisu-ai/skill-install@${await sisuVersion('skill-install')} holds no skill`);
    expect(result.diagnostic.message).toContain('no SKILL.md at its root and no skills/ folder');
    expect(result.diagnostic.message).toContain('remove it from `packages`');
  });
});

describe('resolvePackage on our own fixtures', () => {
  it('a package with a skills/ folder is a collection of the folders in it that hold a SKILL.md', async () => {
    const pkg = join(root, 'node_modules', '@acme', 'team-skills');
    await write(join(pkg, 'package.json'), manifest('@acme/team-skills', '2.1.0'));
    await write(join(pkg, 'skills', 'beta', 'SKILL.md'), skillMd('beta'));
    await write(join(pkg, 'skills', 'alpha', 'SKILL.md'), skillMd('alpha'));
    await write(join(pkg, 'skills', 'notes', 'README.md'), 'not a skill');
    await write(join(pkg, 'skills', '.cache', 'SKILL.md'), skillMd('cache'));
    await write(join(pkg, 'skills', 'README.md'), 'about these skills');
    await write(join(root, 'shared', 'gamma', 'SKILL.md'), skillMd('gamma'));
    await link(join(root, 'shared', 'gamma'), join(pkg, 'skills', 'gamma'));

    const result = await resolvePackage('@acme/team-skills', { cwd: root });

    expect(result).toEqual({
      ok: true,
      kind: 'collection',
      name: '@acme/team-skills',
      version: '2.1.0',
      directory: pkg,
      skillsDirectory: join(pkg, 'skills'),
      skillFolders: [join(pkg, 'skills', 'alpha'), join(pkg, 'skills', 'beta'), join(pkg, 'skills', 'gamma')],
    });
  });

  it('a workspace link resolves to the workspace folder, found by walking up from a nested cwd', async () => {
    const workspace = join(root, 'packages', 'review-skill');
    await write(join(workspace, 'package.json'), manifest('@acme/skill-review', '0.0.1'));
    await write(join(workspace, 'SKILL.md'), skillMd('review'));
    await link(workspace, join(root, 'node_modules', '@acme', 'skill-review'));
    const app = join(root, 'apps', 'web');
    await mkdir(app, { recursive: true });

    const result = await resolvePackage('@acme/skill-review', { cwd: app });

    expect(result).toEqual({ ok: true, kind: 'skill', name: '@acme/skill-review', version: '0.0.1', directory: workspace });
  });

  it('the nearest node_modules wins, as in Node', async () => {
    await write(join(root, 'node_modules', 'skill-lint', 'package.json'), manifest('skill-lint', '1.0.0'));
    await write(join(root, 'node_modules', 'skill-lint', 'SKILL.md'), skillMd('lint'));
    const app = join(root, 'apps', 'web');
    await write(join(app, 'node_modules', 'skill-lint', 'package.json'), manifest('skill-lint', '2.0.0'));
    await write(join(app, 'node_modules', 'skill-lint', 'SKILL.md'), skillMd('lint'));

    const fromApp = await resolvePackage('skill-lint', { cwd: app });
    const fromRoot = await resolvePackage('skill-lint', { cwd: root });

    expect(fromApp).toMatchObject({ ok: true, version: '2.0.0', directory: join(app, 'node_modules', 'skill-lint') });
    expect(fromRoot).toMatchObject({ ok: true, version: '1.0.0', directory: join(root, 'node_modules', 'skill-lint') });
  });

  it('a name that does not resolve is a PACKAGE_NOT_FOUND warning naming the package and every folder searched', async () => {
    const app = join(root, 'app');
    await mkdir(app, { recursive: true });

    const result = failed(await resolvePackage('@acme/missing', { cwd: app }));

    expect(result.name).toBe('@acme/missing');
    expect(result.diagnostic).toMatchObject({
      code: 'PACKAGE_NOT_FOUND',
      severity: 'warning',
      file: join(app, 'node_modules', '@acme', 'missing'),
    });
    for (const folder of nodeModulesFolders(app)) expect(result.diagnostic.message).toContain(folder);
    expect(result.diagnostic.message).toContain('npm install @acme/missing');
  });

  it('a dangling link (a half-removed pnpm install) is passed over, and the warning says so', async () => {
    await link(join(root, 'node_modules', '.pnpm', 'gone'), join(root, 'node_modules', '@acme', 'skill-gone'));

    const result = failed(await resolvePackage('@acme/skill-gone', { cwd: root }));

    expect(result.diagnostic.code).toBe('PACKAGE_NOT_FOUND');
    expect(result.diagnostic.message).toContain(
      `${join(root, 'node_modules', '@acme', 'skill-gone')} is a symbolic link whose target is missing`,
    );
  });

  it('a file where the package folder should be is passed over for a folder further up', async () => {
    const app = join(root, 'app');
    await write(join(app, 'node_modules', 'skill-x'), 'a stray file');
    await write(join(root, 'node_modules', 'skill-x', 'SKILL.md'), skillMd('x'));

    expect(await resolvePackage('skill-x', { cwd: app })).toMatchObject({ ok: true, directory: join(root, 'node_modules', 'skill-x') });
  });

  it('a file alone where the package folder should be is reported, not taken for a package', async () => {
    await write(join(root, 'node_modules', 'skill-y'), 'a stray file');

    const result = failed(await resolvePackage('skill-y', { cwd: root }));

    expect(result.diagnostic.code).toBe('PACKAGE_NOT_FOUND');
    expect(result.diagnostic.message).toContain(`${join(root, 'node_modules', 'skill-y')} is a file, not a package folder`);
  });

  it('folders named node_modules are not searched for a nested node_modules, as Node skips them', () => {
    const base = resolve('/srv/app');
    expect(nodeModulesFolders(join(base, 'node_modules', 'tool'))).toEqual([
      join(base, 'node_modules', 'tool', 'node_modules'),
      join(base, 'node_modules'),
      join(resolve('/srv'), 'node_modules'),
      join(resolve('/'), 'node_modules'),
    ]);
  });

  it('a skills/ folder with no skill in it is PACKAGE_NOT_A_SKILL, saying so', async () => {
    const pkg = join(root, 'node_modules', 'skill-empty');
    await write(join(pkg, 'package.json'), manifest('skill-empty', '1.0.0'));
    await write(join(pkg, 'skills', 'drafts', 'notes.md'), 'no SKILL.md here');

    const result = failed(await resolvePackage('skill-empty', { cwd: root }));

    expect(result.diagnostic).toMatchObject({ code: 'PACKAGE_NOT_A_SKILL', severity: 'warning', file: pkg });
    expect(result.diagnostic.message).toContain('its skills/ folder holds no folder with a SKILL.md');
  });

  it('a root skill.md in the wrong case is not a skill, and the warning names the fix', async () => {
    const pkg = join(root, 'node_modules', 'skill-lower');
    await write(join(pkg, 'package.json'), manifest('skill-lower', '1.0.0'));
    await write(join(pkg, 'skill.md'), skillMd('lower'));

    const result = failed(await resolvePackage('skill-lower', { cwd: root }));

    expect(result.diagnostic.code).toBe('PACKAGE_NOT_A_SKILL');
    expect(result.diagnostic.message).toContain('It has skill.md: the file must be named SKILL.md');

    // On a case-insensitive disk (macOS, Windows) SKILL.md opens skill.md; the listing still decides.
    const caseInsensitive: SkillsFileSystem = {
      ...nodeFileSystem,
      stat: (path) => nodeFileSystem.stat(path === join(pkg, 'SKILL.md') ? join(pkg, 'skill.md') : path),
    };
    const there = failed(await resolvePackage('skill-lower', { cwd: root, fs: caseInsensitive }));
    expect(there.diagnostic.code).toBe('PACKAGE_NOT_A_SKILL');
  });

  it('a root SKILL.md that is a folder does not make the package a skill', async () => {
    const pkg = join(root, 'node_modules', 'skill-odd');
    await mkdir(join(pkg, 'SKILL.md'), { recursive: true });

    expect(failed(await resolvePackage('skill-odd', { cwd: root })).diagnostic.code).toBe('PACKAGE_NOT_A_SKILL');
  });

  it('a root SKILL.md wins over a skills/ folder: the package is one skill', async () => {
    const pkg = join(root, 'node_modules', 'skill-both');
    await write(join(pkg, 'SKILL.md'), skillMd('both'));
    await write(join(pkg, 'skills', 'inner', 'SKILL.md'), skillMd('inner'));

    expect(await resolvePackage('skill-both', { cwd: root })).toMatchObject({ ok: true, kind: 'skill', directory: pkg });
  });

  it('without a readable package.json the version is undefined and the origin is the name alone', async () => {
    await write(join(root, 'node_modules', 'skill-a', 'SKILL.md'), skillMd('a'));
    await write(join(root, 'node_modules', 'skill-b', 'SKILL.md'), skillMd('b'));
    await write(join(root, 'node_modules', 'skill-b', 'package.json'), '{ not json');
    await write(join(root, 'node_modules', 'skill-c', 'SKILL.md'), skillMd('c'));
    await write(join(root, 'node_modules', 'skill-c', 'package.json'), JSON.stringify({ name: 'skill-c', version: 3 }));
    await write(join(root, 'node_modules', 'skill-d', 'SKILL.md'), skillMd('d'));
    await write(join(root, 'node_modules', 'skill-d', 'package.json'), JSON.stringify({ name: 'skill-d' }));

    const results = await resolvePackages(['skill-a', 'skill-b', 'skill-c', 'skill-d'], { cwd: root });

    for (const result of results) {
      expect(result).toMatchObject({ ok: true, kind: 'skill', version: undefined });
      if (result.ok) expect(packageOrigin(result)).toBe(result.name);
    }
  });

  it('a name that is not an npm package name is never looked up, so it cannot climb out of node_modules', async () => {
    const calls: string[] = [];
    const spy: SkillsFileSystem = {
      ...nodeFileSystem,
      stat: async (path) => {
        calls.push(path);
        return nodeFileSystem.stat(path);
      },
      lstat: async (path) => {
        calls.push(path);
        return nodeFileSystem.lstat(path);
      },
    };
    await write(join(root, 'outside', 'SKILL.md'), skillMd('outside'));
    const app = join(root, 'app');

    for (const name of ['../outside', '../../outside', '@acme/a/b', '/etc', '.hidden', '_private', '', 'a\\b', '@/x']) {
      const result = failed(await resolvePackage(name, { cwd: app, fs: spy }));
      expect(result.diagnostic.code).toBe('PACKAGE_NOT_FOUND');
      expect(result.diagnostic.message).toContain('was not looked up');
    }
    expect(calls).toEqual([]);
  });
});

describe('resolvePackage when the filesystem refuses (injected, so it holds as root too)', () => {
  it('an unreadable package root is DIRECTORY_UNREADABLE on that folder', async () => {
    const pkg = join(root, 'node_modules', 'skill-locked');
    await write(join(pkg, 'SKILL.md'), skillMd('locked'));
    await write(join(pkg, 'package.json'), manifest('skill-locked', '1.2.3'));

    const result = failed(
      await resolvePackage('skill-locked', { cwd: root, fs: faulty([{ method: 'readdir', path: pkg, code: 'EACCES' }]) }),
    );

    expect(result.diagnostic).toMatchObject({ code: 'DIRECTORY_UNREADABLE', severity: 'warning', file: pkg });
    expect(result.diagnostic.message).toContain('package skill-locked@1.2.3: permission denied');
  });

  it("an unreadable skills/ folder is DIRECTORY_UNREADABLE on that folder, not 'holds no skill'", async () => {
    const pkg = join(root, 'node_modules', 'skill-set');
    await write(join(pkg, 'skills', 'one', 'SKILL.md'), skillMd('one'));
    const skills = join(pkg, 'skills');

    const result = failed(
      await resolvePackage('skill-set', { cwd: root, fs: faulty([{ method: 'readdir', path: skills, code: 'EACCES' }]) }),
    );

    expect(result.diagnostic).toMatchObject({ code: 'DIRECTORY_UNREADABLE', file: skills });
  });

  it('a candidate that cannot be read is passed over, and the warning gives the reason', async () => {
    const candidate = join(root, 'node_modules', 'skill-hidden');
    await write(join(candidate, 'SKILL.md'), skillMd('hidden'));

    const result = failed(
      await resolvePackage('skill-hidden', { cwd: root, fs: faulty([{ method: 'stat', path: candidate, code: 'EACCES' }]) }),
    );

    expect(result.diagnostic.code).toBe('PACKAGE_NOT_FOUND');
    expect(result.diagnostic.message).toContain(`${candidate} could not be read (permission denied)`);
  });

  it('a candidate whose links cannot be followed is passed over, and the warning gives the reason', async () => {
    const candidate = join(root, 'node_modules', 'skill-loop');
    await write(join(candidate, 'SKILL.md'), skillMd('loop'));

    const result = failed(
      await resolvePackage('skill-loop', { cwd: root, fs: faulty([{ method: 'realpath', path: candidate, code: 'ELOOP' }]) }),
    );

    expect(result.diagnostic.message).toContain(`${candidate} could not be followed (too many levels of symbolic links)`);
  });
});

describe('names', () => {
  it.each([
    ['@sisu-ai/skill-code-review', 'code-review'],
    ['@sisu-ai/skill-debug', 'debug'],
    ['skill-debug', 'debug'],
    ['@acme/lint', 'lint'],
    ['team-skills', 'team-skills'],
    ['@acme/skills-pack', 'skills-pack'],
    ['@acme/skill-', 'skill-'],
  ])('expectedSkillName(%s) is %s', (name, expected) => {
    expect(expectedSkillName(name)).toBe(expected);
  });

  it('packageNameProblem accepts npm names and explains the rest', () => {
    for (const ok of ['skill-debug', '@sisu-ai/skill-debug', 'JSONStream', 'a.b_c~d', '@a/b'])
      expect(packageNameProblem(ok)).toBeUndefined();
    expect(packageNameProblem('')).toBe('a package name must be a non-empty string');
    expect(packageNameProblem(42)).toBe('a package name must be a non-empty string');
    expect(packageNameProblem('x'.repeat(215))).toContain('at most 214 characters');
    expect(packageNameProblem('@acme/a/b')).toContain('`@scope/name`');
  });

  it('packageOrigin is name@version', () => {
    expect(packageOrigin({ name: '@sisu-ai/skill-debug', version: '0.2.2' })).toBe('@sisu-ai/skill-debug@0.2.2');
  });
});

/**
 * The `packages` option end to end: SISU's six real skill packages, installed
 * as npm and as pnpm lay them out, load with `strict: true` and no warnings
 * through discoverSkills and through the middleware; the package-root name
 * rule; advice that never says to rename anything under node_modules.
 */
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { discoverSkills, getSkills, skillsMiddleware, SkillsConfigError } from '../src/index.js';
import { conversation, createContext } from './helpers/stack.js';
import { describeWith } from './helpers/needs-shared.js';
import { SISU_SKILLS } from './helpers/shared.js';

const SISU_SKILL_FOLDERS = ['skill-code-review', 'skill-debug', 'skill-deploy', 'skill-explain', 'skill-repo-search', 'skill-test-gen'];
const PACKAGES = SISU_SKILL_FOLDERS.map((folder) => `@sisu-ai/${folder}`);
const NAMES = ['code-review', 'debug', 'deploy', 'explain', 'repo-search', 'test-gen'];

let app: string;
beforeEach(async () => {
  app = await realpath(await mkdtemp(join(tmpdir(), 'skills-app-')));
});
afterEach(async () => {
  await rm(app, { recursive: true, force: true });
});

async function copyTree(from: string, to: string): Promise<void> {
  await mkdir(to, { recursive: true });
  for (const entry of await readdir(from, { withFileTypes: true })) {
    if (entry.isDirectory()) await copyTree(join(from, entry.name), join(to, entry.name));
    else await writeFile(join(to, entry.name), await readFile(join(from, entry.name)));
  }
}

async function installNpm(): Promise<void> {
  for (const folder of SISU_SKILL_FOLDERS) await copyTree(join(SISU_SKILLS, folder), join(app, 'node_modules', '@sisu-ai', folder));
}

async function installPnpm(): Promise<void> {
  for (const folder of SISU_SKILL_FOLDERS) {
    const { version } = JSON.parse(await readFile(join(SISU_SKILLS, folder, 'package.json'), 'utf8')) as { version: string };
    const store = join(app, 'node_modules', '.pnpm', `@sisu-ai+${folder}@${version}`, 'node_modules', '@sisu-ai', folder);
    await copyTree(join(SISU_SKILLS, folder), store);
    const linkPath = join(app, 'node_modules', '@sisu-ai', folder);
    await mkdir(dirname(linkPath), { recursive: true });
    await symlink(relative(dirname(linkPath), store), linkPath, 'dir');
  }
}

describeWith('sisu-skills', "SISU's skill packages", () => {
  for (const [layout, install] of [
    ['npm', installNpm],
    ['pnpm', installPnpm],
  ] as const) {
    it(`load strictly with no warnings in the ${layout} layout, through discoverSkills and the middleware`, async () => {
      await install();
      const result = await discoverSkills({ packages: PACKAGES, cwd: app, strict: true });
      expect(result.errors).toEqual([]);
      expect(result.warnings).toEqual([]);
      expect(result.skills.map((s) => s.metadata.name).sort()).toEqual(NAMES);
      const ctx = createContext({ messages: conversation('Use @debug please.') });
      await skillsMiddleware({ packages: PACKAGES, cwd: app, strict: true })(ctx, async () => {});
      expect(
        getSkills(ctx)
          ?.skills.map((s) => s.metadata.name)
          .sort(),
      ).toEqual(NAMES);
      expect(getSkills(ctx)?.activated).toEqual(['debug']);
      expect(ctx.log.entries.filter((e) => e.level === 'warn')).toEqual([]);
    });
  }

  it('folders come first: a folder skill wins a name clash with a package', async () => {
    await installNpm();
    await mkdir(join(app, 'skills', 'debug'), { recursive: true });
    await writeFile(
      join(app, 'skills', 'debug', 'SKILL.md'),
      '---\nname: debug\ndescription: Our own debugging steps. Use when debugging.\n---\nOURS\n',
    );
    const result = await discoverSkills({ directories: ['skills'], packages: ['@sisu-ai/skill-debug'], cwd: app });
    expect(result.skills.find((s) => s.metadata.name === 'debug')?.directory).toBe(join(app, 'skills', 'debug'));
    expect(result.warnings.map((w) => w.code)).toEqual(['SKILL_DUPLICATE']);
  });
});

describe('packages of our own', () => {
  async function pkg(name: string, files: Record<string, string>): Promise<string> {
    const dir = join(app, 'node_modules', ...name.split('/'));
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name, version: '1.2.3' }));
    for (const [path, text] of Object.entries(files)) {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), text);
    }
    return dir;
  }
  const md = (name: string) => `---\nname: ${name}\ndescription: Does ${name}. Use when asked.\n---\n# ${name}\n`;

  it('a package root is judged by its package name, and the advice never says to rename under node_modules', async () => {
    await pkg('@acme/skill-lint', { 'SKILL.md': md('linting') });
    const result = await discoverSkills({ packages: ['@acme/skill-lint'], cwd: app });
    const [mismatch] = result.warnings;
    expect(mismatch?.code).toBe('NAME_MISMATCH');
    expect(mismatch?.message).toContain('does not match package @acme/skill-lint (expected "lint"');
    expect(mismatch?.message).toContain("comes from package @acme/skill-lint@1.2.3: report it to the package's author");
    expect(mismatch?.message).not.toMatch(/Rename the folder/);
    // With strict the rule is an error, as for folders.
    expect((await discoverSkills({ packages: ['@acme/skill-lint'], cwd: app, strict: true })).errors.map((e) => e.code)).toEqual([
      'NAME_MISMATCH',
    ]);
  });

  it('a collection gives each skill in its skills/ folder, judged by folder name', async () => {
    await pkg('@acme/team-skills', { 'skills/review/SKILL.md': md('review'), 'skills/ship/SKILL.md': md('shipit') });
    const result = await discoverSkills({ packages: ['@acme/team-skills'], cwd: app });
    expect(result.skills.map((s) => s.metadata.name).sort()).toEqual(['review', 'shipit']);
    const [mismatch] = result.warnings;
    expect(mismatch?.message).toContain('does not match its folder name "ship"');
    expect(mismatch?.message).toContain('comes from package @acme/team-skills@1.2.3');
  });

  it('a package that does not resolve is a warning naming it, never a crash; other skills still load', async () => {
    await pkg('@acme/skill-ok', { 'SKILL.md': md('ok') });
    const result = await discoverSkills({ packages: ['@acme/missing', '@acme/skill-ok'], cwd: app });
    expect(result.skills.map((s) => s.metadata.name)).toEqual(['ok']);
    expect(result.warnings.map((w) => w.code)).toEqual(['PACKAGE_NOT_FOUND']);
    expect(result.warnings[0]?.message).toContain('@acme/missing');
  });

  it('packages alone satisfy the explicit-configuration rule; a bad name or neither throws with a fix', () => {
    expect(() => skillsMiddleware({ packages: ['@acme/skill-ok'] })).not.toThrow();
    expect(() => skillsMiddleware({ packages: ['../escape'] })).toThrow(SkillsConfigError);
    expect(() => skillsMiddleware({ packages: ['../escape'] })).toThrow(/`packages\[0\]` \("\.\.\/escape"\) is not a package name/);
    expect(() => skillsMiddleware({})).toThrow(
      /pass the folders that hold your skills \(`directories`\) or the npm packages that ship them \(`packages`\)/,
    );
  });

  it('a skill folder under node_modules that is not a configured package gets no rename advice either', async () => {
    const dir = join(app, 'node_modules', 'some-dep', 'skills', 'x');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'SKILL.md'), md('y'));
    const result = await discoverSkills({ directories: [join(app, 'node_modules', 'some-dep', 'skills')] });
    expect(result.warnings[0]?.message).toContain('installed under node_modules: report it to its package');
  });
});

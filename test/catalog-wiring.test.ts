/**
 * The catalog and find_skills agree in the middleware (issue 11): the
 * section names find_skills only when the tool is registered, and with
 * `findSkills: false` says instead how many skills it leaves out. Run on the
 * real host; `sisu-skills prompt --no-find-skills` prints the same section.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../src/cli/run.js';
import { skillsMiddleware, type SkillsOptions } from '../src/index.js';
import type { SkillsContext } from '../src/run/context.js';
import { describeWith } from './helpers/needs-shared.js';
import { SISU_CORE } from './helpers/shared.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'mw-skills-wiring-'));
  for (let i = 0; i < 60; i++) {
    await mkdir(join(root, `task-${i}`));
    await writeFile(
      join(root, `task-${i}`, 'SKILL.md'),
      `---\nname: task-${i}\ndescription: Does numbered task ${i} for a project, step by step, with checks.\n---\nBody.\n`,
    );
  }
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function request(options: Partial<SkillsOptions>, query = 'do task 7'): Promise<{ system: string; findSkills: boolean }> {
  const core = (await import(pathToFileURL(SISU_CORE).href)) as { createCtx(options: { model: unknown; logLevel: string }): SkillsContext };
  const ctx = core.createCtx({ model: {}, logLevel: 'error' });
  ctx.messages.push({ role: 'user', content: query });
  await skillsMiddleware({ directories: [root], ...options })(ctx, async () => {});
  const system = ctx.messages.find((m) => m.role === 'system');
  return { system: system === undefined ? '' : String(system.content), findSkills: ctx.tools.get('find_skills') !== undefined };
}

describeWith('sisu', 'catalog and find_skills in the middleware', () => {
  it.each([
    [300, '60 skills are not listed here.'],
    [700, 'more skills are not listed here.\n'],
    [1500, 'There are 60; each line below is a skill name.\n'],
  ])('with findSkills: false, a catalog over a budget of %i never names find_skills', async (catalogBudget, says) => {
    const { system, findSkills } = await request({ catalogBudget, findSkills: false });
    expect(findSkills).toBe(false);
    expect(system).toContain(says);
    expect(system).not.toContain('find_skills');
  });

  it('by default registers find_skills exactly when the catalog names it', async () => {
    for (const catalogBudget of [300, 700, 1500, 8000]) {
      const { system, findSkills } = await request({ catalogBudget });
      expect(findSkills).toBe(system.includes('`find_skills`'));
    }
  });

  it('prompt --no-find-skills prints what the middleware injects with findSkills: false', async () => {
    for (const catalogBudget of [300, 700, 1500]) {
      let stdout = '';
      await runCli(['prompt', root, '--budget', String(catalogBudget), '--query', 'do task 7', '--no-find-skills'], {
        out: (l) => (stdout += `${l}\n`),
        err: () => {},
        cwd: ROOT,
      });
      expect(stdout).toBe(`${(await request({ catalogBudget, findSkills: false })).system}\n`);
    }
  });
});

/**
 * Scenario: SISU's own skill packages declare the tools they expect
 * (`@sisu-ai/skill-code-review`: `requires: [read_file, grep, bash]`), and an
 * app registers its tools with SISU's registerTools, aliases included.
 *
 * What "registered at the time of the request" means in SISU: createCtx gives
 * each ctx its own registry, and execute calls next() before its loop, so every
 * middleware of the stack, wherever it stands (even after execute), has
 * registered its tools before the first model call, and the loop offers the
 * model what the registry holds then. So the skills middleware asks the registry
 * when the model calls use_skill, and for activations it injects itself
 * (`@code-review`), at the request's first model call: never while it runs,
 * when middleware after it has not run yet.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { lackedToolsLine } from '../../src/base/required-tools.js';
import { getSkills, skillsMiddleware } from '../../src/index.js';
import {
  createCtx,
  describeSisu,
  installSisuSkills,
  lastToolResult,
  PROVIDERS,
  realSisu,
  runAgent,
  toolResults,
  type InstalledSkills,
  type SisuMiddleware,
  type SisuTool,
} from './host.js';

/** A tool the model may call by `name`; what it does does not matter here. */
const hostTool = (name: string): SisuTool => ({
  name,
  description: `The app's ${name} tool.`,
  schema: z.object({ input: z.string() }),
  handler: async () => `${name} ran`,
});

/** Where registerTools stands in the stack: before the skills middleware, between it and execute, or after execute. */
type ToolsAt = 'before' | 'between' | 'after-execute';

describeSisu("SISU's skill packages and their requires, with registerTools", () => {
  const sisu = realSisu();
  let installed: InstalledSkills | undefined;
  beforeAll(async () => {
    installed = await installSisuSkills(['skill-code-review', 'skill-explain']);
  });
  afterAll(() => installed?.remove());

  const skills = (): SisuMiddleware =>
    skillsMiddleware({ packages: ['@sisu-ai/skill-code-review', '@sisu-ai/skill-explain'], cwd: installed!.appDir }) as never;

  function stack(toolsAt: ToolsAt, register: SisuMiddleware, skillsFirst = false): SisuMiddleware[] {
    const { core } = sisu.host;
    const front = skillsFirst ? [skills(), core.inputToMessage] : [core.inputToMessage, skills()];
    if (toolsAt === 'before') return [core.inputToMessage, register, skills(), core.execute];
    if (toolsAt === 'between') return [...front, register, core.execute];
    return [...front, core.execute, register];
  }

  for (const provider of PROVIDERS) {
    it(`${provider.name}: a skill whose tools are missing activates and its answer names them in one line; all present, nothing said`, async () => {
      const { host } = sisu;
      const server = await sisu.start(provider, [
        { toolCalls: [{ name: 'use_skill', arguments: { skill_name: 'code-review' } }] },
        { toolCalls: [{ name: 'use_skill', arguments: { skill_name: 'explain' } }] },
        'Reviewed.',
      ]);
      const ctx = createCtx(host, provider.model(host, server), { input: 'Review src/auth.ts and explain it.' });
      await runAgent(host, stack('before', host.registerTools([hostTool('read_file'), hostTool('grep')])), ctx);
      expect(server.violations).toEqual([]);
      expect(server.requests[0]!.tools.map((t) => t.name).sort()).toEqual(['grep', 'read_file', 'read_skill_resource', 'use_skill']);
      const review = lastToolResult(server.requests[1]!)!;
      expect(review.split('\n').slice(0, 2)).toEqual(['<skill name="code-review">', lackedToolsLine(['bash'])]);
      expect(review).toContain('# Code Review');
      const explain = lastToolResult(server.requests[2]!)!;
      expect(explain).toContain('# Explain Code');
      expect(explain).not.toContain('lacks tools');
      const state = getSkills(ctx as never);
      expect(state?.activated).toEqual(['code-review', 'explain']);
      expect([...(state?.requires ?? [])]).toEqual([
        ['code-review', ['read_file', 'grep', 'bash']],
        ['explain', ['read_file', 'grep']],
      ]);
    });
  }

  const openai = PROVIDERS.find((p) => p.name === 'openai')!;

  for (const toolsAt of ['before', 'between', 'after-execute'] as const) {
    const where = toolsAt === 'after-execute' ? 'after execute' : `${toolsAt} the skills middleware`;
    it(`openai: registerTools ${where}: the same tools offered, the same answer`, async () => {
      const { host } = sisu;
      const server = await sisu.start(openai, [{ toolCalls: [{ name: 'use_skill', arguments: { skill_name: 'code-review' } }] }, 'Done.']);
      const ctx = createCtx(host, openai.model(host, server), { input: 'Review src/auth.ts.' });
      await runAgent(host, stack(toolsAt, host.registerTools([hostTool('grep')])), ctx);
      expect(server.violations).toEqual([]);
      expect(server.requests[0]!.tools.map((t) => t.name).sort()).toEqual(['grep', 'read_skill_resource', 'use_skill']);
      expect(lastToolResult(server.requests[1]!)!.split('\n')[1]).toBe(lackedToolsLine(['read_file', 'bash']));
    });
  }

  for (const skillsFirst of [false, true]) {
    const placed = skillsFirst ? 'before inputToMessage' : 'after it';
    it(`openai: @code-review injected ${placed}, registerTools after execute: told what is missing, no more`, async () => {
      const { host } = sisu;
      const server = await sisu.start(openai, ['Reviewed.']);
      const ctx = createCtx(host, openai.model(host, server), { input: '@code-review src/auth.ts' });
      await runAgent(host, stack('after-execute', host.registerTools([hostTool('read_file'), hostTool('grep')]), skillsFirst), ctx);
      expect(server.violations).toEqual([]);
      const injected = toolResults(server.requests[0]!);
      expect(injected).toHaveLength(1);
      expect(injected[0]!.text.split('\n').slice(0, 2)).toEqual(['<skill name="code-review">', lackedToolsLine(['bash'])]);
      expect(injected[0]!.text).toContain('# Code Review');
    });
  }

  it("openai: registerTools' aliases count: terminalRun seen as bash, terminalReadFile as read_file; nothing lacking, nothing said", async () => {
    const { host } = sisu;
    const server = await sisu.start(openai, [{ toolCalls: [{ name: 'use_skill', arguments: { skill_name: 'code-review' } }] }, 'Done.']);
    const ctx = createCtx(host, openai.model(host, server), { input: 'Review src/auth.ts.' });
    const register = host.registerTools([hostTool('terminalRun'), hostTool('terminalReadFile'), hostTool('grep')], {
      aliases: { terminalRun: 'bash', terminalReadFile: 'read_file' },
    });
    await runAgent(host, stack('between', register), ctx);
    expect(server.violations).toEqual([]);
    expect(server.requests[0]!.tools.map((t) => t.name).sort()).toEqual(['bash', 'grep', 'read_file', 'read_skill_resource', 'use_skill']);
    const review = lastToolResult(server.requests[1]!)!;
    expect(review).toContain('# Code Review');
    expect(review).not.toContain('lacks tools');
  });
});

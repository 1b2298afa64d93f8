/**
 * Scenario: SISU's own examples/openai-skills wiring, as written there:
 * errorBoundary, traceViewer, registerTools with aliases, skillsMiddleware
 * (before inputToMessage), inputToMessage, conversationBuffer({ window: 6 }),
 * execute; skills read from SISU's published skill packages installed under
 * a temporary app's node_modules/@sisu-ai/. The example's terminal tool is
 * replaced by a small read tool under the same alias (`read_file`).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { getSkills, parseFrontmatter, skillsMiddleware } from '../../src/index.js';
import {
  createCtx,
  describeSisu,
  installSisuSkills,
  lastToolResult,
  PROVIDERS,
  realSisu,
  toolResults,
  type InstalledSkills,
  type SisuCtx,
  type SisuLLM,
} from './host.js';

const EXAMPLE_SYSTEM = 'You are a helpful assistant. Use skills when they provide structured guidance.';
const EXAMPLE_INPUT = 'Map where tool aliases are configured in this repo. Use the repo-search skill.';

describeSisu("SISU's openai-skills example wiring with SISU's own skill packages", () => {
  const sisu = realSisu();
  let installed: InstalledSkills;
  beforeAll(async () => {
    installed = await installSisuSkills(['skill-code-review', 'skill-repo-search']);
  });
  afterAll(() => installed?.remove());

  const installedFile = (pkg: string, file: string): string =>
    readFileSync(path.join(installed.appDir, 'node_modules', '@sisu-ai', pkg, file), 'utf8');
  const bodyOf = (pkg: string): string => parseFrontmatter(installedFile(pkg, 'SKILL.md')).body.trim();

  /** The example's stack; returns what its error boundary caught and where the trace went. */
  function exampleApp(ctxErrors: unknown[]) {
    const { host } = sisu;
    // As in the example: directories under the app's node_modules/@sisu-ai/.
    const skillDirs = [
      path.join(installed.appDir, 'node_modules', '@sisu-ai', 'skill-code-review'),
      path.join(installed.appDir, 'node_modules', '@sisu-ai', 'skill-repo-search'),
    ];
    const readFile = {
      name: 'terminalReadFile',
      description: 'Read a text file of the repository.',
      schema: z.object({ path: z.string() }),
      handler: async ({ path: file }: { path: string }) => `contents of ${file}`,
    };
    const tracePath = path.join(installed.appDir, 'traces', `run-${ctxErrors.length}-${Date.now()}.json`);
    const app = new host.core.Agent()
      .use(
        host.errorBoundary(async (error, c) => {
          ctxErrors.push(error);
          c.messages.push({ role: 'assistant', content: 'Sorry, something went wrong.' });
        }),
      )
      .use(host.traceViewer({ enable: true, path: tracePath, html: false }))
      .use(host.registerTools([readFile], { aliases: { terminalReadFile: 'read_file' } }))
      .use(skillsMiddleware({ directories: skillDirs }))
      .use(host.core.inputToMessage)
      .use(host.conversationBuffer({ window: 6 }))
      .use(host.core.execute);
    return { app, tracePath };
  }

  function exampleCtx(model: SisuLLM, input: string): SisuCtx {
    return createCtx(sisu.host, model, { input, systemPrompt: EXAMPLE_SYSTEM });
  }

  for (const provider of PROVIDERS) {
    it(`${provider.name}: the model activates repo-search, reads its cheatsheet and uses the aliased tool`, async () => {
      const { host } = sisu;
      const server = await sisu.start(provider, [
        (request) => {
          // Decided from what the model is shown, as a real model would.
          expect(request.system).toContain('repo-search');
          return { toolCalls: [{ name: 'use_skill', arguments: { skill_name: 'repo-search' } }] };
        },
        { toolCalls: [{ name: 'read_skill_resource', arguments: { skill_name: 'repo-search', path: 'resources/search-cheatsheet.md' } }] },
        { toolCalls: [{ name: 'read_file', arguments: { path: 'packages/core/src/util.ts' } }] },
        'Aliases are configured in registerTools.',
      ]);
      const errors: unknown[] = [];
      const { app, tracePath } = exampleApp(errors);
      const ctx = exampleCtx(provider.model(host, server), EXAMPLE_INPUT);

      await app.handler()(ctx);

      expect(errors).toEqual([]);
      expect(server.violations).toEqual([]);
      const first = server.requests[0]!;
      expect(first.system).toContain(EXAMPLE_SYSTEM);
      expect(first.system).toContain('code-review');
      expect(first.tools.map((t) => t.name).sort()).toEqual(['read_file', 'read_skill_resource', 'use_skill']);
      expect(lastToolResult(server.requests[1]!)).toContain(bodyOf('skill-repo-search'));
      expect(lastToolResult(server.requests[2]!)).toContain(installedFile('skill-repo-search', 'resources/search-cheatsheet.md').trim());
      expect(lastToolResult(server.requests[3]!)).toBe('contents of packages/core/src/util.ts');
      expect(host.core.getExecutionResult(ctx)?.text).toBe('Aliases are configured in registerTools.');
      expect(getSkills(ctx)?.activated).toEqual(['repo-search']);

      const trace = readFileSync(tracePath, 'utf8');
      expect(trace).toContain('[skills] discovered');
      expect(trace).toContain('[skills] activated');
    });

    it(`${provider.name}: an @mention in the example's order activates code-review before the model runs`, async () => {
      const { host } = sisu;
      const server = await sisu.start(provider, ['Reviewing with the checklist.']);
      const errors: unknown[] = [];
      const { app } = exampleApp(errors);
      const ctx = exampleCtx(provider.model(host, server), '@code-review please look at my change to util.ts');

      await app.handler()(ctx);

      expect(errors).toEqual([]);
      expect(server.violations).toEqual([]);
      const first = server.requests[0]!;
      expect(first.messages[0]).toEqual({ role: 'user', text: '@code-review please look at my change to util.ts' });
      const shown = toolResults(first);
      expect(shown).toHaveLength(1);
      expect(shown[0]?.text).toContain(bodyOf('skill-code-review'));
      expect(getSkills(ctx)?.activated).toEqual(['code-review']);
    });
  }
});

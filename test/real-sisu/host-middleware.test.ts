/**
 * Scenario: SISU's own middleware around and beside ours.
 * - errorBoundary: no skill failure reaches it; the model gets a message instead.
 * - traceViewer: the trace file shows `[skills] discovered` and `[skills] activated`.
 * - registerTools([createUseSkillTool(skills), ...]): the standalone tools,
 *   hand-wired with skills from discoverSkills, work inside execute.
 * - toolCalling / iterativeToolCalling: the deprecated wrappers of execute.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createFindSkillsTool, createReadResourceTool, createUseSkillTool, discoverSkills, skillsMiddleware } from '../../src/index.js';
import {
  createCtx,
  defaultBody,
  describeSisu,
  lastToolResult,
  PROVIDERS,
  realSisu,
  runAgent,
  skillsFixture,
  type SisuLLM,
  type SisuMiddleware,
} from './host.js';

const NOTES = 'Keep the summary under ten lines. NOTES-TEXT-5150.\n';

describeSisu("SISU's own middleware with the skills middleware", () => {
  const sisu = realSisu();
  const skills = skillsFixture([
    { name: 'summarize', files: { 'references/notes.md': NOTES, '.env': 'TOKEN=hunter2-7788\n' } },
    { name: 'house-style' },
    // Broken frontmatter: a diagnostic, never an error in the agent.
    { name: 'broken', frontmatter: 'tags: [unclosed' },
  ]);
  let traceDir = '';
  beforeAll(() => {
    traceDir = mkdtempSync(path.join(os.tmpdir(), 'real-sisu-trace-'));
  });
  afterAll(() => {
    if (traceDir) rmSync(traceDir, { recursive: true, force: true });
  });

  async function runStack(stack: SisuMiddleware[], input: string, model: SisuLLM) {
    const ctx = createCtx(sisu.host, model, { input });
    await runAgent(sisu.host, stack, ctx);
    return ctx;
  }

  /** Runs the skills middleware inside SISU's errorBoundary; returns what the boundary caught. */
  async function runInBoundary(input: string, model: SisuLLM): Promise<unknown[]> {
    const { host } = sisu;
    const caught: unknown[] = [];
    const boundary = host.errorBoundary(async (error) => {
      caught.push(error);
    });
    await runStack([boundary, host.core.inputToMessage, skillsMiddleware({ directories: [skills.root] }), host.core.execute], input, model);
    return caught;
  }

  for (const provider of PROVIDERS) {
    it(`${provider.name}: errorBoundary never sees a skill failure; the model is told what went wrong`, async () => {
      const server = await sisu.start(provider, [
        { toolCalls: [{ name: 'use_skill', arguments: { skill_name: 'sumarize' } }] },
        { toolCalls: [{ name: 'read_skill_resource', arguments: { skill_name: 'summarize', path: '../house-style/SKILL.md' } }] },
        { toolCalls: [{ name: 'read_skill_resource', arguments: { skill_name: 'summarize', path: '.env' } }] },
        { toolCalls: [{ name: 'read_skill_resource', arguments: { skill_name: 'nope', path: 'references/notes.md' } }] },
        'Could not do it.',
      ]);
      const caught = await runInBoundary('Summarize this with @missing-skill style.', provider.model(sisu.host, server));
      expect(caught).toEqual([]);
      expect(server.violations).toEqual([]);
      expect(lastToolResult(server.requests[1]!)).toMatch(/not found.*summarize/s);
      expect(lastToolResult(server.requests[2]!)).not.toContain('BODY-OF-house-style');
      expect(lastToolResult(server.requests[3]!)).not.toContain('hunter2-7788');
      expect(lastToolResult(server.requests[4]!)).toMatch(/not found/);
    });

    it(`${provider.name}: errorBoundary never sees a use_skill call with malformed arguments`, async () => {
      // execute runs schema.parse before the handler: a throw there would end the run.
      const server = await sisu.start(provider, [
        { toolCalls: [{ name: 'use_skill', arguments: { skill: 'summarize' } }] },
        'Retrying later.',
      ]);
      const caught = await runInBoundary('Summarize this.', provider.model(sisu.host, server));
      expect(caught.map((e) => (e instanceof Error ? e.message : String(e)))).toEqual([]);
      expect(lastToolResult(server.requests[1]!)).toMatch(/skill_name/);
    });

    it(`${provider.name}: traceViewer's file shows [skills] discovered and [skills] activated`, async () => {
      const { host } = sisu;
      const tracePath = path.join(traceDir, `${provider.name}.json`);
      const server = await sisu.start(provider, [
        { toolCalls: [{ name: 'use_skill', arguments: { skill_name: 'summarize' } }] },
        'Summarized.',
      ]);
      await runStack(
        [
          host.traceViewer({ enable: true, path: tracePath, html: false }),
          host.core.inputToMessage,
          skillsMiddleware({ directories: [skills.root] }),
          host.core.execute,
        ],
        '@house-style summarize the meeting',
        provider.model(host, server),
      );
      expect(server.violations).toEqual([]);
      expect(existsSync(tracePath)).toBe(true);
      const trace = JSON.parse(readFileSync(tracePath, 'utf8')) as { events: Array<{ level: string; args: unknown[] }> };
      const events = trace.events.filter((e) => typeof e.args[0] === 'string' && e.args[0].startsWith('[skills]'));
      expect(events.filter((e) => e.args[0] === '[skills] discovered')).toHaveLength(1);
      expect(events.filter((e) => e.args[0] === '[skills] activated').map((e) => e.args[1])).toEqual([
        { skill: 'house-style', route: 'mention', arguments: 'summarize the meeting' },
        { skill: 'summarize', route: 'model' },
      ]);
    });

    it(`${provider.name}: registerTools with the standalone tools from discoverSkills works in execute`, async () => {
      const { host } = sisu;
      const { skills: found } = await discoverSkills({ directories: [skills.root] });
      const server = await sisu.start(provider, [
        { toolCalls: [{ name: 'find_skills', arguments: { query: 'summarize a meeting' } }] },
        { toolCalls: [{ name: 'use_skill', arguments: { skill_name: 'summarize' } }] },
        { toolCalls: [{ name: 'read_skill_resource', arguments: { skill_name: 'summarize', path: 'references/notes.md' } }] },
        'Summarized.',
      ]);
      const tools = [createFindSkillsTool(found), createUseSkillTool(found), createReadResourceTool(found)];
      await runStack(
        [host.core.inputToMessage, host.registerTools(tools), host.core.execute],
        'Summarize the meeting.',
        provider.model(host, server),
      );
      expect(server.violations).toEqual([]);
      expect(server.requests[0]!.tools.map((t) => t.name)).toEqual(['find_skills', 'use_skill', 'read_skill_resource']);
      expect(lastToolResult(server.requests[1]!)).toContain('summarize');
      expect(lastToolResult(server.requests[2]!)).toContain(defaultBody('summarize').trim());
      expect(lastToolResult(server.requests[3]!)).toContain(NOTES.trim());
    });

    for (const wrapper of ['toolCalling', 'iterativeToolCalling'] as const) {
      it(`${provider.name}: the deprecated ${wrapper} wrapper runs use_skill`, async () => {
        const { host } = sisu;
        const server = await sisu.start(provider, [
          { toolCalls: [{ name: 'use_skill', arguments: { skill_name: 'summarize' } }] },
          'Summarized.',
        ]);
        const ctx = await runStack(
          [host.core.inputToMessage, skillsMiddleware({ directories: [skills.root] }), host[wrapper]],
          'Summarize the meeting.',
          provider.model(host, server),
        );
        expect(server.violations).toEqual([]);
        expect(lastToolResult(server.requests[1]!)).toContain(defaultBody('summarize').trim());
        expect(host.core.getExecutionResult(ctx)?.text).toBe('Summarized.');
      });
    }
  }
});

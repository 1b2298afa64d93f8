/**
 * approve and the activation events in the real SISU, with both adapters:
 * a denied `@` mention and a denied use_skill answer the model with a short
 * message that is not the skill (and the injected denial obeys each
 * provider's protocol), an approved skill activates, and SISU's traceViewer
 * writes every activation, denial and read as a span with its fields. An
 * onEvent that throws does not break the run.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { skillsMiddleware, type SkillEvent } from '../../src/index.js';
import { createCtx, describeSisu, lastToolResult, PROVIDERS, realSisu, skillsFixture } from './host.js';

interface TraceEvent {
  level: string;
  args: unknown[];
}

describeSisu('approve and events in the real SISU', () => {
  const sisu = realSisu();
  const skills = skillsFixture([
    { name: 'deploy-production', files: { 'references/runbook.md': 'RUNBOOK\n' } },
    { name: 'code-review', files: { 'references/checklist.md': 'CHECKLIST\n' } },
  ]);

  for (const provider of PROVIDERS) {
    it(`${provider.name}: denials reach the model as messages, approvals activate, traceViewer shows every event`, async () => {
      const { host } = sisu;
      const server = await sisu.start(provider, [
        { toolCalls: [{ name: 'use_skill', arguments: { skill_name: 'code-review' } }] },
        { toolCalls: [{ name: 'read_skill_resource', arguments: { skill_name: 'code-review', path: 'references/checklist.md' } }] },
        { toolCalls: [{ name: 'use_skill', arguments: { skill_name: 'deploy-production' } }] },
        'done',
      ]);
      const asked: string[] = [];
      const events: SkillEvent[] = [];
      const skillsMw = skillsMiddleware({
        directories: [skills.root],
        approve: async ({ skill, route }) => {
          asked.push(`${skill.metadata.name}:${route}`);
          return skill.metadata.name === 'deploy-production' ? { approved: false, reason: 'production needs a human' } : true;
        },
        onEvent: (event) => {
          events.push(event);
          throw new Error('event sink down');
        },
      });
      const dir = mkdtempSync(path.join(os.tmpdir(), 'skills-trace-'));
      try {
        const tracePath = path.join(dir, 'trace.json');
        const ctx = createCtx(host, provider.model(host, server), { input: 'Please @deploy-production now' });
        const app = new host.core.Agent()
          .use(host.traceViewer({ enable: true, path: tracePath, json: true, html: false }))
          .use(host.core.inputToMessage)
          .use(skillsMw)
          .use(host.core.execute)
          .handler();
        await app(ctx);

        expect(server.violations).toEqual([]);
        expect(host.core.getExecutionResult(ctx)?.text).toBe('done');
        expect(asked).toEqual(['deploy-production:mention', 'code-review:model']);
        const denial =
          'Activation of skill "deploy-production" was not approved for this conversation. Reason: production ' +
          'needs a human. Its instructions are not available; continue without this skill and do not call it again.';
        // The mention's denial is in front of the model from its first request on; the model's own call gets the same answer.
        const first = server.requests[0];
        expect(first?.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
        expect(lastToolResult(first!)).toBe(denial);
        expect(lastToolResult(server.requests[3]!)).toBe(denial);
        expect(JSON.stringify(server.requests.map((r) => r.body))).not.toContain('BODY-OF-deploy-production');
        expect(lastToolResult(server.requests[1]!)).toContain('BODY-OF-code-review');

        const expected = [
          { type: 'denial', skill: 'deploy-production', route: 'mention', size: 0, outcome: 'denied', reason: 'production needs a human' },
          { type: 'activation', skill: 'code-review', route: 'model', size: expect.any(Number), outcome: 'ok' },
          {
            type: 'resource-read',
            skill: 'code-review',
            route: 'model',
            size: expect.any(Number),
            outcome: 'ok',
            path: 'references/checklist.md',
          },
          {
            type: 'denial',
            skill: 'deploy-production',
            route: 'model',
            size: 0,
            outcome: 'denied',
            reason: 'production needs a human',
            remembered: true,
          },
        ];
        expect(events).toEqual(expected);
        // What SISU's trace viewer wrote: each event as a span with its fields; the throwing onEvent logged, not thrown.
        const trace = JSON.parse(readFileSync(tracePath, 'utf8')) as { events: TraceEvent[] };
        const spans = trace.events.filter((e) => e.level === 'span' && e.args[0] !== 'skills.discover').map((e) => e.args);
        expect(spans).toEqual([
          ['skills.deny', expected[0]],
          ['skills.activate', expected[1]],
          ['skills.read', expected[2]],
          ['skills.deny', expected[3]],
        ]);
        expect(trace.events.filter((e) => e.args[0] === '[skills] onEvent failed')).toHaveLength(4);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

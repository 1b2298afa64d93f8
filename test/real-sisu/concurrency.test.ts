/**
 * Scenario: eight requests at once on one middleware instance, each with its
 * own ctx, through SISU's real execute and adapter. Half activate a skill
 * through use_skill, half by @mention. The server holds every first reply
 * until all eight conversations have arrived, so the runs truly overlap.
 * Each run must see its own skill only: no activation, body or count leaks
 * between requests.
 */
import { expect, it } from 'vitest';
import type { ScriptedRequest } from '../../demo/scripted-model.mjs';
import { getSkills, skillsMiddleware } from '../../src/index.js';
import { createCtx, describeSisu, PROVIDERS, realSisu, toolResults, skillsFixture } from './host.js';

const RUNS = 8;
const NAMES = ['alpha-task', 'beta-task', 'gamma-task', 'delta-task'];
const skillOf = (i: number): string => NAMES[i % NAMES.length]!;
const inputOf = (i: number): string =>
  i % 2 === 0 ? `request-${i}: do the ${skillOf(i)} work` : `request-${i}: @${skillOf(i)} do the work`;

/** Resolves once `count` distinct conversations have been seen; `release()` lets everyone through early (a run failed). */
function barrier(count: number) {
  const seen = new Set<number>();
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return {
    arrive(id: number): Promise<void> {
      seen.add(id);
      if (seen.size >= count) open();
      return opened;
    },
    release: () => open(),
  };
}

describeSisu('eight concurrent requests on one middleware instance', () => {
  const sisu = realSisu();
  const skills = skillsFixture(NAMES.map((name) => ({ name })));

  for (const provider of PROVIDERS) {
    it(`${provider.name}: every run gets its own skill and nothing else`, async () => {
      const { host } = sisu;
      const gate = barrier(RUNS);
      const conversationOf = (request: ScriptedRequest): number => {
        const user = request.messages.find((m) => m.role === 'user');
        const match = /request-(\d+)/.exec(user?.role === 'user' ? user.text : '');
        if (!match) throw new Error('a request without its conversation number');
        return Number(match[1]);
      };
      const called = new Set<number>();
      const server = await sisu.start(provider, async (request) => {
        const i = conversationOf(request);
        await gate.arrive(i);
        // Even runs: the model activates its skill once, then answers. Odd runs: the mention did it.
        if (i % 2 === 0 && !called.has(i)) {
          called.add(i);
          return { toolCalls: [{ name: 'use_skill', arguments: { skill_name: skillOf(i) } }] };
        }
        return `done ${i}`;
      });
      const model = provider.model(host, server);
      const skillsMw = skillsMiddleware({ directories: [skills.root] });
      const app = new host.core.Agent().use(host.core.inputToMessage).use(skillsMw).use(host.core.execute).handler();
      const ctxs = Array.from({ length: RUNS }, (_, i) => createCtx(host, model, { input: inputOf(i) }));

      const outcomes = await Promise.allSettled(
        ctxs.map((ctx) =>
          app(ctx).catch((error: unknown) => {
            gate.release();
            throw error;
          }),
        ),
      );

      expect(outcomes.filter((o) => o.status === 'rejected')).toEqual([]);
      expect(server.violations).toEqual([]);
      ctxs.forEach((ctx, i) => {
        const own = skillOf(i);
        expect(host.core.getExecutionResult(ctx)?.text).toBe(`done ${i}`);
        expect(getSkills(ctx)?.activated).toEqual([own]);
        const results = ctx.messages.filter((m) => m.role === 'tool').map((m) => m.content);
        expect(results).toHaveLength(1);
        expect(results[0]).toContain(`BODY-OF-${own}`);
        for (const other of NAMES.filter((n) => n !== own)) expect(JSON.stringify(ctx.messages)).not.toContain(`BODY-OF-${other}`);
      });
      // What the model was shown last in each conversation: its own skill only.
      for (const request of server.requests) {
        const i = conversationOf(request);
        for (const result of toolResults(request)) expect(result.text).toContain(`BODY-OF-${skillOf(i)}`);
      }
    });
  }
});

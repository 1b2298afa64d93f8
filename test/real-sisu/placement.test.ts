/**
 * Scenario: an @mention and `always`, with the skills middleware placed after
 * inputToMessage/conversationBuffer and before them (SISU's own example
 * order). Both placements must give the same activations, shown to the model
 * in the same order, and every request must pass the provider's protocol
 * checks (the scripted server answers 400 otherwise).
 */
import { expect, it } from 'vitest';
import type { ScriptedRequest } from '../../demo/scripted-model.mjs';
import { getSkills, skillsMiddleware } from '../../src/index.js';
import {
  createCtx,
  defaultBody,
  describeSisu,
  placedStack,
  PROVIDERS,
  realSisu,
  runAgent,
  skillsFixture,
  toolResults,
  toolText,
  useSkillCalls,
  type Placement,
  type Provider,
} from './host.js';

const INPUT = '@deploy-app please ship the hotfix branch';
/** 64 characters: the longest name agentskills.io allows. */
const LONG_NAME = `house-style-${'x'.repeat(52)}`;

describeSisu('@mention and always, skills placed before or after inputToMessage', () => {
  const sisu = realSisu();
  const skills = skillsFixture([{ name: 'deploy-app' }, { name: 'house-style' }, { name: 'unrelated' }, { name: LONG_NAME }]);

  /** Runs one request; returns the first request the model got and the ctx. */
  async function run(provider: Provider, placement: Placement, always: string[], input = INPUT) {
    const { host } = sisu;
    const server = await sisu.start(provider, ['On it.']);
    const ctx = createCtx(host, provider.model(host, server), { input });
    const skillsMw = skillsMiddleware({ directories: [skills.root], always });
    await runAgent(host, placedStack(host, placement, skillsMw, 12), ctx);
    expect(server.violations).toEqual([]);
    return { ctx, request: server.requests[0]! };
  }

  /** The conversation as the model saw it, without ids: roles, texts and use_skill calls. */
  function shape(request: ScriptedRequest): string[] {
    return request.messages.map((m) => {
      if (m.role === 'user') return `user: ${m.text}`;
      if (m.role === 'tool') return `tool: ${toolText(m.content).split('\n')[0] ?? ''}`;
      return `assistant: ${m.toolCalls.map((c) => `${c.name}(${JSON.stringify(c.arguments)})`).join(', ')}`;
    });
  }

  for (const provider of PROVIDERS) {
    for (const placement of ['after', 'before'] as const) {
      it(`${provider.name}, skills ${placement} inputToMessage: the mention and the always skill reach the model`, async () => {
        const { ctx, request } = await run(provider, placement, ['house-style']);
        expect(useSkillCalls(request)).toEqual(['deploy-app', 'house-style']);
        const shown = toolResults(request).map((r) => r.text);
        expect(shown).toHaveLength(2);
        expect(shown[0]).toContain(defaultBody('deploy-app').trim());
        expect(shown[1]).toContain(defaultBody('house-style').trim());
        // The user's turn comes first: the activations answer it.
        expect(request.messages[0]).toEqual({ role: 'user', text: INPUT });
        expect(getSkills(ctx)?.activated).toEqual(['deploy-app', 'house-style']);
        expect(ctx.log.find('[skills] activated').map((e) => e.args[1])).toEqual([
          { skill: 'deploy-app', route: 'mention', arguments: 'please ship the hotfix branch' },
          { skill: 'house-style', route: 'always' },
        ]);
      });
    }

    it(`${provider.name}: both placements show the model the same conversation`, async () => {
      const after = shape((await run(provider, 'after', ['house-style'])).request);
      const before = shape((await run(provider, 'before', ['house-style'])).request);
      expect(before).toEqual(after);
    });

    it(`${provider.name}: an always skill with a 64-character name keeps its tool-call ids within the provider's limits`, async () => {
      const { request } = await run(provider, 'after', [LONG_NAME], 'Tidy up the README.');
      expect(useSkillCalls(request)).toEqual([LONG_NAME]);
      expect(toolResults(request)[0]?.text).toContain(defaultBody(LONG_NAME).trim());
    });
  }
});

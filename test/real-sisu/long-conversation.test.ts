/**
 * Scenario: a 20-turn chat on one ctx under SISU's conversationBuffer, the
 * model activating a skill through use_skill on turn 1 and the user asking
 * follow-ups. Windows of 4, 6 and 12 messages, the skills middleware after
 * the buffer and before it, both providers with their protocol checks. The
 * model must see the skill's instructions on every turn after activation.
 * On the code before keepInView, the instructions left the window after a
 * few turns (window 4: from turn 3) and never came back.
 */
import { expect, it } from 'vitest';
import type { ScriptedRequest } from '../../demo/scripted-model.mjs';
import { getSkills, skillsMiddleware } from '../../src/index.js';
import { converse, turnsThatSaw } from './conversation.js';
import { describeSisu, PROVIDERS, realSisu, skillsFixture } from './host.js';

const TURNS = 20;
const MARKER = 'BODY-OF-code-review';
const inputs = Array.from({ length: TURNS }, (_, i) => (i === 0 ? 'Please review my branch.' : `Follow-up question ${i + 1}?`));

/** Turn 1: the model activates the skill, then answers; every later turn: a plain answer. */
function reply(request: ScriptedRequest, turn: number) {
  const last = request.messages.at(-1);
  if (turn === 1 && last?.role === 'user') return { toolCalls: [{ name: 'use_skill', arguments: { skill_name: 'code-review' } }] };
  return `Answer to turn ${turn}.`;
}

describeSisu('a 20-turn conversation under conversationBuffer keeps the active skill in view', () => {
  const sisu = realSisu();
  const skills = skillsFixture([{ name: 'code-review' }, { name: 'unrelated' }]);

  for (const provider of PROVIDERS) {
    for (const placement of ['after', 'before'] as const) {
      for (const window of [4, 6, 12]) {
        it(`${provider.name}, skills ${placement} the buffer, window ${window}: the instructions are in every request after activation`, async () => {
          const skillsMw = skillsMiddleware({ directories: [skills.root] });
          const { ctx, server, turns } = await converse(sisu, { provider, placement, window, skillsMw, inputs, reply });
          expect(server.violations).toEqual([]);
          const seen = turnsThatSaw(turns, MARKER);
          if (process.env.MEASURE_TURNS) console.log(`turns seen ${provider.name} ${placement} window ${window}: ${seen.length}/${TURNS}`);
          expect(seen).toEqual(Array.from({ length: TURNS }, (_, i) => i + 1));
          // Never two copies in one request: put back only when it was gone.
          for (const request of turns.flat()) {
            expect(request.messages.filter((m) => m.role === 'tool' && m.content.includes(MARKER)).length).toBeLessThanOrEqual(1);
          }
          expect(getSkills(ctx)?.activated).toEqual(['code-review']);
          if (window < 12) expect(ctx.log.find('[skills] kept in view').length).toBeGreaterThan(0);
          for (const entry of ctx.log.find('[skills] kept in view')) {
            expect(entry.args[1]).toMatchObject({ route: 'kept-in-view', skills: [{ skill: 'code-review', cut: false }] });
          }
        });
      }
    }
  }
});

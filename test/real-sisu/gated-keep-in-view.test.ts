/**
 * visible, approve and events on the keep-in-view route, in the real SISU
 * under conversationBuffer with both providers: a skill put
 * back while visible is an event (route kept-in-view); once `visible` hides
 * it, it never comes back; in a resumed conversation (a new ctx) the skills
 * its messages hold are asked about once, route kept-in-view, and a denied
 * one is never put back.
 */
import path from 'node:path';
import { expect, it } from 'vitest';
import { getSkills, skillsMiddleware, type SkillActivation, type SkillEvent } from '../../src/index.js';
import { converse, sawInToolResult } from './conversation.js';
import { describeSisu, PROVIDERS, realSisu, skillsFixture, type SisuCtx } from './host.js';

const inputs = (n: number, first: string) => Array.from({ length: n }, (_, i) => (i === 0 ? first : `Follow-up ${i + 1}?`));
const MARKER = 'BODY-OF-code-review';

/**
 * A conversation saved earlier: code-review activated by the model (from `folder`, where it still is: another
 * folder would be told again, as changed), then enough turns for a window of 4 to trim it.
 */
function savedHistory(folder: string): SisuCtx['messages'] {
  return [
    { role: 'user', content: 'Review this.' },
    { role: 'assistant', content: '', tool_calls: [{ id: 'call_saved_1', name: 'use_skill', arguments: { skill_name: 'code-review' } }] },
    {
      role: 'tool',
      tool_call_id: 'call_saved_1',
      content: JSON.stringify(`<skill name="code-review">\nSkill directory: ${folder}\n\n# code-review\n\n${MARKER}: saved.\n</skill>`),
    },
    { role: 'assistant', content: 'Reviewed.' },
    { role: 'user', content: 'And then?' },
    { role: 'assistant', content: 'Then this.' },
  ];
}

describeSisu('visible, approve and events on the kept-in-view route', () => {
  const sisu = realSisu();
  const skills = skillsFixture([{ name: 'code-review' }, { name: 'debug' }]);

  for (const provider of PROVIDERS) {
    it(`${provider.name}: put back while visible (an event each time), never once visible hides it`, async () => {
      const events: SkillEvent[] = [];
      // The app's rule changes from turn 5 on (say, the user's plan ran out): the turn is in the user's message.
      const hiddenNow = (input: unknown) => /Follow-up [5-9]/.test(String(input));
      const skillsMw = skillsMiddleware({
        directories: [skills.root],
        visible: (skill, ctx) => !(skill.metadata.name === 'code-review' && hiddenNow(ctx.input)),
        onEvent: (event) => void events.push(event),
      });
      const { server, turns, ctx } = await converse(sisu, {
        provider,
        placement: 'after',
        window: 4,
        skillsMw,
        inputs: inputs(7, '@code-review this change'),
        reply: (_request, turn) => `Answer ${turn}.`,
      });
      expect(server.violations).toEqual([]);
      const saw = turns.map((requests) => requests.every((r) => sawInToolResult(r, MARKER)));
      expect(saw).toEqual([true, true, true, true, false, false, false]);
      const kept = events.filter((e) => e.type === 'kept-in-view');
      expect(kept.length).toBeGreaterThan(0);
      for (const event of kept)
        expect(event).toEqual({
          type: 'kept-in-view',
          skill: 'code-review',
          route: 'kept-in-view',
          size: expect.any(Number),
          outcome: 'ok',
        });
      expect(kept.every((e) => e.size > MARKER.length)).toBe(true);
      // Hidden now: gone from the run view too.
      expect(getSkills(ctx)?.activated).toEqual([]);
      expect(JSON.stringify(turns.slice(4).map((t) => t.map((r) => r.body)))).not.toContain(MARKER);
    });

    for (const approved of [true, false]) {
      const outcome = approved ? 'puts the skill back' : 'never puts a denied skill back';
      it(`${provider.name}: a resumed conversation asks once (route kept-in-view) and ${outcome}`, async () => {
        const asked: SkillActivation[] = [];
        const skillsMw = skillsMiddleware({
          directories: [skills.root],
          approve: (activation) => {
            asked.push(activation);
            return approved;
          },
        });
        const { server, turns, ctx } = await converse(sisu, {
          provider,
          placement: 'after',
          // Turn 1 holds the whole saved history (the run recalls the activation); from turn 2 on it is trimmed.
          window: 8,
          skillsMw,
          history: savedHistory(path.join(skills.root, 'code-review')),
          inputs: inputs(4, 'Next question.'),
          reply: (_request, turn) => `Answer ${turn}.`,
        });
        expect(server.violations).toEqual([]);
        expect(asked.map((a) => [a.skill.metadata.name, a.route])).toEqual([['code-review', 'kept-in-view']]);
        const fresh = turns.map((requests) => requests.every((r) => sawInToolResult(r, `BODY-OF-code-review: follow`)));
        const inView = turns.map((requests) => requests.every((r) => sawInToolResult(r, MARKER)));
        if (approved) {
          // In view on every turn: the saved activation while the window holds it, then the one put back.
          expect(inView).toEqual([true, true, true, true]);
          expect(fresh[0]).toBe(false);
          expect(fresh.at(-1)).toBe(true);
        } else {
          expect(fresh).toEqual([false, false, false, false]);
          expect(inView.at(-1)).toBe(false);
        }
        expect(getSkills(ctx)?.activated).toEqual(approved ? ['code-review'] : []);
        if (!approved) {
          const denied = ctx.log.find('[skills] activation denied');
          expect(denied[0]?.args[1]).toEqual({ skill: 'code-review', route: 'kept-in-view' });
        }
      });
    }
  }
});

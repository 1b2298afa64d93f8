/**
 * Scenarios around keeping skills in view, in the real SISU under
 * conversationBuffer({ window: 4 }), both providers with their protocol
 * checks: the model asking for a skill again once it is out of view, two
 * skills that together exceed the budget, and a skill other middleware ended.
 */
import { expect, it } from 'vitest';
import type { ScriptedRequest } from '../../demo/scripted-model.mjs';
import { getSkills, skillsMiddleware } from '../../src/index.js';
import { converse, sawInToolResult } from './conversation.js';
import { describeSisu, lastToolResult, PROVIDERS, realSisu, skillsFixture, type SisuMiddleware } from './host.js';

/** The request answers the model's own tool call (not an activation the middleware put in). */
const answersOwnCall = (request: ScriptedRequest) => {
  const last = request.messages.at(-1);
  return last?.role === 'tool' && !last.toolCallId.startsWith('skills_');
};

const inputs = (n: number, first: string) => Array.from({ length: n }, (_, i) => (i === 0 ? first : `Follow-up ${i + 1}?`));

/** A body of `lines` numbered lines of about 100 characters each. */
const longBody = (name: string, lines: number) =>
  Array.from({ length: lines }, (_, i) => `LINE-${name}-${String(i + 1).padStart(4, '0')}: ${'x'.repeat(80)}`).join('\n') + '\n';

describeSisu('keeping skills in view: repeated calls, the budget, ended skills', () => {
  const sisu = realSisu();
  const skills = skillsFixture([
    { name: 'code-review' },
    { name: 'older', body: longBody('older', 120) },
    { name: 'newer', body: longBody('newer', 120) },
  ]);

  for (const provider of PROVIDERS) {
    it(`${provider.name}: use_skill called again once the buffer trimmed the answer gets the instructions, not "already active"`, async () => {
      const answers: string[] = [];
      const reply = (request: ScriptedRequest, turn: number) => {
        if (answersOwnCall(request)) {
          answers.push(lastToolResult(request) ?? '');
          return 'Following the skill.';
        }
        if (turn === 1 || turn === 5) return { toolCalls: [{ name: 'use_skill', arguments: { skill_name: 'code-review' } }] };
        return `Answer ${turn}.`;
      };
      // keepInView off: nothing puts the skill back, so on turn 5 the model has lost it and asks again.
      const skillsMw = skillsMiddleware({ directories: [skills.root], keepInView: false });
      const { server, turns } = await converse(sisu, {
        provider,
        placement: 'after',
        window: 4,
        skillsMw,
        inputs: inputs(6, 'Review this.'),
        reply,
      });
      expect(server.violations).toEqual([]);
      expect(sawInToolResult(turns[4]![0]!, 'BODY-OF-code-review')).toBe(false);
      expect(answers).toHaveLength(2);
      expect(answers[1]).toContain('BODY-OF-code-review');
      expect(answers[1]).not.toContain('already active');
    });

    it(`${provider.name}: "already active" is said only while the instructions are in the request`, async () => {
      const notes: ScriptedRequest[] = [];
      const reply = (request: ScriptedRequest, turn: number) => {
        if (answersOwnCall(request)) {
          if (turn === 5) notes.push(request);
          return 'Ok.';
        }
        if (turn === 1 || turn === 5) return { toolCalls: [{ name: 'use_skill', arguments: { skill_name: 'code-review' } }] };
        return `Answer ${turn}.`;
      };
      const skillsMw = skillsMiddleware({ directories: [skills.root] });
      const { server } = await converse(sisu, {
        provider,
        placement: 'before',
        window: 4,
        skillsMw,
        inputs: inputs(6, 'Review this.'),
        reply,
      });
      expect(server.violations).toEqual([]);
      // Kept in view, so the second call is answered briefly, and truly: the request holds the instructions.
      expect(lastToolResult(notes[0]!)).toContain('already active');
      expect(sawInToolResult(notes[0]!, 'BODY-OF-code-review')).toBe(true);
    });

    it(`${provider.name}: two skills over the budget: the newer whole, the older cut at a line with the call that reads on`, async () => {
      const reply = (request: ScriptedRequest, turn: number) => {
        if (answersOwnCall(request)) return 'Ok.';
        if (turn === 1) return { toolCalls: [{ name: 'use_skill', arguments: { skill_name: 'older' } }] };
        if (turn === 2) return { toolCalls: [{ name: 'use_skill', arguments: { skill_name: 'newer' } }] };
        return `Answer ${turn}.`;
      };
      // Each skill is about 12,100 characters as activated: both together exceed 18,000. A window of
      // 2 messages trims both activations at once from turn 3 on.
      const skillsMw = skillsMiddleware({ directories: [skills.root], keepInView: { maxChars: 18_000, maxSkillChars: 15_000 } });
      const { ctx, server, turns } = await converse(sisu, {
        provider,
        placement: 'after',
        window: 2,
        skillsMw,
        inputs: inputs(6, 'Start.'),
        reply,
      });
      expect(server.violations).toEqual([]);
      const request = turns[5]![0]!;
      const texts = request.messages.filter((m) => m.role === 'tool').map((m) => m.content);
      const newer = texts.find((t) => t.includes('LINE-newer-0001'));
      const older = texts.find((t) => t.includes('LINE-older-0001'));
      expect(newer).toContain('LINE-newer-0120');
      expect(older).not.toContain('LINE-older-0120');
      expect(JSON.stringify(request.body).length).toBeLessThan(40_000);
      // Cut at a line boundary: the last line shown is whole, and the note names the exact call for the rest.
      const decoded = older!.startsWith('"') ? (JSON.parse(older!) as string) : older!;
      const shown = decoded.match(/LINE-older-(\d{4}): x{80}\n\n\[Instructions cut here/);
      expect(shown).not.toBeNull();
      const lastShown = Number(shown![1]);
      const call = decoded.match(/call read_skill_resource with (\{.*?\})\.\]/);
      // The SKILL.md line after the last one shown: 4 frontmatter lines, then body line 1 on line 5.
      expect(JSON.parse(call![1]!)).toEqual({ skill_name: 'older', path: 'SKILL.md', offset: lastShown + 5 });
      const rest = (await ctx.tools
        .get('read_skill_resource')!
        .handler({ skill_name: 'older', path: 'SKILL.md', offset: lastShown + 5, limit: 1 } as never, {} as never)) as string;
      expect(rest).toContain(`LINE-older-${String(lastShown + 1).padStart(4, '0')}`);
      const kept = ctx.log.find('[skills] kept in view').at(-1)?.args[1] as { skills: Array<{ skill: string; cut: boolean }> };
      expect(kept.skills.map((s) => [s.skill, s.cut])).toEqual([
        ['newer', false],
        ['older', true],
      ]);
    });

    it(`${provider.name}: a skill that does not fit what is left is left out, and the log says so`, async () => {
      const reply = (request: ScriptedRequest, turn: number) => {
        if (answersOwnCall(request)) return 'Ok.';
        if (turn === 1) return { toolCalls: [{ name: 'use_skill', arguments: { skill_name: 'older' } }] };
        if (turn === 2) return { toolCalls: [{ name: 'use_skill', arguments: { skill_name: 'newer' } }] };
        return `Answer ${turn}.`;
      };
      const skillsMw = skillsMiddleware({ directories: [skills.root], keepInView: { maxChars: 13_000 } });
      const { ctx, server, turns } = await converse(sisu, {
        provider,
        placement: 'before',
        window: 2,
        skillsMw,
        inputs: inputs(5, 'Start.'),
        reply,
      });
      expect(server.violations).toEqual([]);
      expect(sawInToolResult(turns[4]![0]!, 'LINE-newer-0120')).toBe(true);
      expect(sawInToolResult(turns[4]![0]!, 'LINE-older-0001')).toBe(false);
      const left = ctx.log.find('[skills] not kept in view: over budget').at(-1)?.args[1];
      expect(left).toMatchObject({ route: 'kept-in-view', budget: 13_000, skills: [{ skill: 'older' }] });
    });

    for (const placement of ['after', 'before'] as const) {
      it(`${provider.name}, skills ${placement} the buffer: a skill ended by other middleware is not put back`, async () => {
        let turn = 0;
        // Other middleware, after ours: on turn 4 it decides the review is over.
        const ender: SisuMiddleware = async (ctx, next) => {
          turn++;
          if (turn === 4) expect(getSkills(ctx)?.end('code-review')).toBe(true);
          await next();
        };
        const reply = (request: ScriptedRequest, t: number) => {
          if (answersOwnCall(request)) return 'Ok.';
          return t === 1 ? { toolCalls: [{ name: 'use_skill', arguments: { skill_name: 'code-review' } }] } : `Answer ${t}.`;
        };
        const skillsMw = skillsMiddleware({ directories: [skills.root] });
        const both: SisuMiddleware = async (ctx, next) => skillsMw(ctx, async () => ender(ctx, next));
        const { ctx, server, turns } = await converse(sisu, {
          provider,
          placement,
          window: 4,
          skillsMw: both,
          inputs: inputs(8, 'Review this.'),
          reply,
        });
        expect(server.violations).toEqual([]);
        expect(sawInToolResult(turns[2]![0]!, 'BODY-OF-code-review')).toBe(true);
        for (const requests of turns.slice(4)) expect(sawInToolResult(requests[0]!, 'BODY-OF-code-review')).toBe(false);
        expect(getSkills(ctx)?.activated).toEqual([]);
        expect(getSkills(ctx)?.end('code-review')).toBe(false);
      });
    }
  }
});

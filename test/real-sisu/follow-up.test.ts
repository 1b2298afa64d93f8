/**
 * Scenario: a follow-up turn. Turn one: the model activates a skill through
 * use_skill, so SISU stores the answer as `JSON.stringify(result)`. Turn two
 * starts from that history (as an app keeps it: plain JSON) and the user
 * writes `@same-skill`: the skill is already in the conversation, so no second
 * copy may be injected, in either placement, for either provider.
 */
import { expect, it } from 'vitest';
import { skillsMiddleware } from '../../src/index.js';
import {
  countOf,
  createCtx,
  defaultBody,
  describeSisu,
  placedStack,
  PROVIDERS,
  realSisu,
  runAgent,
  skillsFixture,
  toolResults,
  type SisuMessage,
} from './host.js';

describeSisu('a follow-up turn whose history holds the activation as SISU stores it', () => {
  const sisu = realSisu();
  const skills = skillsFixture([{ name: 'deploy-app' }, { name: 'house-style' }]);
  const body = defaultBody('deploy-app').trim();

  for (const provider of PROVIDERS) {
    for (const placement of ['after', 'before'] as const) {
      it(`${provider.name}, skills ${placement} inputToMessage: @deploy-app in turn two injects nothing`, async () => {
        const { host } = sisu;
        const server = await sisu.start(provider, [
          { toolCalls: [{ name: 'use_skill', arguments: { skill_name: 'deploy-app' } }] },
          'Deployed to staging.',
          'Deploying the hotfix the same way.',
        ]);
        const model = provider.model(host, server);
        // One middleware for the whole conversation, as an app creates it once.
        const skillsMw = skillsMiddleware({ directories: [skills.root] });
        const stack = placedStack(host, placement, skillsMw, 20);

        const first = createCtx(host, model, { input: 'Please deploy my branch.' });
        await runAgent(host, stack, first);
        const stored = first.messages.find((m): m is Extract<SisuMessage, { role: 'tool' }> => m.role === 'tool');
        // The premise: SISU stored the activation as a JSON string.
        expect(stored?.content.startsWith('"')).toBe(true);
        expect(JSON.parse(stored?.content ?? '')).toContain(body);

        // Turn two: the history as an app would have saved it, then the new input.
        // Mid-sentence, so no arguments: nothing new for the model, and the skill is already in the conversation.
        const second = createCtx(host, model, { input: 'Again for the hotfix branch, as @deploy-app says' });
        second.messages = JSON.parse(JSON.stringify(first.messages)) as SisuMessage[];
        await runAgent(host, stack, second);

        expect(server.violations).toEqual([]);
        const request = server.requests[2]!;
        const shown = toolResults(request).filter((r) => r.text.includes(body));
        expect(shown).toHaveLength(1);
        expect(countOf(JSON.stringify(request.body), 'BODY-OF-deploy-app')).toBe(1);
        expect(second.log.find('[skills] activated')).toEqual([]);
      });
    }
  }
});

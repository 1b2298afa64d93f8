/**
 * Scenario: the middleware runs twice on the same ctx, either placed twice in
 * one stack or because the app reuses its ctx for the next turn. Judged on
 * the request the model received: one catalog, each tool once, each
 * activation once.
 */
import { expect, it } from 'vitest';
import type { ScriptedRequest } from '../../demo/scripted-model.mjs';
import { skillsMiddleware } from '../../src/index.js';
import { countOf, createCtx, describeSisu, PROVIDERS, realSisu, toolResults, useSkillCalls, skillsFixture } from './host.js';

describeSisu('the middleware run twice on one ctx', () => {
  const sisu = realSisu();
  const skills = skillsFixture([{ name: 'deploy-app' }, { name: 'house-style' }]);

  function expectOnce(request: ScriptedRequest, activations: string[]): void {
    expect(countOf(request.system, '<available_skills>')).toBe(1);
    expect(countOf(request.system, 'Use when asked to deploy app.')).toBe(1);
    const names = request.tools.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toContain('use_skill');
    expect(useSkillCalls(request)).toEqual(activations);
    for (const name of activations) {
      expect(toolResults(request).filter((r) => r.text.includes(`BODY-OF-${name}`))).toHaveLength(1);
    }
  }

  for (const provider of PROVIDERS) {
    it(`${provider.name}: placed twice in one stack, it registers and injects once`, async () => {
      const { host } = sisu;
      const server = await sisu.start(provider, ['Shipping.']);
      const ctx = createCtx(host, provider.model(host, server), { input: '@deploy-app ship it' });
      const skillsMw = skillsMiddleware({ directories: [skills.root], always: ['house-style'] });
      await new host.core.Agent().use(host.core.inputToMessage).use(skillsMw).use(skillsMw).use(host.core.execute).handler()(ctx);
      expect(server.violations).toEqual([]);
      expectOnce(server.requests[0]!, ['deploy-app', 'house-style']);
      expect(ctx.log.find('[skills] activated')).toHaveLength(2);
    });

    it(`${provider.name}: a ctx reused for the next turn gets no second catalog, tool or activation`, async () => {
      const { host } = sisu;
      const server = await sisu.start(provider, ['Shipping.', 'Shipped again.']);
      const ctx = createCtx(host, provider.model(host, server), { input: '@deploy-app ship it' });
      const app = new host.core.Agent()
        .use(host.core.inputToMessage)
        .use(skillsMiddleware({ directories: [skills.root], always: ['house-style'] }))
        .use(host.core.execute)
        .handler();
      await app(ctx);
      // Mentioned mid-sentence (no arguments): the active skill is not injected again.
      ctx.input = 'And once more for the hotfix, @deploy-app';
      await app(ctx);
      expect(server.violations).toEqual([]);
      expectOnce(server.requests[0]!, ['deploy-app', 'house-style']);
      expectOnce(server.requests[1]!, ['deploy-app', 'house-style']);
    });
  }
});

/**
 * Scenario: in one run the model calls use_skill, then read_skill_resource,
 * then use_skill for a second skill, through SISU's real execute loop and
 * each real adapter. The tool messages must carry the SKILL.md bodies and the
 * file's text as SISU stores them (`JSON.stringify(result)`), and the model
 * must be shown each of them on the next request.
 */
import { expect, it } from 'vitest';
import { getSkills, skillsMiddleware } from '../../src/index.js';
import { createCtx, defaultBody, describeSisu, lastToolResult, PROVIDERS, realSisu, toolText, skillsFixture } from './host.js';

const FORMAT_FILE = 'Group changes as Added, Changed, Fixed. FILE-TEXT-4821.\n';

describeSisu('use_skill, read_skill_resource, use_skill in one real execute run', () => {
  const sisu = realSisu();
  const skills = skillsFixture([{ name: 'release-notes', files: { 'references/format.md': FORMAT_FILE } }, { name: 'house-style' }]);

  for (const provider of PROVIDERS) {
    it(`${provider.name}: every answer reaches the model and the stored tool messages`, async () => {
      const { host } = sisu;
      const server = await sisu.start(provider, [
        { toolCalls: [{ name: 'use_skill', arguments: { skill_name: 'release-notes' } }] },
        { toolCalls: [{ name: 'read_skill_resource', arguments: { skill_name: 'release-notes', path: 'references/format.md' } }] },
        { toolCalls: [{ name: 'use_skill', arguments: { skill_name: 'house-style' } }] },
        'Drafted the notes in house style.',
      ]);
      const ctx = createCtx(host, provider.model(host, server), { input: 'Write release notes for v2.' });
      const app = new host.core.Agent()
        .use(host.core.inputToMessage)
        .use(skillsMiddleware({ directories: [skills.root] }))
        .use(host.core.execute);

      await app.handler()(ctx);

      expect(server.violations).toEqual([]);
      expect(host.core.getExecutionResult(ctx)?.text).toBe('Drafted the notes in house style.');
      const expected = [defaultBody('release-notes').trim(), FORMAT_FILE.trim(), defaultBody('house-style').trim()];

      // What SISU stored: one tool message per call, content JSON.stringify(result).
      const stored = ctx.messages.filter((m) => m.role === 'tool');
      expect(stored).toHaveLength(3);
      stored.forEach((message, i) => {
        expect(() => JSON.parse(message.content)).not.toThrow();
        expect(toolText(message.content)).toContain(expected[i]);
      });

      // What the model was shown: each answer as the last message of the next request.
      expect(server.requests).toHaveLength(4);
      for (const [i, text] of expected.entries()) expect(lastToolResult(server.requests[i + 1]!)).toContain(text);
      expect(getSkills(ctx)?.activated).toEqual(['release-notes', 'house-style']);
    });
  }
});

/**
 * Property, in the real SISU with both adapters: for a random visibility
 * function and random tool calls, what the model server receives (every
 * request body, byte for byte) is what it receives from the same library
 * with the hidden skills never installed (`include` lists the visible ones).
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import type { ScriptedToolCall } from '../../demo/scripted-model.mjs';
import { skillsMiddleware, type SkillsOptions } from '../../src/index.js';
import { createCtx, describeSisu, PROVIDERS, realSisu, skillsFixture, type Provider, type SkillSpec } from './host.js';

const SPECS: SkillSpec[] = [
  { name: 'report-writer', description: 'Writes quarterly reports from spreadsheets.', files: { 'references/guide.md': 'guide\n' } },
  { name: 'deploy-production', description: 'Deploys services to production clusters.', files: { 'scripts/deploy.sh': 'echo\n' } },
  { name: 'payroll-export', description: 'Exports payroll data to CSV files for accounting.' },
  { name: 'pdf-forms', description: 'Fills PDF forms and extracts their fields.' },
  { name: 'deploy-staging', description: 'Deploys services to the staging cluster for testing.' },
];
const NAMES = SPECS.map((s) => s.name);

const nameArb = fc.oneof(fc.constantFrom(...NAMES), fc.constantFrom('deploy', 'payroll-expor', 'zzz'));
const callArb: fc.Arbitrary<ScriptedToolCall> = fc.oneof(
  nameArb.map((name) => ({ name: 'use_skill', arguments: { skill_name: name } })),
  fc
    .tuple(nameArb, fc.constantFrom('SKILL.md', 'scripts/deploy.sh', 'references/guide.md'))
    .map(([name, path]) => ({ name: 'read_skill_resource', arguments: { skill_name: name, path } })),
  fc.constantFrom('deploy services', 'payroll csv', 'pdf forms').map((query) => ({ name: 'find_skills', arguments: { query } })),
);

describeSisu('visible in the real SISU: a random visibility and random tool calls look like a library without the hidden skills', () => {
  const sisu = realSisu();
  const skills = skillsFixture(SPECS);

  /** Every request body the model server got for one conversation of `calls` (one per round), then text. */
  async function bodies(provider: Provider, options: SkillsOptions, input: string, calls: readonly ScriptedToolCall[]): Promise<string[]> {
    const { host } = sisu;
    const server = await sisu.start(provider, [...calls.map((call) => ({ toolCalls: [call] })), 'done']);
    const app = new host.core.Agent().use(host.core.inputToMessage).use(skillsMiddleware(options)).use(host.core.execute).handler();
    // With no skill visible no tool is registered, and SISU's execute fails the call as it would for a library of none.
    const outcome = await app(createCtx(host, provider.model(host, server), { input })).then(
      () => 'completed',
      (error: unknown) => `failed: ${error instanceof Error ? error.message : String(error)}`,
    );
    expect(server.violations).toEqual([]);
    return [...server.requests.map((request) => JSON.stringify(request.body)), outcome];
  }

  for (const provider of PROVIDERS) {
    it(`${provider.name}: request bodies are equal, byte for byte`, { timeout: 60_000 }, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.boolean(), { minLength: NAMES.length, maxLength: NAMES.length }),
          fc.array(callArb, { minLength: 1, maxLength: 3 }),
          fc.oneof(
            nameArb.map((name) => `please @${name}`),
            fc.constantFrom('deploy services to production', 'hello'),
          ),
          fc.constantFrom(8000, 200),
          async (shownFlags, calls, input, catalogBudget) => {
            const shown = NAMES.filter((_, i) => shownFlags[i]);
            const common = { directories: [skills.root], catalogBudget, findSkills: true, autoActivate: { threshold: 0.25, maxSkills: 1 } };
            const hidden = await bodies(provider, { ...common, visible: (skill) => shown.includes(skill.metadata.name) }, input, calls);
            const never = await bodies(
              provider,
              { ...common, include: shown.length > 0 ? shown : ['no-skill-has-this-name'] },
              input,
              calls,
            );
            expect(hidden).toEqual(never);
          },
        ),
        { numRuns: 25 },
      );
    });
  }
});

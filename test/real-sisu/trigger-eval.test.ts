/**
 * `sisu-skills eval` (issue 21) against SISU's real OpenAI and Anthropic
 * adapters, each pointed at a scripted server that checks the provider's
 * protocol, loaded from a model module as a user writes one. Four models: one
 * that always picks the right skill, one that never picks any, one that
 * confuses two known skills, one that errors; every figure of each report is
 * checked exactly. Then the split: the same seed, the same sets.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ScriptedReply, ScriptedRequest } from '../../demo/scripted-model.mjs';
import type { EvalOutput } from '../../src/cli/eval-command.js';
import { cli } from '../helpers/cli.js';
import { describeSisu, PROVIDERS, realSisu, SISU_ROOT, writeSkills, type Provider } from './host.js';

/** The cases, in file order: two for pdf-forms, one mentioning @pdf-split (pre-activated), two for invoice-chaser, one for none. */
const CASES = [
  { query: 'Fill in the tax PDF form for me and flatten it', expect: 'pdf-forms' },
  { query: 'Complete this PDF form with my address', expect: 'pdf-forms' },
  { query: '@pdf-split split report.pdf into one file per chapter', expect: 'pdf-split' },
  { query: 'ACME has not paid invoice 42: send a polite reminder', expect: 'invoice-chaser' },
  { query: 'Chase the unpaid invoices from March', expect: 'invoice-chaser' },
  { query: 'What is the capital of France?', expect: null },
] as const;
const RUNS = 3;

type Model = 'right' | 'never' | 'confuses' | 'errors';

/** The user's query of a request: its first user message. */
function queryOf(request: ScriptedRequest): string {
  const first = request.messages.find((m) => m.role === 'user');
  return first?.role === 'user' ? first.text : '';
}

function useSkill(name: string): ScriptedReply {
  return { toolCalls: [{ name: 'use_skill', arguments: { skill_name: name } }] };
}

/** Each scripted model, answering any request by its query. */
const MODELS: Record<Model, (request: ScriptedRequest) => ScriptedReply> = {
  right: (request) => {
    const expected = CASES.find((c) => c.query === queryOf(request))?.expect;
    return expected ? useSkill(expected) : 'Paris.';
  },
  never: () => 'I can do that without a skill.',
  confuses: (request) => {
    const expected = CASES.find((c) => c.query === queryOf(request))?.expect;
    if (expected === 'pdf-forms') return useSkill('pdf-split');
    return expected ? useSkill(expected) : 'Paris.';
  },
  errors: (request) => {
    if (queryOf(request).includes('invoice')) throw new Error('model overloaded');
    const expected = CASES.find((c) => c.query === queryOf(request))?.expect;
    return expected ? useSkill(expected) : 'Paris.';
  },
};

/** A model module as a user writes one: SISU's real adapter, as the default export or as `model`. */
function moduleText(provider: Provider['name'], url: string): string {
  const adapter = (name: string) =>
    JSON.stringify(pathToFileURL(path.join(SISU_ROOT, 'node_modules', '@sisu-ai', name, 'dist', 'index.js')).href);
  return provider === 'openai'
    ? `const { openAIAdapter } = await import(${adapter('adapter-openai')});\nexport const model = ` +
        `openAIAdapter({ model: 'gpt-scripted', apiKey: 'test-key', baseUrl: ${JSON.stringify(url)} });\n`
    : `import { anthropicAdapter } from ${adapter('adapter-anthropic')};\nexport default anthropicAdapter({ ` +
        `model: 'claude-scripted', apiKey: 'test-key', baseUrl: ${JSON.stringify(url)}, maxRetries: 0 });\n`;
}

describeSisu('sisu-skills eval through the real middleware and SISU adapters', () => {
  const sisu = realSisu();
  let root: string;
  let remove: () => void;

  beforeAll(() => {
    ({ root, remove } = writeSkills([
      { name: 'pdf-forms', description: 'Fill in and flatten PDF forms. Use when a user sends a PDF form to complete.' },
      { name: 'pdf-split', description: 'Split a PDF into pages or ranges. Use when a PDF must be cut into parts.' },
      { name: 'invoice-chaser', description: 'Write polite reminders for unpaid invoices. Use when an invoice is overdue.' },
    ]));
    writeFileSync(path.join(root, 'cases.jsonl'), `${CASES.map((c) => JSON.stringify(c)).join('\n')}\n`);
  });
  afterAll(() => remove());

  // A new file per server: Node caches a module by its URL for the life of the process.
  let modules = 0;
  async function evaluate(provider: Provider, model: Model, extra: string[] = []) {
    const server = await sisu.start(provider, MODELS[model]);
    const modulePath = path.join(root, `model-${provider.name}-${model}-${++modules}.mjs`);
    writeFileSync(modulePath, moduleText(provider.name, server.url));
    const run = await cli(
      ['eval', '.', '--cases', 'cases.jsonl', '--model', path.basename(modulePath), '--runs', String(RUNS), '--json', ...extra],
      root,
    );
    return { server, run, report: JSON.parse(run.stdout || '{}') as EvalOutput };
  }

  for (const provider of PROVIDERS) {
    it(`${provider.name}: a model that always picks the right skill scores 1 everywhere, through the real catalog and tools`, async () => {
      const { server, run, report } = await evaluate(provider, 'right');
      expect(server.violations).toEqual([]);
      expect(run.code).toBe(0);
      expect(server.requests).toHaveLength(CASES.length * RUNS);
      // What the middleware put in front of the model: the catalog, and use_skill.
      for (const request of server.requests) {
        expect(request.system).toContain('<available_skills>');
        expect(request.tools.map((t) => t.name)).toContain('use_skill');
      }
      expect(report.skills).toEqual([
        { skill: 'invoice-chaser', cases: 2, triggerRate: 1, tp: 2, fn: 0, fp: 0, precision: 1, recall: 1, f1: 1 },
        { skill: 'pdf-forms', cases: 2, triggerRate: 1, tp: 2, fn: 0, fp: 0, precision: 1, recall: 1, f1: 1 },
        { skill: 'pdf-split', cases: 1, triggerRate: 1, tp: 1, fn: 0, fp: 0, precision: 1, recall: 1, f1: 1 },
      ]);
      expect(report.totals).toEqual({ cases: 6, passed: 6, runs: 18, errors: 0, tp: 5, fp: 0, fn: 0, precision: 1, recall: 1, f1: 1 });
      expect(report.confusions).toEqual([]);
      expect(report.cases.map((c) => c.rate)).toEqual([1, 1, 1, 1, 1, 0]);
      expect(report).toMatchObject({ mode: 'model', runsPerCase: 3, threshold: 0.5, skillsInCatalog: 3, ok: true });
    });

    it(`${provider.name}: a model that never picks a skill: only the @mention's pre-activation triggers`, async () => {
      const { server, run, report } = await evaluate(provider, 'never', ['--min-f1', '0.5']);
      expect(server.violations).toEqual([]);
      expect(report.skills).toEqual([
        { skill: 'invoice-chaser', cases: 2, triggerRate: 0, tp: 0, fn: 2, fp: 0, precision: null, recall: 0, f1: 0 },
        { skill: 'pdf-forms', cases: 2, triggerRate: 0, tp: 0, fn: 2, fp: 0, precision: null, recall: 0, f1: 0 },
        { skill: 'pdf-split', cases: 1, triggerRate: 1, tp: 1, fn: 0, fp: 0, precision: 1, recall: 1, f1: 1 },
      ]);
      expect(report.totals).toEqual({
        cases: 6,
        passed: 2,
        runs: 18,
        errors: 0,
        tp: 1,
        fp: 0,
        fn: 4,
        precision: 1,
        recall: 0.2,
        f1: 2 / 6,
      });
      // Below --min-f1: exit 1, and stderr says why.
      expect(report.ok).toBe(false);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('eval: F1 0.33 is below --min-f1 0.5.');
    });

    it(`${provider.name}: a model that confuses pdf-forms with pdf-split: the confusion and its cost in precision`, async () => {
      const { server, run, report } = await evaluate(provider, 'confuses');
      expect(server.violations).toEqual([]);
      expect(run.code).toBe(0);
      expect(report.skills).toEqual([
        { skill: 'invoice-chaser', cases: 2, triggerRate: 1, tp: 2, fn: 0, fp: 0, precision: 1, recall: 1, f1: 1 },
        { skill: 'pdf-forms', cases: 2, triggerRate: 0, tp: 0, fn: 2, fp: 0, precision: null, recall: 0, f1: 0 },
        { skill: 'pdf-split', cases: 1, triggerRate: 1, tp: 1, fn: 0, fp: 2, precision: 1 / 3, recall: 1, f1: 0.5 },
      ]);
      expect(report.confusions).toEqual([{ expected: 'pdf-forms', got: 'pdf-split', runs: 6 }]);
      expect(report.totals).toEqual({
        cases: 6,
        passed: 4,
        runs: 18,
        errors: 0,
        tp: 3,
        fp: 2,
        fn: 2,
        precision: 0.6,
        recall: 0.6,
        f1: 0.6,
      });
      expect(report.cases.filter((c) => !c.pass).map((c) => c.line)).toEqual([1, 2]);
    });

    it(`${provider.name}: a model that errors: its runs are counted and reported, the rest still scored`, async () => {
      const { run, report } = await evaluate(provider, 'errors');
      expect(run.code).toBe(0);
      expect(report.skills).toEqual([
        { skill: 'invoice-chaser', cases: 2, triggerRate: null, tp: 0, fn: 0, fp: 0, precision: null, recall: null, f1: null },
        { skill: 'pdf-forms', cases: 2, triggerRate: 1, tp: 2, fn: 0, fp: 0, precision: 1, recall: 1, f1: 1 },
        { skill: 'pdf-split', cases: 1, triggerRate: 1, tp: 1, fn: 0, fp: 0, precision: 1, recall: 1, f1: 1 },
      ]);
      expect(report.totals).toEqual({ cases: 6, passed: 4, runs: 12, errors: 6, tp: 3, fp: 0, fn: 0, precision: 1, recall: 1, f1: 1 });
      expect(report.cases.slice(3, 5).map((c) => [c.runs, c.errors, c.rate, c.pass])).toEqual([
        [0, 3, null, false],
        [0, 3, null, false],
      ]);
      expect(report.errorMessages.reduce((n, e) => n + e.runs, 0)).toBe(6);
      expect(report.errorMessages[0]?.message).toMatch(/400|overloaded/);
    });
  }

  for (const provider of PROVIDERS) {
    it(`${provider.name}: a model that searches with find_skills first gets the real answer, then its use_skill counts`, async () => {
      const server = await sisu.start(provider, (request) => {
        const last = request.messages.at(-1);
        const expected = CASES.find((c) => c.query === queryOf(request))?.expect;
        if (last?.role === 'tool') return expected && last.content.includes(expected) ? useSkill(expected) : 'Nothing fits.';
        return { toolCalls: [{ name: 'find_skills', arguments: { query: queryOf(request) } }] };
      });
      const modulePath = path.join(root, `model-${provider.name}-search-${++modules}.mjs`);
      // findSkills: true registers find_skills whatever the budget.
      writeFileSync(modulePath, `${moduleText(provider.name, server.url)}export const skillsOptions = { findSkills: true };\n`);
      const run = await cli(['eval', '.', '--cases', 'cases.jsonl', '--model', path.basename(modulePath), '--runs', '1', '--json'], root);
      expect(server.violations).toEqual([]);
      const report = JSON.parse(run.stdout) as EvalOutput;
      expect(report.cases.map((c) => [c.line, c.triggered])).toEqual([
        [1, { 'pdf-forms': 1 }],
        [2, { 'pdf-forms': 1 }],
        [3, { 'pdf-split': 1 }],
        [4, { 'invoice-chaser': 1 }],
        [5, { 'invoice-chaser': 1 }],
        [6, {}],
      ]);
      // Each run: the search, then the answer to it (the real tool's text) and the model's choice; the
      // @pdf-split run starts with the injected activation last, so the model chooses at once.
      expect(server.requests).toHaveLength(11);
      const answered = server.requests.filter((r) => {
        const call = r.messages.at(-2);
        return call?.role === 'assistant' && call.toolCalls.some((c) => c.name === 'find_skills') && r.messages.at(-1)?.role === 'tool';
      });
      expect(answered).toHaveLength(5);
      for (const request of answered) {
        const expected = CASES.find((c) => c.query === queryOf(request))?.expect;
        if (expected) expect(request.messages.at(-1)).toMatchObject({ role: 'tool', content: expect.stringContaining(expected) });
      }
      expect(report.totals).toMatchObject({ passed: 6, f1: 1 });
    });
  }

  it('a model that fails every request: reported, exit 1, never a crash; the text report names the error', async () => {
    const provider = PROVIDERS[1] as Provider;
    const server = await sisu.start(provider, () => {
      throw new Error('model offline');
    });
    writeFileSync(path.join(root, 'model-down.mjs'), moduleText(provider.name, server.url));
    const run = await cli(['eval', '.', '--cases', 'cases.jsonl', '--model', 'model-down.mjs', '--runs', '1'], root);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('Total: 0/6 cases passed; precision -, recall -, F1 -; 0 runs, 6 errors.');
    expect(run.stdout).toMatch(/Model error \(6 runs\): .*model offline/);
    expect(run.stderr).toContain('eval: every run failed');
  });

  for (const provider of PROVIDERS) {
    it(`${provider.name}: a run the model does not answer within --timeout is aborted and counted as an error`, async () => {
      const server = await sisu.start(provider, async (request) => {
        if (queryOf(request).startsWith('Chase')) await new Promise((resolve) => setTimeout(resolve, 5000));
        const expected = CASES.find((c) => c.query === queryOf(request))?.expect;
        return expected ? useSkill(expected) : 'Paris.';
      });
      const modulePath = path.join(root, `model-${provider.name}-slow-${++modules}.mjs`);
      writeFileSync(modulePath, moduleText(provider.name, server.url));
      const run = await cli(
        ['eval', '.', '--cases', 'cases.jsonl', '--model', path.basename(modulePath), '--runs', '1', '--timeout', '2', '--json'],
        root,
      );
      const report = JSON.parse(run.stdout) as EvalOutput;
      expect(report.errorMessages).toEqual([{ message: 'no answer within 2 s (--timeout)', runs: 1 }]);
      expect(report.totals).toMatchObject({ cases: 6, passed: 5, runs: 5, errors: 1 });
      expect(run.code).toBe(0);
    });
  }

  it('--split with a seed: the same seed gives the same sets, both kinds of case in proportion', async () => {
    const provider = PROVIDERS[0] as Provider;
    const sets = async (seed: string) => {
      const { report, server } = await evaluate(provider, 'right', ['--split', '0.6', '--seed', seed, '--runs', '1']);
      return { sets: report.cases.map((c) => c.set), split: report.split, requests: server.requests.length };
    };
    const first = await sets('7');
    const again = await sets('7');
    expect(first.requests).toBe(6);
    expect(again.requests).toBe(6);
    expect(again.sets).toEqual(first.sets);
    // 5 should-trigger cases: 3 in train; 1 should-not: round(0.6) = 1 in train.
    expect(first.sets.filter((s) => s === 'train')).toHaveLength(4);
    expect(first.sets[5]).toBe('train');
    expect(first.split).toMatchObject({ share: 0.6, seed: 7, train: { totals: { cases: 4 } }, validation: { totals: { cases: 2 } } });
    const seeds = await Promise.all(['1', '2', '3', '4'].map(sets));
    expect(new Set(seeds.map((s) => s.sets.join())).size).toBeGreaterThan(1);
  });
});

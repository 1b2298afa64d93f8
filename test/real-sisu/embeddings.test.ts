/**
 * Finding skills by meaning (`embeddings`) through SISU's real
 * `createEmbeddingsClient`, against an OpenAI-compatible `/v1/embeddings`
 * server on 127.0.0.1 (scripts/embeddings-server.mjs checks the protocol).
 * Behind it, a deterministic model whose meaning we control: each dimension
 * is a concept, and a text's vector counts the concept words it holds, so
 * "regular check-ups for our automobiles" and "periodic maintenance for
 * company cars" point the same way without sharing a word.
 */
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeAll, expect, it, onTestFinished } from 'vitest';
import {
  startEmbeddingsServer,
  type EmbeddingsFault,
  type EmbeddingsRequest,
  type EmbeddingsServer,
} from '../../scripts/embeddings-server.mjs';
import { getSkills, skillsMiddleware } from '../../src/middleware.js';
import type { SkillsOptions } from '../../src/run/options.js';
import type { EmbeddingsProviderLike } from '../../src/base/host.js';
import { callTool, conversation, createContext, type StackContext } from '../helpers/stack.js';
import { cli } from '../helpers/cli.js';
import { describeSisu, SISU_ROOT, skillsFixture, type SkillSpec } from './host.js';

const CONCEPTS: readonly string[][] = [
  ['car', 'cars', 'automobile', 'automobiles', 'vehicle', 'vehicles', 'fleet', 'truck'],
  ['maintenance', 'check', 'ups', 'servicing', 'repair', 'periodic', 'regular', 'upkeep'],
  ['invoice', 'invoices', 'billing', 'payment', 'payments', 'money', 'owed'],
  ['pdf', 'document', 'documents', 'form', 'forms', 'paperwork'],
  ['review', 'code', 'pull', 'diff', 'bug'],
  ['travel', 'trip', 'flight', 'flights', 'hotel', 'hotels', 'journey', 'vacation'],
  ['confidential', 'salary', 'salaries', 'payroll', 'earn', 'wages'],
];

/** The model: one dimension per concept and one that every text has a little of (no zero vectors). */
function conceptVector(text: string): number[] {
  const vector = new Array<number>(CONCEPTS.length + 1).fill(0);
  vector[CONCEPTS.length] = 0.05;
  for (const word of text.toLowerCase().split(/[^a-z]+/)) {
    CONCEPTS.forEach((words, i) => {
      if (words.includes(word)) vector[i] = (vector[i] ?? 0) + 1;
    });
  }
  return vector;
}

const MEANT: SkillSpec[] = [
  { name: 'fleet-care', description: 'Periodic maintenance for company cars.' },
  { name: 'invoice-desk', description: 'Create invoices and chase payments.' },
  { name: 'pdf-forms', description: 'Fill PDF forms and merge documents.' },
  { name: 'code-review', description: 'Review a pull request diff.' },
  { name: 'trip-planner', description: 'Plan a trip with flights and hotels.' },
  { name: 'payroll-tables', description: 'Confidential salary tables for HR.' },
];
/** Skills with no concept word, so the library needs a ranked catalog and three batches. */
const FILLER: SkillSpec[] = Array.from({ length: 144 }, (_, i) => ({
  name: `widget-${String(i).padStart(3, '0')}`,
  description: `Handles widget ${i} chores for the zeta team.`,
}));
const SKILLS = [...MEANT, ...FILLER];
const REQUEST = 'regular check-ups for our automobiles';
const MODEL = 'concepts-1';

interface Core {
  createEmbeddingsClient(options: { baseUrl: string; model: string; apiKey?: string }): EmbeddingsProviderLike;
}

describeSisu('embeddings through SISU createEmbeddingsClient', () => {
  const fixture = skillsFixture(SKILLS);
  let core: Core;
  const servers: EmbeddingsServer[] = [];
  const closers: Array<() => Promise<void>> = [];
  beforeAll(async () => {
    core = (await import(pathToFileURL(path.join(SISU_ROOT, 'node_modules/@sisu-ai/core/dist/index.js')).href)) as Core;
  });
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((close) => close()));
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  async function serve(fault?: (request: EmbeddingsRequest, count: number) => EmbeddingsFault): Promise<EmbeddingsServer> {
    const server = await startEmbeddingsServer((texts) => texts.map(conceptVector), fault ? { fault } : {});
    servers.push(server);
    return server;
  }
  const client = (server: EmbeddingsServer, model = MODEL): EmbeddingsProviderLike =>
    core.createEmbeddingsClient({ baseUrl: server.url, model, apiKey: 'test-key' });

  function middleware(server: EmbeddingsServer, options: Partial<SkillsOptions> = {}, model = MODEL) {
    const mw = skillsMiddleware({
      directories: [fixture.root],
      catalogBudget: 1500,
      rankInstructions: false,
      embeddings: { provider: client(server, model), model, batchSize: 64, retries: 1, retryDelayMs: 1 },
      ...options,
    });
    closers.push(() => mw.close());
    return mw;
  }
  async function request(mw: ReturnType<typeof skillsMiddleware>, text: string): Promise<StackContext> {
    const ctx = createContext({ messages: conversation(text) });
    await mw(ctx, async () => undefined);
    return ctx;
  }
  /** The skill names the catalog lists, in order. */
  const listed = (ctx: StackContext): string[] =>
    [...(ctx.messages[0]?.content ?? '').matchAll(/^- ([a-z0-9-]+)(?::|$)/gm)].map((m) => m[1] as string);
  const skillTexts = (server: EmbeddingsServer): string[] => server.requests.flatMap((r) => r.input).filter((t) => /^[a-z0-9 ]+: /.test(t));

  it('finds a skill that shares no word with the request, by meaning, where words find nothing', async () => {
    const server = await serve();
    const wordsOnly = skillsMiddleware({ directories: [fixture.root], catalogBudget: 1500, rankInstructions: false });
    const plain = await request(wordsOnly, REQUEST);
    expect(await callTool(plain, 'find_skills', { query: REQUEST })).not.toContain('fleet-care');
    const mw = middleware(server);
    await request(mw, 'hello');
    const outcome = await mw.skillsEmbedded();
    expect(outcome).toMatchObject({ embedded: SKILLS.length, failed: 0 });
    const ctx = await request(mw, REQUEST);
    expect(listed(ctx)[0]).toBe('fleet-care');
    const answer = await callTool(ctx, 'find_skills', { query: 'keeping our automobiles in shape' });
    expect(answer.split('\n')[1]).toMatch(/^- fleet-care: .*\(matched by meaning, no shared words\)$/);
    expect(server.violations).toEqual([]);
  });

  it('autoActivate stays on words: a skill found only by meaning is listed, never activated unasked', async () => {
    const server = await serve();
    const mw = middleware(server, { autoActivate: { threshold: 0.01, maxSkills: 1 } });
    await request(mw, 'hello');
    await mw.skillsEmbedded();
    const ctx = await request(mw, REQUEST);
    expect(listed(ctx)[0]).toBe('fleet-care');
    expect(getSkills(ctx)?.activated).toEqual([]);
    const byWords = await request(mw, 'fill a pdf form');
    expect(getSkills(byWords)?.activated).toEqual(['pdf-forms']);
  });

  it('embeds each skill once, in batches, and a rebuilt index embeds nothing it holds', async () => {
    const server = await serve();
    const mw = middleware(server, { cacheTtl: 0 });
    await request(mw, 'hello');
    await mw.skillsEmbedded();
    const batches = server.requests.filter((r) => r.input.length > 1).map((r) => r.input.length);
    expect(batches).toEqual([64, 64, 22]);
    expect(new Set(skillTexts(server)).size).toBe(SKILLS.length);
    expect(skillTexts(server)).toHaveLength(SKILLS.length);
    // cacheTtl 0: a new scan and a new index, whose skills are all held already.
    await request(mw, 'hello again');
    expect(await mw.skillsEmbedded()).toMatchObject({ embedded: 0, held: SKILLS.length });
    expect(skillTexts(server)).toHaveLength(SKILLS.length);
  });

  it('embeds a repeated message once: reruns, new requests and find_skills with the same text', async () => {
    const server = await serve();
    const mw = middleware(server);
    await request(mw, 'hello');
    await mw.skillsEmbedded();
    const first = await request(mw, REQUEST);
    await request(mw, REQUEST);
    await callTool(first, 'find_skills', { query: REQUEST });
    expect(server.requests.filter((r) => r.input.includes(REQUEST))).toHaveLength(1);
  });

  it('an erroring provider: requests rank by words and log once; skill batches are retried, then left to words', async () => {
    const server = await serve(() => ({ status: 500, message: 'the model is overloaded' }));
    const mw = middleware(server);
    await request(mw, 'hello');
    expect(await mw.skillsEmbedded()).toMatchObject({ embedded: 0, failed: SKILLS.length, calls: 6 });
    const one = await request(mw, 'fill a pdf form');
    const two = await request(mw, 'review my code');
    expect(listed(one)[0]).toBe('pdf-forms');
    expect(listed(two)[0]).toBe('code-review');
    const warned = [...one.log.entries, ...two.log.entries].filter((e) => e.level === 'warn' && String(e.args[0]).includes('could not'));
    expect(warned.map((e) => e.args[0])).toEqual(['[skills] some skills could not be embedded; they are found by words only']);
  });

  it('a batch that fails once is retried and embedded', async () => {
    const server = await serve((_request, count) => (count === 1 ? { status: 503, message: 'try again' } : undefined));
    const mw = middleware(server);
    await request(mw, 'hello');
    expect(await mw.skillsEmbedded()).toMatchObject({ embedded: SKILLS.length, failed: 0, calls: 4 });
  });

  it('a hanging provider holds a request no longer than queryTimeoutMs: it ranks by words and logs once', async () => {
    const server = await serve((r) => (r.input.length === 1 ? 'hang' : undefined));
    const timed = skillsMiddleware({
      directories: [fixture.root],
      catalogBudget: 1500,
      rankInstructions: false,
      embeddings: { provider: client(server), model: MODEL, queryTimeoutMs: 50 },
    });
    closers.push(() => timed.close());
    await request(timed, 'hello');
    await timed.skillsEmbedded();
    const one = await request(timed, 'fill a pdf form');
    const two = await request(timed, REQUEST);
    expect(listed(one)[0]).toBe('pdf-forms');
    // Exactly the words-only order.
    const wordsOnly = skillsMiddleware({ directories: [fixture.root], catalogBudget: 1500, rankInstructions: false });
    expect(listed(two)).toEqual(listed(await request(wordsOnly, REQUEST)));
    expect(listed(two)[0]).not.toBe('fleet-care');
    const warned = [...one.log.entries, ...two.log.entries].filter((e) => e.level === 'warn');
    expect(warned).toHaveLength(1);
    expect(warned[0]?.args[1]).toEqual({ problem: 'no answer within 50 ms' });
  });

  it('`visible`: a hidden skill never surfaces by meaning', async () => {
    const server = await serve();
    const query = 'how much does each person earn in wages';
    const open = middleware(server);
    await request(open, 'hello');
    await open.skillsEmbedded();
    const seen = await request(open, query);
    expect(listed(seen)[0]).toBe('payroll-tables');
    const hidden = middleware(server, { visible: (skill) => skill.metadata.name !== 'payroll-tables' });
    await request(hidden, 'hello');
    await hidden.skillsEmbedded();
    const ctx = await request(hidden, query);
    expect(listed(ctx)).not.toContain('payroll-tables');
    expect(await callTool(ctx, 'find_skills', { query, limit: 20 })).not.toContain('payroll-tables');
    expect(await callTool(ctx, 'use_skill', { skill_name: 'salary-tables' })).not.toContain('payroll-tables');
  });

  describeSisu('the CLI with --embeddings: a prebuilt index with vectors, and eval', () => {
    function embedder(server: EmbeddingsServer, model: string): string {
      // One module per server: an imported module is cached by its URL.
      const file = path.join(fixture.root, `embedder-${model}-${new URL(server.url).port}.mjs`);
      const coreUrl = pathToFileURL(path.join(SISU_ROOT, 'node_modules/@sisu-ai/core/dist/index.js')).href;
      writeFileSync(
        file,
        `import { createEmbeddingsClient } from ${JSON.stringify(coreUrl)};\n` +
          `const client = createEmbeddingsClient({ baseUrl: ${JSON.stringify(server.url)}, model: ${JSON.stringify(model)}, apiKey: 'k' });\n` +
          `export default { provider: client, model: ${JSON.stringify(model)} };\n`,
      );
      return file;
    }
    async function buildIndex(server: EmbeddingsServer): Promise<string> {
      // Beside the skills folder, not in it (it would be read as one of its files); removed after the test.
      const output = path.join(fixture.root, '..', `${path.basename(fixture.root)}.index.json`);
      onTestFinished(() => rmSync(output, { force: true }));
      const run = await cli(['index', fixture.root, '-o', output, '--embeddings', embedder(server, MODEL)]);
      expect(run.stderr).toBe('');
      expect(run.stdout).toContain(`Embedded ${SKILLS.length} skills with model ${MODEL} (8 dimensions, int8, 3 calls)`);
      return output;
    }

    it('starting from it embeds no skill, and the first request already ranks by meaning', async () => {
      const server = await serve();
      const index = await buildIndex(server);
      const before = server.requests.length;
      const mw = middleware(server, { index });
      const ctx = await request(mw, REQUEST);
      expect(listed(ctx)[0]).toBe('fleet-care');
      expect(await mw.skillsEmbedded()).toMatchObject({ embedded: 0, held: SKILLS.length });
      expect(server.requests.slice(before).map((r) => r.input)).toEqual([[REQUEST]]);
    });

    it('an index made with another model warns once and is embedded again in the background', async () => {
      const server = await serve();
      const index = await buildIndex(server);
      const mw = middleware(server, { index }, 'concepts-2');
      const first = await request(mw, REQUEST);
      const second = await request(mw, REQUEST);
      const warned = [...first.log.entries, ...second.log.entries].filter((e) => e.level === 'warn');
      expect(warned.map((e) => e.args[0])).toEqual([
        "[skills] the prebuilt index's vectors are not used; the skills are embedded again in the background",
      ]);
      expect(warned[0]?.args[1]).toMatchObject({ problem: 'model "concepts-1", not "concepts-2"' });
      expect(await mw.skillsEmbedded()).toMatchObject({ embedded: SKILLS.length });
      expect(server.requests.filter((r) => r.model === 'concepts-2' && r.input.length > 1)).toHaveLength(3);
    });

    it('eval --offline --embeddings ranks each case by words and by words + meaning, side by side', async () => {
      const server = await serve();
      const cases = path.join(fixture.root, '..', `${path.basename(fixture.root)}.cases.jsonl`);
      onTestFinished(() => rmSync(cases, { force: true }));
      writeFileSync(
        cases,
        [
          `{"query": "${REQUEST}", "expect": "fleet-care"}`,
          '{"query": "fill a pdf form", "expect": "pdf-forms"}',
          '{"query": "hello", "expect": null}',
        ].join('\n'),
      );
      const run = await cli(['eval', fixture.root, '--cases', cases, '--offline', '--embeddings', embedder(server, MODEL), '--json']);
      const output = JSON.parse(run.stdout) as {
        ranking: { cases: number; words: { top1: number }; hybrid: { top1: number }; higher: number; lower: number };
      };
      expect(output.ranking).toMatchObject({ cases: 2, words: { top1: 0.5 }, hybrid: { top1: 1 }, higher: 1, lower: 0 });
      const text = await cli(['eval', fixture.root, '--cases', cases, '--offline', '--embeddings', embedder(server, MODEL)]);
      expect(text.stdout).toMatch(/\n {2}words +0\.50 +0\.50 +0\.500\n {2}words \+ meaning +1\.00 +1\.00 +1\.000\n/);
    });
  });

  it('an edited skill is embedded again, alone', async () => {
    const server = await serve();
    const mw = middleware(server, { cacheTtl: 0 });
    await request(mw, 'hello');
    await mw.skillsEmbedded();
    const before = skillTexts(server).length;
    const file = path.join(fixture.root, 'trip-planner', 'SKILL.md');
    writeFileSync(file, '---\nname: trip-planner\ndescription: Plan a journey with flights, hotels and a vacation budget.\n---\nSteps.\n');
    await request(mw, 'hello again');
    expect(await mw.skillsEmbedded()).toMatchObject({ embedded: 1, held: SKILLS.length - 1 });
    expect(skillTexts(server).slice(before)).toEqual(['trip planner: Plan a journey with flights, hotels and a vacation budget.']);
    // The old text's vector is dropped: the next index holds exactly the library's.
    await request(mw, 'and again');
    expect(await mw.skillsEmbedded()).toMatchObject({ embedded: 0, held: SKILLS.length });
  });
});

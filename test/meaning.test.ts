/**
 * The meaning layer's parts on their own (no server, no SISU): fusion,
 * unit and Int8 vectors, the index's vector block, the option's checks, the
 * query store's deadline and once-only calls, the skill store's batches,
 * retries and width changes, and the hybrid ranker's proxy. The real path
 * through SISU's client is test/real-sisu/embeddings.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { checkEmbeddings } from '../src/config/embeddings.js';
import { SkillsConfigError } from '../src/config/errors.js';
import { fuse } from '../src/meaning/fusion.js';
import { hybridRanker, matchedBy } from '../src/meaning/hybrid-ranker.js';
import { QueryVectors } from '../src/meaning/query-vectors.js';
import { SkillMeaning } from '../src/meaning/skill-meaning.js';
import { SkillVectors, type EmbeddingSettings } from '../src/meaning/skill-vectors.js';
import { contentKey } from '../src/meaning/skill-text.js';
import { decodeVectors, encodeVectors } from '../src/meaning/vector-file.js';
import { encodingFor, quantize, similarity, unitVector } from '../src/meaning/vectors.js';
import { embedTexts } from '../src/meaning/embed-call.js';
import type { EmbeddingsProviderLike } from '../src/base/host.js';
import type { SkillEntry } from '../src/base/model.js';
import { recordingLogger } from './helpers/logger.js';

const entry = (name: string, description = `About ${name}.`): SkillEntry => ({ metadata: { name, description } }) as SkillEntry;

/** A provider giving each text a fixed vector by its first word, recording every call. */
function provider(
  vectors: Record<string, number[]>,
  fail?: (call: number) => Error | undefined,
): EmbeddingsProviderLike & { calls: string[][] } {
  const calls: string[][] = [];
  return {
    calls,
    embed(input) {
      calls.push(input);
      const error = fail?.(calls.length);
      if (error) return Promise.reject(error);
      return Promise.resolve(input.map((text) => vectors[text.split(/[\s:]/)[0] ?? ''] ?? [0, 0, 1]));
    },
  };
}

const settings = (embed: EmbeddingsProviderLike, more: Partial<EmbeddingSettings> = {}): EmbeddingSettings => ({
  provider: embed,
  model: 'm',
  batchSize: 2,
  concurrency: 1,
  retries: 2,
  backoffMs: 1,
  ...more,
});

describe('fuse (reciprocal-rank fusion)', () => {
  it('puts a skill both lists hold first, says how each was found, and scales the best to 1', () => {
    const fused = fuse(['a', 'b'], ['b', 'c'], 5, { k: 60, meaningWeight: 1 });
    expect(fused.map((r) => [r.name, r.by])).toEqual([
      ['b', 'both'],
      ['a', 'words'],
      ['c', 'meaning'],
    ]);
    expect(fused[0]?.score).toBeLessThan(1);
    expect(fuse(['a'], ['a'], 1)[0]?.score).toBeCloseTo(1);
  });

  it("with a small meaning weight keeps the words' first, moves meaning's pick up one place, and appends what only meaning found", () => {
    expect(fuse(['a', 'b', 'c'], ['c', 'x'], 5, { k: 10, meaningWeight: 0.1 }).map((r) => r.name)).toEqual(['a', 'c', 'b', 'x']);
    expect(fuse(['a', 'b', 'c', 'd'], ['d', 'x'], 5, { k: 10, meaningWeight: 0.1 }).map((r) => r.name)).toEqual(['a', 'b', 'd', 'c', 'x']);
  });

  it('breaks ties by name and honours the limit', () => {
    expect(fuse(['b'], ['a'], 5, { k: 10, meaningWeight: 1 }).map((r) => r.name)).toEqual(['a', 'b']);
    expect(fuse(['a', 'b'], [], 1)).toHaveLength(1);
    expect(fuse(['a'], [], 0)).toEqual([]);
  });
});

describe('vectors', () => {
  it('scales to unit length and refuses empty, zero and non-finite vectors', () => {
    const unit = unitVector([3, 4]);
    expect(Array.from(unit ?? [])).toEqual([expect.closeTo(0.6), expect.closeTo(0.8)]);
    expect(unitVector([])).toBeUndefined();
    expect(unitVector([0, 0])).toBeUndefined();
    expect(unitVector([1, Number.NaN])).toBeUndefined();
  });

  it('keeps wide vectors as Int8 whose cosine stays within 1%', () => {
    expect(encodingFor(384)).toBe('float32');
    expect(encodingFor(1536)).toBe('int8');
    const a = unitVector(Array.from({ length: 64 }, (_, i) => Math.sin(i))) as Float32Array;
    const b = unitVector(Array.from({ length: 64 }, (_, i) => Math.cos(i / 3))) as Float32Array;
    expect(similarity(a, quantize(b))).toBeCloseTo(similarity(a, b), 2);
    expect(similarity(a, quantize(new Float32Array(64)))).toBe(0);
  });
});

describe("a prebuilt index's vector block", () => {
  const a = unitVector([1, 2, 3]) as Float32Array;
  const b = unitVector([3, 2, 1]) as Float32Array;
  const keyed: Array<[string, Float32Array]> = [
    [contentKey('a'), a],
    [contentKey('b'), b],
  ];

  it.each(['float32', 'int8'] as const)('round-trips as %s, as base64 blocks, not number lists', (encoding) => {
    const block = encodeVectors('m', 3, encoding, keyed);
    expect(block).toMatchObject({ model: 'm', dimensions: 3, encoding, count: 2 });
    expect(typeof block.data).toBe('string');
    const decoded = decodeVectors(JSON.parse(JSON.stringify(block)));
    if (!decoded.ok) throw new Error(decoded.problem);
    const vectors = [...decoded.seed.vectors];
    expect(vectors.map(([key]) => key)).toEqual(keyed.map(([key]) => key));
    expect(similarity(a, vectors[0]?.[1] as Float32Array)).toBeCloseTo(1, 2);
    expect(similarity(b, vectors[1]?.[1] as Float32Array)).toBeCloseTo(1, 2);
  });

  it('leaves out vectors of another width or key, and stores an Int8 vector as Float32 when asked', () => {
    const int8 = quantize(a);
    const block = encodeVectors('m', 3, 'float32', [
      [contentKey('a'), int8],
      ['short', b],
      [contentKey('c'), unitVector([1, 1]) as Float32Array],
    ]);
    expect(block.count).toBe(1);
  });

  it.each([
    [null, 'not an object'],
    [{ model: 'm', dimensions: 0, count: 0 }, 'lacks its model'],
    [{ model: 'm', dimensions: 3, count: 1, encoding: 'f16' }, 'unknown vector encoding'],
    [{ model: 'm', dimensions: 3, count: 1, encoding: 'float32', keys: 'x' }, 'keys do not match'],
    [{ model: 'm', dimensions: 3, count: 1, encoding: 'float32', keys: contentKey('a'), data: 'AAAA' }, 'data does not match'],
    [{ model: 'm', dimensions: 3, count: 1, encoding: 'int8', keys: contentKey('a'), data: 'AAAA', scales: '' }, 'scales do not match'],
  ])('says why a block cannot be used: %j', (value, problem) => {
    const decoded = decodeVectors(value);
    expect(decoded.ok).toBe(false);
    if (!decoded.ok) expect(decoded.problem).toContain(problem);
  });
});

describe('the embeddings option', () => {
  const embed: EmbeddingsProviderLike = { embed: () => Promise.resolve([]) };

  it('takes a provider as it is, or with settings, and fills in the defaults', () => {
    expect(checkEmbeddings(undefined)).toBeUndefined();
    expect(checkEmbeddings(embed)).toMatchObject({
      provider: embed,
      model: undefined,
      queryTimeoutMs: 400,
      meaningWeight: 0.05,
      batchSize: 64,
    });
    expect(checkEmbeddings({ provider: embed, model: 'x', queryTimeoutMs: 50, retries: 0, retryDelayMs: 0 })).toMatchObject({
      model: 'x',
      queryTimeoutMs: 50,
      retries: 0,
      backoffMs: 0,
    });
  });

  it.each([
    [{ embed: 'no' }, '`embeddings` must be an embeddings provider'],
    [{ provider: embed, model: '' }, '`embeddings.model` must be a non-empty string'],
    [{ provider: embed, queryTimeoutMs: 0 }, '`embeddings.queryTimeoutMs` must be a whole number from 1 to 60000'],
    [{ provider: embed, batchSize: 1.5 }, '`embeddings.batchSize`'],
    [{ provider: embed, meaningWeight: 0 }, '`embeddings.meaningWeight` must be a number above 0'],
  ])('refuses %j with a fix', (value, message) => {
    expect(() => checkEmbeddings(value)).toThrow(SkillsConfigError);
    expect(() => checkEmbeddings(value)).toThrow(message);
  });
});

describe('embedTexts', () => {
  it.each([
    [() => Promise.resolve([[1]]), 'returned 1 vectors for 2 texts'],
    [() => Promise.resolve([[1], []]), 'vector 1 is empty, zero or not a list of numbers'],
    [() => Promise.resolve([[1], [1, 2]]), 'differ in width'],
  ])('refuses an answer that does not fit: %#', async (answer, message) => {
    await expect(embedTexts({ provider: { embed: answer }, model: undefined }, ['a', 'b'])).rejects.toThrow(message);
  });
});

describe('QueryVectors', () => {
  it('calls the provider once per distinct text, however often it is asked', async () => {
    const embed = provider({ cars: [1, 0, 0] });
    const queries = new QueryVectors({ provider: embed, model: undefined }, 1000);
    await Promise.all([queries.get('cars please'), queries.get(' cars please '), queries.get('cars please')]);
    expect(embed.calls).toEqual([['cars please']]);
    expect(queries.peek('cars please')).toBeDefined();
    expect(await queries.get('   ')).toBeUndefined();
  });

  it('stops waiting at the deadline, logs once until a call works, and a late answer is kept for the next ask', async () => {
    let release: (value: number[][]) => void = () => undefined;
    const slow: EmbeddingsProviderLike = { embed: () => new Promise((resolve) => (release = resolve)) };
    const log = recordingLogger();
    const queries = new QueryVectors({ provider: slow, model: undefined }, 5);
    expect(await queries.get('slow one', log)).toBeUndefined();
    expect(await queries.get('slow one', log)).toBeUndefined();
    expect(log.entries.filter((e) => e.level === 'warn')).toHaveLength(1);
    release([[1, 2]]);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(queries.arrivals).toBe(1);
    expect(await queries.get('slow one', log)).toBeDefined();
  });

  it('keeps a failure: the text is not sent again, and the one warning says why', async () => {
    const embed = provider({}, () => new Error('down'));
    const log = recordingLogger();
    const queries = new QueryVectors({ provider: embed, model: undefined }, 100);
    expect(await queries.get('a', log)).toBeUndefined();
    expect(await queries.get('a', log)).toBeUndefined();
    expect(embed.calls).toHaveLength(1);
    expect(log.entries[0]?.args[1]).toEqual({ problem: 'down' });
  });
});

describe('SkillVectors and SkillMeaning', () => {
  it('embeds in batches, retries a failed batch with backoff, and holds what it embedded', async () => {
    const embed = provider({ a: [1, 0], b: [0, 1], c: [1, 1] }, (call) => (call === 1 ? new Error('busy') : undefined));
    const store = new SkillVectors(settings(embed));
    const meaning = new SkillMeaning([entry('a'), entry('b'), entry('c')], store);
    expect(meaning.searchable).toBe(false);
    expect(await meaning.embedAll()).toMatchObject({ embedded: 3, failed: 0, calls: 3 });
    // Batches of 2; the first failed once and was sent again after the others.
    expect(embed.calls.map((c) => c.length)).toEqual([2, 1, 2]);
    expect(embed.calls[0]).toEqual(embed.calls[2]);
    expect(meaning.searchable).toBe(true);
    expect(meaning.nearest(unitVector([1, 0]) as Float32Array, 2).map((n) => n.name)).toEqual(['a', 'c']);
    expect(await new SkillMeaning([entry('a'), entry('b')], store).embedAll()).toMatchObject({ embedded: 0, held: 2, calls: 0 });
  });

  it('gives up on a batch after its retries, and stops when told', async () => {
    const embed = provider({}, () => new Error('down'));
    const store = new SkillVectors(settings(embed, { retries: 1 }));
    expect(await store.embed([{ key: 'k', text: 'a' }])).toMatchObject({ failed: 1, calls: 2, error: 'down' });
    store.stop();
    expect(await store.embed([{ key: 'j', text: 'b' }])).toMatchObject({ failed: 1, calls: 0 });
  });

  it('drops the vectors of skills the library no longer has', () => {
    const store = new SkillVectors(settings(provider({})));
    const one = unitVector([1, 0]) as Float32Array;
    store.seed({
      model: 'm',
      dimensions: 2,
      vectors: [
        ['old', one],
        ['kept', one],
      ],
    });
    const version = store.version;
    store.retain(new Set(['kept']));
    expect([...store.entries()].map(([key]) => key)).toEqual(['kept']);
    expect(store.version).toBeGreaterThan(version);
  });

  it('waits for texts another round is embedding, without embedding them twice', async () => {
    const embed = provider({ a: [1, 0] });
    const store = new SkillVectors(settings(embed));
    const [one, two] = await Promise.all([store.embed([{ key: 'k', text: 'a' }]), store.embed([{ key: 'k', text: 'a' }])]);
    expect(one.embedded + two.held).toBe(2);
    expect(embed.calls).toHaveLength(1);
  });

  it("refuses an index's vectors of another model or width, and drops held vectors when another width comes back", () => {
    const store = new SkillVectors(settings(provider({})));
    const vectors: Array<[string, Float32Array]> = [['k', unitVector([1, 0]) as Float32Array]];
    expect(store.seed({ model: 'other', dimensions: 2, vectors })).toBe('model "other", not "m"');
    expect(store.seed({ model: 'm', dimensions: 2, vectors })).toBeUndefined();
    expect(store.seed({ model: 'm', dimensions: 3, vectors: [] })).toBe('3 dimensions, not 2');
    expect(store.accept(2)).toBe(false);
    expect(store.accept(3)).toBe(true);
    expect(store.size).toBe(0);
    expect(store.bytes()).toBe(0);
  });
});

describe('hybridRanker', () => {
  const skills = [entry('fleet-care'), entry('pdf-forms')];
  const words = {
    size: 2,
    version: 3,
    extra: 'kept',
    rank: (query: string, limit?: number) => (query.includes('pdf') && limit !== 0 ? [{ name: 'pdf-forms', score: 1 }] : []),
    rankDocs: () => [{ doc: 1, name: 'pdf-forms', score: 1 }],
    describe() {
      return this.extra;
    },
  };

  it('ranks as the words do until the query has a vector, then fuses and says how; everything else is the word ranker', async () => {
    const store = new SkillVectors(settings(provider({ fleet: [1, 0], pdf: [0, 1], cars: [1, 0] })));
    const meaning = new SkillMeaning(skills, store);
    const queries = new QueryVectors({ provider: provider({ cars: [1, 0] }), model: undefined }, 100);
    const hybrid = hybridRanker(words, { meaning, queries });
    expect(hybrid.rank('cars')).toEqual([]);
    await meaning.embedAll();
    await queries.get('cars');
    const results = hybrid.rank('cars', 5);
    expect(results.map((r) => [r.name, matchedBy(r)])).toEqual([
      ['fleet-care', 'meaning'],
      ['pdf-forms', 'meaning'],
    ]);
    expect(hybrid.describe()).toBe('kept');
    // Positions are the words' answer alone: a ranked catalog must not take them from a hybrid ranker.
    expect(hybrid.rankDocs).toBeUndefined();
    expect(hybrid.version).toBeGreaterThan(3);
    expect(matchedBy({ name: 'x', score: 1 })).toBeUndefined();
  });
});

/**
 * A ranker's first query is answered without building its index (src/catalog/rank.ts,
 * queryIndex): field lengths in characters, only the entries that may hold a query word
 * tokenised. The answer must be the built index's, bit for bit, on
 * random libraries and on the shared corpus; the index is then built a step at a time.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { catalogEntries } from '../src/catalog/catalog.js';
import { createRanker, INDEX_STEP, tokenize, type RankEntry } from '../src/catalog/rank.js';
import { discoverSkills } from '../src/discover/discover.js';
import { loadRequests } from './relevance/body-set/set.mjs';
import { QUERIES } from './relevance/queries.mjs';
import { awkwardText, awkwardWord } from './helpers/awkward-text.js';

const CORPUS = join(import.meta.dirname, '..', '..', 'shared', 'corpus', 'skills');
const hasCorpus = existsSync(CORPUS);
if (!hasCorpus) console.warn('first-query: ../shared/corpus not found; the corpus comparisons are skipped');

/** A ranker over `entries` whose index is built. */
function builtRanker(entries: readonly RankEntry[]) {
  const built = createRanker(entries);
  while (!built.indexStep());
  expect(built.indexed).toBe(true);
  return built;
}

/** The answer of a ranker whose index is built. */
function builtAnswer(entries: readonly RankEntry[], query: string, limit?: number) {
  return builtRanker(entries).rank(query, limit);
}

const word = awkwardWord;
const text = awkwardText(14);

describe('the first query', () => {
  // Entries no query word is in: a few random entries among them are then all the first query tokenises.
  const fillers = Array.from({ length: 30 }, (_, i) => ({
    name: `filler-${i}`,
    description: `Lorem ipsum dolor ${i} sit amet, consectetur.`,
  }));
  const entry = fc.record({
    name: fc.constantFrom('a', 'b-c', 'pdf-tools', 'policy'),
    description: text,
    tags: fc.option(fc.array(word, { maxLength: 3 }), { nil: undefined }),
  });
  const query = fc.array(word, { minLength: 1, maxLength: 4 }).map((words) => words.join(' '));

  it('is answered without the index, as the built index answers it (property)', () => {
    fc.assert(
      fc.property(
        fc.array(entry, { maxLength: 7 }),
        fc.nat(30),
        query,
        fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }),
        (random, at, q, limit) => {
          const entries = [...fillers.slice(0, at), ...random, ...fillers.slice(at)];
          const first = createRanker(entries);
          const answer = first.rank(q, limit);
          expect(first.indexed).toBe(false);
          expect(answer).toEqual(builtAnswer(entries, q, limit));
          // The next query builds the index (a query of stopwords alone needs none), and answers the same.
          expect(first.rank(q, limit)).toEqual(answer);
          expect(first.indexed).toBe(tokenize(q).length > 0);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('builds the index at once when more than a quarter of the entries may hold its words', () => {
    const entries = Array.from({ length: 8 }, (_, i) => ({ name: `s${i}`, description: i < 3 ? 'Merges PDF files.' : 'Plays chess.' }));
    const ranker = createRanker(entries);
    expect(ranker.rank('merge a pdf').map((r) => r.name)).toEqual(['s0', 's1', 's2']);
    expect(ranker.indexed).toBe(true);
    const few = createRanker(entries.map((e, i) => (i < 2 ? e : { ...e, description: 'Plays chess.' })));
    expect(few.rank('merge a pdf').map((r) => r.name)).toEqual(['s0', 's1']);
    expect(few.indexed).toBe(false);
  });

  it('a query no entry has a word of is answered with nothing, the index not built', () => {
    const ranker = createRanker(fillers);
    expect(ranker.rank('hello there')).toEqual([]);
    expect(ranker.indexed).toBe(false);
    expect(ranker.rank('lorem')).toHaveLength(30);
    expect(ranker.indexed).toBe(true);
  });

  describe.skipIf(!hasCorpus)('on the shared corpus', () => {
    let entries: RankEntry[];
    beforeAll(async () => {
      entries = catalogEntries((await discoverSkills({ directories: [CORPUS] })).skills);
    });

    it('answers every labelled request as the built index does, in full', () => {
      const requests = [...QUERIES.map((q) => q.query), ...loadRequests().map((r) => r.request), 'convert a pdf to markdown'];
      const built = builtRanker(entries);
      let byQuery = 0;
      for (const request of requests) {
        const first = createRanker(entries);
        expect(first.rank(request), request).toEqual(built.rank(request));
        if (!first.indexed) byQuery++;
      }
      // Most first requests name a few skills' words: the comparison covers the query index, not only the fallback.
      expect(byQuery).toBeGreaterThan(requests.length / 2);
    }, 60_000);
  });
});

describe('indexStep', () => {
  it('builds the index a step of INDEX_STEP entries at a time, then answers as a ranker built at once', () => {
    const entries = Array.from({ length: INDEX_STEP * 2 + 10 }, (_, i) => ({
      name: `skill-${i}`,
      description: `Handles task ${i % 7 === 0 ? 'invoices' : 'reports'} number ${i}.`,
    }));
    const ranker = createRanker(entries);
    let steps = 1;
    while (!ranker.indexStep()) steps++;
    // Three steps of entries' words (the last also weighs them), then the packing.
    expect(steps).toBe(4);
    expect(ranker.indexed).toBe(true);
    expect(ranker.indexStep()).toBe(true);
    expect(ranker.rank('invoices', 10)).toEqual(builtAnswer(entries, 'invoices', 10));
  });

  it('a query while the index is half built finishes it', () => {
    const entries = Array.from({ length: INDEX_STEP + 5 }, (_, i) => ({
      name: `s-${i}`,
      description: i === 3 ? 'Merges PDF files.' : 'Plays chess.',
    }));
    const ranker = createRanker(entries);
    expect(ranker.indexStep()).toBe(false);
    expect(ranker.rank('merge pdf').map((r) => r.name)).toEqual(['s-3']);
    expect(ranker.indexed).toBe(true);
  });
});

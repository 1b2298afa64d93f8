/**
 * A ranker built from a scan tokenises nothing up front (src/catalog/rank/term-scan.ts,
 * TermScan): it measures field lengths in characters, and finds a term's
 * postings when a query first has it, reading only the entries that may hold
 * it. Every answer must be the whole index's (a prebuilt index's), bit for
 * bit, whatever queries came before; on random libraries and on the shared
 * corpus. Reads are counted, not timed: a term is looked for once.
 */
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { ABSENT_LIMIT, GrowingPostings, packPostings, WEIGHT_SCALE } from '../src/catalog/rank/postings.js';
import { catalogEntries } from '../src/catalog/catalog.js';
import { buildRankerData, rankerFromData } from '../src/catalog/rank/data.js';
import { createRanker } from '../src/catalog/rank/score.js';
import { SCANS_BEFORE_WHOLE_INDEX } from '../src/catalog/rank/term-scan.js';
import type { RankEntry } from '../src/catalog/rank/build.js';
import { discoverSkills } from '../src/discover/with-storage.js';
import { loadRequests } from './relevance/body-set/set.mjs';
import { QUERIES } from './relevance/queries.mjs';
import { awkwardText, awkwardWord } from './helpers/awkward-text.js';
import { describeWith } from './helpers/needs-shared.js';
import { CORPUS } from './helpers/shared.js';

/** A ranker over the whole index of `entries`, built at once: what a prebuilt index holds. */
function wholeIndexRanker(entries: readonly RankEntry[]) {
  return rankerFromData(
    entries.map((entry) => entry.name),
    buildRankerData(entries),
  );
}

/** `entries` whose descriptions count their reads in `reads.count`. */
function counted(entries: readonly RankEntry[]): { entries: RankEntry[]; reads: { count: number } } {
  const reads = { count: 0 };
  const wrapped = entries.map((entry) => ({
    name: entry.name,
    ...(entry.tags ? { tags: entry.tags } : {}),
    get description() {
      reads.count++;
      return entry.description;
    },
  }));
  return { entries: wrapped, reads };
}

const word = awkwardWord;
const text = awkwardText(14);

describe('a ranker built from a scan', () => {
  // Entries no query word is in: a few random entries among them are then all a query reads words of.
  const fillers = Array.from({ length: 30 }, (_, i) => ({
    name: `filler-${i}`,
    description: `Lorem ipsum dolor ${i} sit amet, consectetur.`,
  }));
  const entry = fc.record({
    name: fc.constantFrom('a', 'b-c', 'pdf-tools', 'policy', '\u212aube', 'İnvoice'),
    description: text,
    tags: fc.option(fc.array(word, { maxLength: 3 }), { nil: undefined }),
  });
  const query = fc.array(word, { minLength: 1, maxLength: 4 }).map((words) => words.join(' '));

  it('answers every query of a sequence as the whole index does (property)', () => {
    fc.assert(
      fc.property(
        fc.array(entry, { maxLength: 7 }),
        fc.nat(30),
        // Up to 12 queries: past SCANS_BEFORE_WHOLE_INDEX, the whole index answers.
        fc.array(query, { minLength: 1, maxLength: 12 }),
        fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }),
        (random, at, queries, limit) => {
          const entries = [...fillers.slice(0, at), ...random, ...fillers.slice(at)];
          const scanned = createRanker(entries);
          const whole = wholeIndexRanker(entries);
          // Twice over: the second time every term is known. expect only on a difference: tens of thousands of
          // expect calls were a tenth of this test's time, and deep-equal answers always pass toEqual.
          for (const q of [...queries, ...queries]) {
            const [got, want] = [scanned.rank(q, limit), whole.rank(q, limit)];
            if (!isDeepStrictEqual(got, want)) expect(got, q).toEqual(want);
          }
        },
      ),
      { numRuns: 600 },
    );
  });

  it('searches texts with the letters that lowercase to ASCII as the whole index does', () => {
    const entries = [
      { name: 'kelvin', description: 'Deploys apps to \u212aUBERNETES clusters.' },
      { name: 'dotted', description: 'Reads İNVOICES and İnvoice scans.' },
      { name: 'long-s', description: 'Reviews ſecurity of a PR.' },
      { name: 'plain', description: 'Merges PDF files.' },
    ];
    const scanned = createRanker(entries);
    const whole = wholeIndexRanker(entries);
    for (const q of ['deploy to kubernetes', 'read invoices', 'nvoice', 'security review', 'merge pdf']) {
      expect(scanned.rank(q), q).toEqual(whole.rank(q));
    }
    expect(scanned.rank('kubernetes').map((r) => r.name)).toEqual(['kelvin']);
  });

  it('finds a term whose start is empty ("y") beside letters and symbols outside the BMP, as the whole index does', () => {
    // "y" is looked for from its start less the final "y": the empty string, which matches at every position. The
    // search must step over a surrogate pair whole, as a /u expression does (stepping into one, it never ended).
    const entries = [
      { name: 'emoji', description: 'y\u{1F600}y \u{1F600} yes \u{1D49C}y y\u{1D49C} \u{1F600}' },
      { name: 'astral-letters', description: '\u{1D49C}\u{1D49D} y', tags: ['\u{1F600}y'] },
      { name: 'plain', description: 'Why yes, y.' },
    ];
    const scanned = createRanker(entries);
    const whole = wholeIndexRanker(entries);
    for (const q of ['y', 'yes y', '\u{1D49C}y']) expect(scanned.rank(q), q).toEqual(whole.rank(q));
    expect(scanned.rank('y').map((r) => r.name)).toEqual(whole.rank('y').map((r) => r.name));
    expect(whole.rank('y').length).toBeGreaterThan(1);
  });

  it('reads the descriptions for a term once: a query of known terms reads none', () => {
    const { entries, reads } = counted(fillers);
    const ranker = createRanker(entries);
    /** The descriptions `query` reads (and checks it is answered with `answered` skills). */
    const readsOf = (query: string, answered: number): number => {
      const before = reads.count;
      expect(ranker.rank(query, 3), query).toHaveLength(answered);
      return reads.count - before;
    };
    // Up front, the field lengths: every description.
    expect(reads.count).toBeGreaterThanOrEqual(fillers.length);
    expect(readsOf('lorem', 3)).toBeGreaterThanOrEqual(fillers.length);
    expect(readsOf('lorem', 3)).toBe(0);
    // A term no entry holds is remembered as such.
    expect(readsOf('hello', 0)).toBeGreaterThanOrEqual(fillers.length);
    expect(readsOf('hello', 0)).toBe(0);
    expect(readsOf('hello lorem', 3)).toBe(0);
    expect(readsOf('dolor ipsum', 3)).toBeGreaterThanOrEqual(fillers.length);
  });

  it(`builds the whole index after ${SCANS_BEFORE_WHOLE_INDEX} scans; then no word is looked for`, () => {
    const { entries, reads } = counted(fillers);
    const ranker = createRanker(entries);
    const whole = wholeIndexRanker(fillers);
    const readsOf = (query: string): number => {
      const before = reads.count;
      expect(ranker.rank(query, 5), query).toEqual(whole.rank(query, 5));
      return reads.count - before;
    };
    for (let scan = 0; scan < SCANS_BEFORE_WHOLE_INDEX; scan++) expect(readsOf(`word${scan} ${scan}`)).toBeGreaterThan(0);
    // Known words still read nothing; the next new word builds the whole index: each description read once or twice.
    expect(readsOf('word0 0')).toBe(0);
    const build = readsOf('amet');
    expect(build).toBeGreaterThanOrEqual(fillers.length);
    expect(build).toBeLessThanOrEqual(2 * fillers.length);
    for (const query of ['sit', 'never seen', 'lorem ipsum', 'consectetur 29']) expect(readsOf(query)).toBe(0);
  });

  describeWith('corpus', 'on the shared corpus', () => {
    let entries: RankEntry[];
    beforeAll(async () => {
      entries = catalogEntries((await discoverSkills({ directories: [CORPUS] })).skills);
    });

    it('answers every labelled request as the whole index does, one ranker for all of them and a fresh one for each', () => {
      const requests = [...QUERIES.map((q) => q.query), ...loadRequests().map((r) => r.request), 'convert a pdf to markdown'];
      const whole = wholeIndexRanker(entries);
      const shared = createRanker(entries);
      for (const request of requests) {
        const expected = whole.rank(request);
        // Answers of about 1,000 skills each: expect only on a difference (deep-equal answers always pass toEqual,
        // and its comparisons were most of this test's 20 s).
        const [fromShared, fromFresh] = [shared.rank(request), createRanker(entries).rank(request)];
        if (!isDeepStrictEqual(fromShared, expected)) expect(fromShared, request).toEqual(expected);
        if (!isDeepStrictEqual(fromFresh, expected)) expect(fromFresh, request).toEqual(expected);
      }
      expect(requests.length).toBeGreaterThan(280);
    }, 60_000);
  });
});

describe('GrowingPostings', () => {
  const idf = (frequency: number): number => 1 / frequency;

  it('reads a term as packPostings packs it: the same docs, the same rounded weights', () => {
    const grown = new GrowingPostings(70_000, idf);
    const docs = [[0, 3, 69_999], [5], [1, 2]];
    const weights = [[0.5, 0.25, 1e-9], [0.999_99], [0.1, 0.7]];
    ['pdf', 'merg', 'chess'].forEach((term, t) => grown.add(term, docs[t] ?? [], weights[t] ?? []));
    const packed = packPostings(3, 70_000, {
      term: docs.flatMap((list, t) => list.map(() => t)),
      doc: docs.flat(),
      weight: weights.flat(),
    });
    expect(grown.size).toBe(3);
    for (let t = 0; t < 3; t++) {
      expect(grown.end(t) - grown.start(t)).toBe(packed.end(t) - packed.start(t));
      for (let i = 0; i < packed.end(t) - packed.start(t); i++) {
        expect(grown.doc(grown.start(t) + i)).toBe(packed.doc(packed.start(t) + i));
        expect(grown.weight(grown.start(t) + i)).toBe(packed.weight(packed.start(t) + i));
      }
      expect(grown.idf[t]).toBe(idf((docs[t] ?? []).length));
    }
    // The least weight stays above 0.
    expect(grown.weight(2)).toBe(1 / WEIGHT_SCALE);
    expect(grown.idOf('merg')).toBe(1);
  });

  it('grows past its first arrays, and a term added twice keeps its first postings', () => {
    const grown = new GrowingPostings(10, idf);
    for (let t = 0; t < 500; t++) grown.add(`t${t}`, [t % 10, 9], [0.5, 0.25]);
    grown.add('t3', [0], [0.9]);
    expect(grown.size).toBe(500);
    const id = grown.idOf('t499') ?? -1;
    expect([grown.doc(grown.start(id)), grown.doc(grown.end(id) - 1)]).toEqual([9, 9]);
    const three = grown.idOf('t3') ?? -1;
    expect(grown.end(three) - grown.start(three)).toBe(2);
    expect(grown.idf[499]).toBe(0.5);
  });

  it('remembers terms no doc holds, up to ABSENT_LIMIT, then starts over', () => {
    const grown = new GrowingPostings(10, idf);
    grown.add('first', [], []);
    expect(grown.knows('first')).toBe(true);
    expect(grown.idOf('first')).toBeUndefined();
    for (let t = 1; t < ABSENT_LIMIT; t++) grown.add(`absent-${t}`, [], []);
    expect(grown.knows('first')).toBe(true);
    grown.add('one-more', [], []);
    expect(grown.knows('one-more')).toBe(true);
    expect(grown.knows('first')).toBe(false);
    expect(grown.size).toBe(0);
  });
});

/**
 * Local ranking of skills against a free-text query: BM25F over a skill's
 * name, tags and description, dependency-free and deterministic. This module
 * scores a query and is the ranker's face (createRanker, Ranker); the other
 * modules of src/catalog/rank/ turn text into terms (tokenize.ts), build the
 * index (build.ts), find a term's postings lazily (term-scan.ts), store them
 * (postings.ts) and save a build as data (data.ts). An inverted
 * index with per-field weights folded in, so a query costs only the postings
 * of its terms: from a scan, a term's postings are found when a query first
 * has it (TermScan); a prebuilt index holds them all. Once a skill's
 * instructions are indexed (src/catalog/body-terms.ts, src/catalog/body-indexer.ts),
 * a second BM25 over them is added at RANK_TUNING.bodyWeight of a description
 * term's: added, not folded into the description's term frequencies, which
 * measured worse. No synonyms are typed in: what a request means beyond its
 * words is the app's embedder's to find (issue 29 retired the lexicon).
 *
 * Score scale (what `threshold` options compare against): each result's
 * `score` is in [0, 1), the share of the query's evidence it matched. A
 * skill earns, per distinct query term, IDF x tf/(tf + k1), where tf is the
 * term's weighted frequency across fields, each field's normalised by its
 * length in characters. The sum is divided by the query's evidence: the
 * IDFs of its terms that the library uses, but never less than
 * EVIDENCE_FLOOR rare words' worth (the IDF of a word only one skill uses).
 * So one matching word out of a short request ("continue", "I have a
 * question") stays low however rare the word, and
 * words no skill uses (a file path, a product name) do not pull a good match
 * down. The floor and the auto-activation threshold were chosen together,
 * by measurement (scripts/auto-activate-threshold.mjs): requests that fit a
 * skill mostly score 0.3-0.7, and 79 of 80 everyday requests that fit none
 * score under 0.28, on a library of 5 skills and on one of 1,088 alike. The
 * order of one query's results does not depend on this scale.
 */
import { BODY_DEFAULTS, BodyCollector, kthLargest, type BodyIndex, type BodyTuning } from '../body-terms.js';
import { compareNames } from '../../base/text.js';
import { EVIDENCE_FLOOR, idfOf, type Bm25Index, type IndexSource, type RankEntry } from './build.js';
import type { Postings, Vocabulary } from './postings.js';
import { TermScan } from './term-scan.js';
import { queryWords, TermTable, type QueryWord } from './tokenize.js';

export interface RankResult {
  name: string;
  /** In [0, 1]; see the scale in this module's header. */
  score: number;
}

/** A result of `rankDocs`: also the entry's position among the ranker's entries. */
export interface RankedDoc extends RankResult {
  doc: number;
}

export interface Ranker {
  /** Best matches first; only entries sharing a term with the query. Ties break by name. */
  rank(query: string, limit?: number): RankResult[];
  /** Number of entries indexed. */
  readonly size: number;
}

/** A ranker whose instructions' terms can be added once they are read (src/catalog/body-indexer.ts). */
export interface BodyAwareRanker extends Ranker {
  /** Whether ranking reads the instructions yet. */
  readonly bodyAware: boolean;
  /** Bumped each time ranking changes (a body index arrived): a cached ranking older than it is stale. */
  readonly version: number;
  /** A collector for this ranker's entries, in their order; `useBodies(collector.build())` when it is full. */
  bodyCollector(): BodyCollector;
  useBodies(index: BodyIndex): void;
  /** The instructions' index ranking reads; undefined before they are indexed. */
  readonly bodies: BodyIndex | undefined;
  /** Which of `terms` (as `queryTerms` gives them) the indexed instructions of the skill named `name` hold; [] before they are indexed. */
  instructionsHold(name: string, terms: readonly string[]): string[];
  /**
   * `rank`, each result with its entry's position, so a ranked catalog lists
   * it without looking its name up. Absent on a ranker that fuses other
   * answers in (by meaning: src/meaning/hybrid-ranker.ts hides it).
   */
  rankDocs?(query: string, limit?: number): RankedDoc[];
}

/** Everything ranking weighs, for measurement (scripts/body-rank-experiment.mjs); RANK_TUNING is the measured choice. */
export interface RankTuning {
  /** Weights of name, tags, "Use when" clauses and description, in that order. */
  fields: readonly [number, number, number, number];
  /** What a body term's evidence counts next to a description term's (BM25 over the instructions, added). */
  bodyWeight: number;
  body: BodyTuning;
}

export const RANK_TUNING: Readonly<RankTuning> = Object.freeze({
  fields: [3, 2, 1, 1] as const,
  bodyWeight: 1.25,
  body: BODY_DEFAULTS,
});

/**
 * A ranker over `entries` (read by queries: do not change them afterwards).
 * Nothing is tokenised up front: the ranker measures each field's length,
 * and a query finds the postings of its terms it has not met before by
 * reading only the entries that may hold them (TermScan), which are then
 * kept. The answers are those of a whole index built at once, bit for bit
 * (a prebuilt index's: `buildRankerData`).
 */
export function createRanker(entries: ReadonlyArray<RankEntry>, instructions?: ReadonlyArray<string | undefined>): BodyAwareRanker {
  return createTunedRanker(entries, RANK_TUNING, instructions);
}

/** A body collector for `size` skills tokenising as rankers do (what `BodyAwareRanker.bodyCollector` gives). */
export function bodyCollectorFor(size: number, tuning: Readonly<BodyTuning> = RANK_TUNING.body): BodyCollector {
  return new BodyCollector(size, new TermTable(), tuning);
}

/** createRanker with other weights: for measuring them, not for apps. */
export function createTunedRanker(
  entries: ReadonlyArray<RankEntry>,
  tuning: Readonly<RankTuning>,
  instructions?: ReadonlyArray<string | undefined>,
): BodyAwareRanker {
  const ranker = new Bm25Ranker(new TermScan(entries.slice(), tuning.fields), tuning);
  if (instructions) {
    const collector = ranker.bodyCollector();
    instructions.forEach((text, doc) => {
      if (typeof text === 'string') collector.add(doc, text);
    });
    ranker.useBodies(collector.build());
  }
  return bodyAware(ranker, entries.length);
}

/** The public face of a Bm25Ranker. */
export function bodyAware(ranker: Bm25Ranker, size: number): BodyAwareRanker {
  return {
    rank: (query, limit) => ranker.rankDocs(query, limit).map(({ name, score }) => ({ name, score })),
    rankDocs: (query, limit) => ranker.rankDocs(query, limit),
    size,
    get bodyAware() {
      return ranker.body !== undefined;
    },
    get version() {
      return ranker.version;
    },
    get bodies() {
      return ranker.body;
    },
    bodyCollector: () => ranker.bodyCollector(),
    useBodies: (index) => ranker.useBodies(index),
    instructionsHold: (name, terms) => ranker.instructionsHold(name, terms),
  };
}

export class Bm25Ranker {
  body: BodyIndex | undefined;
  version = 0;
  private readonly size: number;
  /** Entry names in order. */
  private readonly names: readonly string[];

  constructor(
    private readonly source: IndexSource,
    private readonly tuning: Readonly<RankTuning>,
  ) {
    this.names = source.index.names;
    this.size = this.names.length;
  }

  instructionsHold(name: string, terms: readonly string[]): string[] {
    const body = this.body;
    const doc = this.names.indexOf(name);
    if (!body || doc === -1) return [];
    return terms.filter((term) => {
      const id = body.vocabulary.idOf(term);
      if (id === undefined) return false;
      for (let p = body.postings.start(id); p < body.postings.end(id); p++) if (body.postings.doc(p) === doc) return true;
      return false;
    });
  }

  bodyCollector(): BodyCollector {
    return new BodyCollector(this.size, new TermTable(), this.tuning.body);
  }

  useBodies(index: BodyIndex): void {
    if (index.size !== this.size) throw new RangeError(`a body index of ${index.size} skills for a ranker of ${this.size}`);
    this.body = index;
    this.version++;
  }

  rankDocs(query: string, limit: number | undefined): RankedDoc[] {
    const plan = queryWords(query);
    if (plan.length === 0) return [];
    this.source.learn(plan.map((item) => item.term));
    return rankTerms(this.source.index, this.body, this.tuning, plan, limit);
  }
}

function rankTerms(
  index: Bm25Index,
  body: BodyIndex | undefined,
  tuning: Readonly<RankTuning>,
  plan: readonly QueryWord[],
  limit: number | undefined,
): RankedDoc[] {
  if (plan.length === 0 || index.names.length === 0) return [];
  const { scores, touched, names } = index;
  const { hits, evidence } = accumulate(index, body, tuning, plan);
  // With the instructions, a rare word can earn more (its body's share too): so can the floor,
  // or a short request would score higher than it did on the description alone.
  const floor =
    body && body.read > 0 && tuning.bodyWeight > 0
      ? index.evidenceFloor + tuning.bodyWeight * EVIDENCE_FLOOR * body.rareIdf
      : index.evidenceFloor;
  const attainable = Math.max(evidence, floor);
  const { final } = index;
  for (let i = 0; i < hits; i++) {
    const doc = touched[i] ?? 0;
    final[i] = (scores[doc] ?? 0) / attainable;
    scores[doc] = 0;
  }
  const max = limit === undefined || !Number.isFinite(limit) ? hits : Math.max(0, Math.floor(limit));
  if (max === 0) return [];
  // Only docs scoring at least the max-th best can be listed: objects are made and sorted for those alone
  // (with the instructions a request touches most of a library: 1,130 of 2,000 skills for ~250 listed).
  const cut = hits > max ? topCut(index, hits, max) : -Infinity;
  const results: RankedDoc[] = [];
  for (let i = 0; i < hits; i++) {
    const score = final[i] ?? 0;
    if (score < cut) continue;
    const doc = touched[i] ?? 0;
    results.push({ doc, name: names[doc] ?? '', score });
  }
  // By score, then (within runs of equal scores, which copies of one skill make common) by name: `better`'s order,
  // with names compared only where scores tie.
  results.sort(byScore);
  tiesByName(results);
  if (results.length > max) results.length = max;
  return results;
}

function byScore(x: RankedDoc, y: RankedDoc): number {
  return y.score - x.score || x.doc - y.doc;
}

/** Sorts each run of equal scores in `sorted` (sorted by score) by `better`: runs are short, so by insertion. */
function tiesByName(sorted: RankedDoc[]): void {
  for (let i = 1; i < sorted.length; i++) {
    const item = sorted[i] as RankedDoc;
    let j = i - 1;
    while (j >= 0 && better(sorted[j] as RankedDoc, item) > 0) {
      sorted[j + 1] = sorted[j] as RankedDoc;
      j--;
    }
    sorted[j + 1] = item;
  }
}

/** The `max`-th best of the first `hits` final scores (every doc above it is listed, and ties are decided by name). */
function topCut(index: Bm25Index, hits: number, max: number): number {
  const copy = index.cutScratch;
  copy.set(index.final.subarray(0, hits));
  return kthLargest(copy, hits, max);
}

/**
 * Adds each query term's postings into `index.scores`, the description's at
 * 1 and the instructions' at `tuning.bodyWeight`, listing the docs touched
 * in `index.touched`; returns how many, and the query's evidence (the IDFs
 * of its terms that some skill uses, each index's at its weight).
 */
function accumulate(
  index: Bm25Index,
  body: BodyIndex | undefined,
  tuning: Readonly<RankTuning>,
  plan: readonly QueryWord[],
): { hits: number; evidence: number } {
  const sum = { hits: 0, evidence: 0 };
  const bodies = body && tuning.bodyWeight > 0 ? body : undefined;
  for (const { term } of plan) {
    addPostings(index, index, term, 1, sum);
    if (bodies) addPostings(index, bodies, term, tuning.bodyWeight, sum);
  }
  return sum;
}

/** Adds the postings of `term` in `from` (the description's index or the instructions') into `index.scores` at `factor`. */
function addPostings(
  index: Bm25Index,
  from: { vocabulary: Vocabulary; postings: Postings; idf: Float64Array },
  term: string,
  factor: number,
  sum: { hits: number; evidence: number },
): void {
  const { scores, touched } = index;
  const { postings } = from;
  const id = from.vocabulary.idOf(term);
  // A word no skill uses says nothing about which skill fits: it neither adds nor dilutes.
  if (id === undefined) return;
  let idf = from.idf[id] ?? 0;
  // A whole index's IDF is NaN until its term is first ranked (wholeIndex); the instructions' are stored.
  if (Number.isNaN(idf)) idf = from.idf[id] = idfOf(postings.count(id), index.names.length);
  const termIdf = factor * idf;
  sum.evidence += termIdf;
  const end = postings.end(id);
  for (let p = postings.start(id); p < end; p++) {
    const doc = postings.doc(p);
    if (scores[doc] === 0) touched[sum.hits++] = doc;
    scores[doc] = (scores[doc] ?? 0) + termIdf * postings.weight(p);
  }
}

function better(x: RankedDoc, y: RankedDoc): number {
  return y.score - x.score || compareNames(x.name, y.name) || x.doc - y.doc;
}

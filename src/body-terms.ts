/**
 * What a skill's instructions add to ranking: the terms of SKILL.md's body
 * (its headings and its first words), bounded per skill, kept as a small
 * inverted index beside the ranker's own (src/rank.ts). Pure: text in,
 * typed arrays out; reading the files is src/body-indexer.ts's job.
 *
 * A skill's body is read once, term by term, as it arrives (`add`), and only
 * its BODY_CANDIDATES most frequent terms are kept until every skill is in;
 * `build` then keeps, per skill, the BODY_TERMS terms that are both frequent
 * in it and rare in the library (tf x idf), so a body weighs in by what sets
 * it apart ("goroutine", "reconciliation"), not by the words every
 * instruction uses ("file", "run", "step"). Figures behind each bound:
 * scripts/body-rank-experiment.mjs, on test/relevance/body-set.
 */
import { packPostings, sortedVocabulary, type Postings, type Vocabulary } from './compact.js';

/** How a body is read and weighed; BODY_DEFAULTS are the measured choice. */
export interface BodyTuning {
  /** Words of running text read per body (headings always count). */
  words: number;
  /** Terms kept per skill between `add` and `build`. */
  candidates: number;
  /** Terms kept per skill in the built index. */
  terms: number;
  /** A heading word counts this many running-text words. */
  headingWeight: number;
  /** Whether fenced code blocks are read as text. */
  code: boolean;
  /** A resource file name's word counts this many running-text words (0: names are not read). */
  resourceWeight: number;
  /** BM25 length normalisation over the body's counted words. */
  b: number;
  /** Text under a heading that says when to use the skill ("When to use", "Triggers", "Examples") counts this many times. */
  triggerWeight: number;
}

export const BODY_DEFAULTS: Readonly<BodyTuning> = Object.freeze({
  words: 1000,
  candidates: 96,
  terms: 48,
  headingWeight: 3,
  code: false,
  resourceWeight: 0,
  b: 0.5,
  triggerWeight: 1,
});

const TRIGGER_HEADING = /\b(?:when|trigger|triggers|use cases?|examples?|scenarios?)\b/i;

/** BM25 saturation, as in src/rank.ts. */
const K1 = 1.2;

/** The built body index: one posting per (kept term, skill), weight saturated, and each term's IDF over bodies. */
export interface BodyIndex {
  readonly vocabulary: Vocabulary;
  readonly postings: Postings;
  readonly idf: Float64Array;
  /** Number of skills (docs) it was built for, read or not. */
  readonly size: number;
  /** The IDF of a term only one body holds: what the ranker's evidence floor counts for a body. */
  readonly rareIdf: number;
}

/** One skill's candidates: term ids in the collector's table and their weighted counts, and how many words were counted. */
interface Candidates {
  ids: Int32Array;
  counts: Float32Array;
  length: number;
}

const FENCE = /^\s*(```|~~~)/;
const HEADING = /^\s{0,3}#{1,6}\s+(.*)$/;

/**
 * Collects bodies for `size` skills (docs 0 to size - 1, in ranker order).
 * `termOf` is the ranker's word -> term function (stopwords give undefined),
 * so bodies and queries agree.
 */
export class BodyCollector {
  private readonly ids = new Map<string, number>();
  /** Lowercase word -> term id, or -1 for a stopword: each distinct word is stemmed once. */
  private readonly byWord = new Map<string, number>();
  private df = new Int32Array(1024);
  private readonly docs: Array<Candidates | undefined>;
  private added = 0;

  constructor(
    readonly size: number,
    private readonly termOf: (word: string) => string | undefined,
    private readonly words: (text: string) => string[],
    readonly tuning: Readonly<BodyTuning> = BODY_DEFAULTS,
  ) {
    this.docs = new Array<Candidates | undefined>(size);
  }

  /** How many skills have a body so far. */
  get count(): number {
    return this.added;
  }

  /** Reads `body` (SKILL.md after its frontmatter) and `resources` (paths inside the skill folder) for skill `doc`. */
  add(doc: number, body: string, resources: readonly string[] = []): void {
    if (doc < 0 || doc >= this.size || this.docs[doc] !== undefined) return;
    const { headingWeight, resourceWeight, code } = this.tuning;
    const counts = new Map<number, number>();
    let length = 0;
    let budget = this.tuning.words;
    let inCode = false;
    let section = 1;
    const count = (text: string, weight: number, limited: boolean): void => {
      for (const word of this.words(text)) {
        if (word.length === 0) continue;
        if (limited) {
          if (budget <= 0) return;
          budget--;
        }
        const id = this.idOf(word);
        if (id < 0) continue;
        counts.set(id, (counts.get(id) ?? 0) + weight);
        length++;
      }
    };
    for (const line of body.split('\n')) {
      if (FENCE.test(line)) {
        inCode = !inCode;
        continue;
      }
      if (inCode && !code) continue;
      const heading = inCode ? null : HEADING.exec(line);
      if (heading) {
        section = TRIGGER_HEADING.test(heading[1] ?? '') ? this.tuning.triggerWeight : 1;
        count(heading[1] ?? '', headingWeight, false);
      } else if (budget > 0) count(line, section, true);
    }
    if (resourceWeight > 0) for (const path of resources) count(path, resourceWeight, false);
    const ranked = [...counts].sort((x, y) => y[1] - x[1] || x[0] - y[0]).slice(0, this.tuning.candidates);
    const ids = new Int32Array(ranked.length);
    const weights = new Float32Array(ranked.length);
    ranked.forEach(([id, weight], i) => {
      ids[i] = id;
      weights[i] = weight;
      this.df[id] = (this.df[id] ?? 0) + 1;
    });
    this.docs[doc] = { ids, counts: weights, length };
    this.added++;
  }

  /** The index over every body added so far; skills without one simply have no postings. */
  build(): BodyIndex {
    const { terms: keep, b } = this.tuning;
    const size = this.size;
    const names = [...this.ids.keys()];
    let totalLength = 0;
    for (const doc of this.docs) totalLength += doc?.length ?? 0;
    const averageLength = Math.max(1, this.added === 0 ? 1 : totalLength / this.added);
    const idfById = new Float64Array(names.length);
    for (let id = 0; id < names.length; id++) idfById[id] = idfOf(this.df[id] ?? 0, Math.max(this.added, 1));
    const term: number[] = [];
    const docOf: number[] = [];
    const weight: number[] = [];
    const used = new Map<string, number>();
    for (let d = 0; d < size; d++) {
      const doc = this.docs[d];
      if (!doc) continue;
      const order = Array.from(doc.ids.keys()).sort(
        (x, y) => (doc.counts[y] ?? 0) * (idfById[doc.ids[y] ?? 0] ?? 0) - (doc.counts[x] ?? 0) * (idfById[doc.ids[x] ?? 0] ?? 0) || x - y,
      );
      const norm = 1 - b + (b * doc.length) / averageLength;
      for (const i of order.slice(0, keep)) {
        const id = doc.ids[i] ?? 0;
        const name = names[id] as string;
        let local = used.get(name);
        if (local === undefined) {
          local = used.size;
          used.set(name, local);
        }
        const tf = (doc.counts[i] ?? 0) / norm;
        term.push(local);
        docOf.push(d);
        weight.push(tf / (tf + K1));
      }
    }
    const { vocabulary, renumbered } = sortedVocabulary(used);
    for (let i = 0; i < term.length; i++) term[i] = renumbered[term[i] ?? 0] ?? 0;
    const idf = new Float64Array(vocabulary.size);
    for (const [name, local] of used) idf[renumbered[local] ?? 0] = idfById[this.ids.get(name) ?? 0] ?? 0;
    const postings = packPostings(vocabulary.size, size, { term, doc: docOf, weight });
    return { vocabulary, postings, idf, size, rareIdf: idfOf(1, Math.max(this.added, 1)) };
  }

  private idOf(word: string): number {
    let id = this.byWord.get(word);
    if (id !== undefined) return id;
    const term = this.termOf(word);
    if (term === undefined) id = -1;
    else {
      id = this.ids.get(term);
      if (id === undefined) {
        id = this.ids.size;
        this.ids.set(term, id);
        if (id >= this.df.length) {
          const grown = new Int32Array(this.df.length * 2);
          grown.set(this.df);
          this.df = grown;
        }
      }
    }
    this.byWord.set(word, id);
    return id;
  }
}

/** BM25's IDF, kept positive even for a term in every body. */
function idfOf(documentFrequency: number, count: number): number {
  return Math.log(1 + (count - documentFrequency + 0.5) / (documentFrequency + 0.5));
}

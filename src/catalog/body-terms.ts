/**
 * What a skill's instructions add to ranking: the terms of SKILL.md's body
 * (its headings and its first words), bounded per skill, kept as a small
 * inverted index beside the ranker's own (src/catalog/rank/). Pure: text in,
 * typed arrays out; reading the files is src/catalog/body-indexer.ts's job.
 *
 * A skill's body is read once, term by term, as it arrives (`add`): its
 * headings and its first `words` words (fenced code left out), of which its
 * `candidates` most frequent terms are kept until every skill is in; `build`
 * then keeps, per skill, up to `terms` of them, those both frequent in it and
 * rare in the library first (tf x idf; numbers never), each weighted as BM25
 * weighs a term of a field. The bounds are loose (a body of 1,000 words holds
 * some 200 distinct terms): they bound memory (at most 1 KB of postings a
 * skill) more than they choose. Figures behind each choice (BODY_DEFAULTS):
 * scripts/body-rank-experiment.mjs on both labelled sets' train parts, and
 * docs/performance.md.
 */
import { flatStrings } from '../base/compact.js';
import { Int32List, PackedPostings, packedWeight, packPostingsSteps, vocabularyOf, type Vocabulary } from './rank/postings.js';
import { K1 } from './rank/build.js';

/** How a body is read and weighed; BODY_DEFAULTS are the measured choice. */
export interface BodyTuning {
  /** Terms of running text read per body (stopwords do not count), and headings up to there. */
  words: number;
  /** Terms kept per skill between `add` and `build` (its most frequent). */
  candidates: number;
  /** Terms kept per skill in the built index (frequent in it and rare in the library first). */
  terms: number;
  /** A heading word counts this many running-text words. */
  headingWeight: number;
  /** Whether fenced code blocks are read as text. */
  code: boolean;
  /** BM25 length normalisation over the body's counted words. */
  b: number;
}

export const BODY_DEFAULTS: Readonly<BodyTuning> = Object.freeze({
  words: 1000,
  candidates: 512,
  terms: 256,
  headingWeight: 3,
  code: false,
  b: 0.75,
});

const DIGITS = /^\d+$/;

/** Characters of one line of a body that are read. */
const LINE_CHARS = 2000;

/** Skills per step of `buildSteps`. */
const BUILD_STEP = 16;

/** Postings per step of the postings' packing (at 2,000 skills about 400,000 are packed). */
const PACK_STEP = 16_384;

/** Terms per step of sorting the kept vocabulary. */
const SORT_STEP = 2048;

/**
 * Items per step of a pass over the collected vocabulary (some 100,000 terms
 * at 2,000 skills) or the chosen postings (some 340,000): each pass in one
 * step took 5-20 ms, the longest steps of the build.
 */
const PASS_STEP = 16_384;

/** The built body index: one posting per (kept term, skill), weight saturated, and each term's IDF over bodies. */
export interface BodyIndex {
  /** The kept terms, sorted by code unit: term id = position. */
  readonly terms: readonly string[];
  readonly vocabulary: Vocabulary;
  readonly postings: PackedPostings;
  readonly idf: Float64Array;
  /** Number of skills (docs) it was built for, read or not. */
  readonly size: number;
  /** Skills whose body it holds. */
  readonly read: number;
  /** The IDF of a term only one body holds: what the ranker's evidence floor counts for a body. */
  readonly rareIdf: number;
}

/** A body index from its parts (a prebuilt index stores them: src/catalog/rank/data.ts checks them first). */
export function bodyIndexOf(parts: Omit<BodyIndex, 'vocabulary'>): BodyIndex {
  return { ...parts, vocabulary: vocabularyOf(parts.terms) };
}

/**
 * The part of `index` over some of its skills: `docOf[d]` is skill d's
 * position among the `size` kept, or -1 when it is left out. Terms and IDFs
 * stay the whole library's, so a skill ranks by the same evidence in a part
 * as in the whole (a visible part reuses the whole index's reading).
 */
export function bodyIndexSubset(index: BodyIndex, docOf: Int32Array, size: number): BodyIndex {
  const { postings } = index;
  const termCount = index.terms.length;
  const offsets = new Int32Array(termCount + 1);
  for (let term = 0; term < termCount; term++) {
    let kept = 0;
    for (let p = postings.start(term); p < postings.end(term); p++) if ((docOf[postings.doc(p)] ?? -1) >= 0) kept++;
    offsets[term + 1] = (offsets[term] ?? 0) + kept;
  }
  const total = offsets[termCount] ?? 0;
  const docs = size <= 0x10000 ? new Uint16Array(total) : new Uint32Array(total);
  const weights = new Uint16Array(total);
  const hasBody = new Uint8Array(size);
  let at = 0;
  for (let term = 0; term < termCount; term++) {
    for (let p = postings.start(term); p < postings.end(term); p++) {
      const doc = docOf[postings.doc(p)] ?? -1;
      if (doc < 0) continue;
      docs[at] = doc;
      weights[at] = postings.weights[p] ?? 0;
      hasBody[doc] = 1;
      at++;
    }
  }
  return {
    terms: index.terms,
    vocabulary: index.vocabulary,
    postings: new PackedPostings(offsets, docs, weights),
    idf: index.idf,
    size,
    read: hasBody.reduce((sum, flag) => sum + flag, 0),
    rareIdf: index.rareIdf,
  };
}

/** One skill's candidates: term ids in the collector's table and their weighted counts, and how many words were counted. */
interface Candidates {
  ids: Int32Array;
  counts: Float32Array;
  length: number;
}

const FENCE = /^\s*(```|~~~)/;
const HEADING = /^\s{0,3}#{1,6}\s+(.*)$/;

/** The ranker's tokenizer (src/catalog/rank/tokenize.ts TermTable): term ids of a text, and the term of each id. */
export interface TermSource {
  append(text: string, out: Int32List): void;
  readonly vocabulary: ReadonlyMap<string, number>;
}

/**
 * Collects bodies for `size` skills (docs 0 to size - 1, in ranker order),
 * tokenised by the ranker's own term table so bodies and queries agree.
 */
export class BodyCollector {
  private df = new Int32Array(1024);
  private readonly docs: Array<Candidates | undefined>;
  private added = 0;
  private readonly line = new Int32List(256);
  /** Whether a build has started: it lets go of each body's candidates once used (39 MB at 21,110 skills), so it runs once. */
  private built = false;

  /** Collects bodies for `size` skills (docs 0 to size - 1, in ranker order), tokenised by `terms` as the ranker tokenises queries. */
  constructor(
    readonly size: number,
    private readonly terms: TermSource,
    readonly tuning: Readonly<BodyTuning> = BODY_DEFAULTS,
  ) {
    this.docs = new Array<Candidates | undefined>(size);
  }

  /** How many skills have a body so far. */
  get count(): number {
    return this.added;
  }

  /** Reads `body` (SKILL.md after its frontmatter) for skill `doc`. */
  add(doc: number, body: string): void {
    if (this.built) throw new Error('a body collector takes no body once its index is built');
    if (doc < 0 || doc >= this.size || this.docs[doc] !== undefined) return;
    const { counts, length } = this.countTerms(body);
    this.docs[doc] = this.keepCandidates(counts, length);
    this.added++;
  }

  /**
   * Each term's weighted count in `body` and the words counted: line by line
   * up to the word budget (headings past it are not read), so a long body
   * costs no more than a short one.
   */
  private countTerms(body: string): { counts: Map<number, number>; length: number } {
    const { headingWeight, code } = this.tuning;
    const counts = new Map<number, number>();
    let length = 0;
    let budget = this.tuning.words;
    let inCode = false;
    const ids = this.line;
    const count = (text: string, weight: number, limited: boolean): void => {
      ids.length = 0;
      this.terms.append(text, ids);
      const take = limited ? Math.min(ids.length, budget) : ids.length;
      if (limited) budget -= take;
      for (let i = 0; i < take; i++) {
        const id = ids.values[i] ?? 0;
        counts.set(id, (counts.get(id) ?? 0) + weight);
      }
      length += take;
    };
    let start = 0;
    while (budget > 0 && start < body.length) {
      let end = body.indexOf('\n', start);
      if (end === -1) end = body.length;
      // A line is read up to LINE_CHARS: a table or minified file on one line costs no more than a paragraph.
      const line = body.slice(start, Math.min(end, start + LINE_CHARS));
      start = end + 1;
      if (FENCE.test(line)) {
        inCode = !inCode;
        continue;
      }
      if (inCode && !code) continue;
      const heading = inCode ? null : HEADING.exec(line);
      if (heading) count(heading[1] ?? '', headingWeight, false);
      else count(line, 1, true);
    }
    return { counts, length };
  }

  /** The `candidates` most frequent of a body's `counts` (ties by id), counted into the library's document frequencies. */
  private keepCandidates(counts: Map<number, number>, length: number): Candidates {
    // A numeric sort of packed (count, id) keys, no comparator.
    const keys = new Float64Array(counts.size);
    let k = 0;
    for (const [id, weight] of counts) keys[k++] = -(Math.round(weight * 16) * 0x1000000 + (0xffffff - id));
    keys.sort();
    const kept = Math.min(keys.length, this.tuning.candidates);
    const ids = new Int32Array(kept);
    const weights = new Float32Array(kept);
    if (this.terms.vocabulary.size > this.df.length) {
      const grown = new Int32Array(Math.max(this.terms.vocabulary.size, this.df.length * 2));
      grown.set(this.df);
      this.df = grown;
    }
    for (let i = 0; i < kept; i++) {
      const id = 0xffffff - (-(keys[i] ?? 0) % 0x1000000);
      ids[i] = id;
      weights[i] = counts.get(id) ?? 0;
      this.df[id] = (this.df[id] ?? 0) + 1;
    }
    return { ids, counts: weights, length };
  }

  /** The index over every body added so far; skills without one simply have no postings. */
  build(): BodyIndex {
    const steps = this.buildSteps();
    for (;;) {
      const step = steps.next();
      if (step.done) return step.value;
    }
  }

  /**
   * `build` in steps of about BUILD_STEP skills (and one for the
   * vocabulary): the background indexer lets requests run between them, so
   * none waits for the whole build (tens of milliseconds at 2,000 skills).
   */
  *buildSteps(): Generator<void, BodyIndex, void> {
    if (this.built) throw new Error('a body collector builds its index once');
    this.built = true;
    const vocabularySize = this.terms.vocabulary.size;
    const idfById = new Float64Array(vocabularySize);
    const bodies = Math.max(this.added, 1);
    for (let from = 0; from < vocabularySize; from += PASS_STEP) {
      const to = Math.min(vocabularySize, from + PASS_STEP);
      for (let id = from; id < to; id++) idfById[id] = idfOf(this.df[id] ?? 0, bodies);
      yield;
    }
    const chosen = yield* this.choosePostings(idfById);
    yield;
    const { terms, vocabulary, position } = yield* keptVocabulary(this.terms.vocabulary, chosen.usedIds);
    yield;
    const { term, count } = chosen;
    for (let from = 0; from < count; from += PASS_STEP) {
      const to = Math.min(count, from + PASS_STEP);
      for (let i = from; i < to; i++) term[i] = position[term[i] ?? 0] ?? 0;
      yield;
    }
    const idf = new Float64Array(vocabulary.size);
    for (let from = 0; from < vocabularySize; from += PASS_STEP) {
      const to = Math.min(vocabularySize, from + PASS_STEP);
      for (let id = from; id < to; id++) if (chosen.usedIds[id] === 1) idf[position[id] ?? 0] = idfById[id] ?? 0;
      yield;
    }
    const list = {
      term: term.subarray(0, count),
      doc: chosen.doc.subarray(0, count),
      weight: chosen.weight.subarray(0, count),
      packed: true,
    };
    const postings = yield* packPostingsSteps(vocabulary.size, this.size, list, PACK_STEP);
    return { terms, vocabulary, postings, idf, size: this.size, read: this.added, rareIdf: idfOf(1, Math.max(this.added, 1)) };
  }

  /**
   * Per skill, the `terms` terms that are frequent in it and rare in the
   * library (tf x idf; numbers never), as (collector term id, doc,
   * saturated BM25 weight) postings; yields every BUILD_STEP skills.
   */
  private *choosePostings(idfById: Float64Array): Generator<void, ChosenPostings, void> {
    const keep = this.tuning.terms;
    const vocabularySize = idfById.length;
    let totalLength = 0;
    let postingCount = 0;
    for (const doc of this.docs) {
      totalLength += doc?.length ?? 0;
      postingCount += Math.min(doc?.ids.length ?? 0, keep);
    }
    const averageLength = Math.max(1, this.added === 0 ? 1 : totalLength / this.added);
    const chosen: ChosenPostings = {
      term: new Int32Array(postingCount),
      doc: new Int32Array(postingCount),
      weight: new Uint16Array(postingCount),
      usedIds: new Uint8Array(vocabularySize),
      count: 0,
    };
    // Numbers (versions, ports, counts, numbered names) say little about a task, yet would rank as the rarest terms.
    const numeric = new Uint8Array(vocabularySize);
    let seen = 0;
    for (const [name, id] of this.terms.vocabulary) {
      if (DIGITS.test(name)) numeric[id] = 1;
      if (++seen % PASS_STEP === 0) yield;
    }
    yield;
    const scratch = { scores: new Float64Array(0), sorted: new Float64Array(0) };
    for (let d = 0; d < this.size; d++) {
      if (d % BUILD_STEP === BUILD_STEP - 1) yield;
      const doc = this.docs[d];
      if (!doc) continue;
      const n = doc.ids.length;
      if (scratch.scores.length < n) scratch.scores = new Float64Array(n * 2);
      for (let i = 0; i < n; i++) {
        const id = doc.ids[i] ?? 0;
        scratch.scores[i] = numeric[id] === 1 ? 0 : (doc.counts[i] ?? 0) * (idfById[id] ?? 0);
      }
      this.keepBest(d, doc, 1 - this.tuning.b + (this.tuning.b * doc.length) / averageLength, scratch, chosen);
      this.docs[d] = undefined;
    }
    return chosen;
  }

  /** Adds doc `d`'s best `terms` terms by `scratch.scores` (ties in candidate order) to `chosen`, tf normalised by `norm`. */
  private keepBest(
    d: number,
    doc: Candidates,
    norm: number,
    scratch: { scores: Float64Array; sorted: Float64Array },
    chosen: ChosenPostings,
  ): void {
    const keep = this.tuning.terms;
    const n = doc.ids.length;
    const { scores } = scratch;
    // tf x idf of the keep-th best: every term above it, and ties until `keep`.
    let cut = -Infinity;
    if (n > keep) {
      if (scratch.sorted.length < n) scratch.sorted = new Float64Array(n * 2);
      scratch.sorted.set(scores.subarray(0, n));
      cut = kthLargest(scratch.sorted, n, keep);
    }
    let room = Math.min(n, keep);
    for (let i = 0; i < n; i++) if ((scores[i] ?? 0) > cut) room--;
    for (let i = 0; i < n; i++) {
      const score = scores[i] ?? 0;
      if (score === 0 || score < cut || (score === cut && room-- <= 0)) continue;
      const id = doc.ids[i] ?? 0;
      const tf = (doc.counts[i] ?? 0) / norm;
      const p = chosen.count++;
      chosen.usedIds[id] = 1;
      chosen.term[p] = id;
      chosen.doc[p] = d;
      chosen.weight[p] = packedWeight(tf / (tf + K1));
    }
  }
}

/** Postings chosen by `choosePostings`: the first `count` of each array; `usedIds` flags the collector's term ids they use. */
interface ChosenPostings {
  term: Int32Array;
  doc: Int32Array;
  /** Packed as the postings keep them (packedWeight): 2 bytes a posting instead of 8 while the build runs. */
  weight: Uint16Array;
  usedIds: Uint8Array;
  count: number;
}

/**
 * The vocabulary of the terms used (`usedIds[id] === 1`), numbered in sorted order, and each collector id's position
 * in it; yields between its passes (at 2,000 skills the collected vocabulary holds some 100,000 terms).
 */
function* keptVocabulary(
  collected: ReadonlyMap<string, number>,
  usedIds: Uint8Array,
): Generator<void, { terms: readonly string[]; vocabulary: Vocabulary; position: Int32Array }, void> {
  const size = usedIds.length;
  const kept: string[] = [];
  let seen = 0;
  for (const [name, id] of collected) {
    if (id < size && usedIds[id] === 1) kept.push(name);
    if (++seen % (4 * SORT_STEP) === 0) yield;
  }
  yield;
  const sorted = yield* sortInSteps(kept, SORT_STEP);
  // Flat copies: a term sliced from a body's line would keep the whole line alive.
  const terms: string[] = [];
  for (let from = 0; from < sorted.length; from += SORT_STEP) {
    terms.push(...flatStrings(sorted.slice(from, from + SORT_STEP)));
    yield;
  }
  const position = new Int32Array(size);
  for (let from = 0; from < terms.length; from += SORT_STEP) {
    const to = Math.min(terms.length, from + SORT_STEP);
    for (let i = from; i < to; i++) position[collected.get(terms[i] as string) ?? 0] = i;
    yield;
  }
  return { terms, vocabulary: vocabularyOf(terms), position };
}

/** Distinct `strings` in code-unit order (`Array.prototype.sort`'s), in steps of about `step`: runs sorted natively, then merged. */
function* sortInSteps(strings: readonly string[], step: number): Generator<void, string[], void> {
  let runs: string[][] = [];
  for (let from = 0; from < strings.length; from += step) {
    runs.push(strings.slice(from, from + step).sort());
    yield;
  }
  while (runs.length > 1) {
    const merged: string[][] = [];
    for (let r = 0; r < runs.length; r += 2) {
      const [first, second] = [runs[r] as string[], runs[r + 1]];
      merged.push(second ? yield* mergeInSteps(first, second, step) : first);
    }
    runs = merged;
  }
  return runs[0] ?? [];
}

/** Sorted distinct `a` and `b` merged, yielding every `step` strings. */
function* mergeInSteps(a: readonly string[], b: readonly string[], step: number): Generator<void, string[], void> {
  const out = new Array<string>(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as string;
    const y = b[j] as string;
    if (x < y) i++;
    else j++;
    out[k++] = x < y ? x : y;
    if (k % step === 0) yield;
  }
  while (i < a.length) out[k++] = a[i++] as string;
  while (j < b.length) out[k++] = b[j++] as string;
  return out;
}

/** The k-th largest of values[0, n) (1-based k), by quickselect; reorders `values`. */
export function kthLargest(values: Float64Array, n: number, k: number): number {
  let low = 0;
  let high = n - 1;
  const target = k - 1;
  while (low < high) {
    const pivot = values[(low + high) >>> 1] ?? 0;
    let i = low;
    let j = high;
    while (i <= j) {
      while ((values[i] ?? 0) > pivot) i++;
      while ((values[j] ?? 0) < pivot) j--;
      if (i <= j) {
        const t = values[i] ?? 0;
        values[i] = values[j] ?? 0;
        values[j] = t;
        i++;
        j--;
      }
    }
    if (target <= j) high = j;
    else if (target >= i) low = i;
    else break;
  }
  return values[target] ?? 0;
}

/** BM25's IDF, kept positive even for a term in every body. */
function idfOf(documentFrequency: number, count: number): number {
  return Math.log(1 + (count - documentFrequency + 0.5) / (documentFrequency + 0.5));
}

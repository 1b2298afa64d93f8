/**
 * The ranker's postings, stored compactly: a vocabulary as one sorted array
 * searched by bisection, and postings packed by term in typed arrays (16-bit
 * docs and weights where they fit), whole (a build, a prebuilt index) or
 * grown a term at a time (a ranker built from a scan). Each choice names the
 * bench figure behind it: the row "memory N: middleware index heap"
 * (bench/memory.mjs, `npm run bench`), with the commit that measured it. The
 * ranker lives for the whole process: at 20,000 skills some 600,000
 * postings. Nothing here changes a value beyond the packed weights' 16 bits.
 */

import type { PendingPostings } from '../../base/ranker-data.js';

/** A set of terms, each with a number: its position in sorted order (0 to size - 1). */
export interface Vocabulary {
  readonly size: number;
  idOf(term: string): number | undefined;
}

/**
 * `ids` (term -> a number from 0 to size - 1, in any order) as a Vocabulary
 * whose ids are sorted positions, and `renumbered[old id]` = new id. The
 * terms are kept as one sorted array searched by bisection.
 *
 * Bench: a Map of the vocabulary (some 30,000 terms at 20,000 skills) costs
 * about 1 MB for as long as the ranker lives, the array a fifth (9db466f).
 */
export function sortedVocabulary(ids: ReadonlyMap<string, number>): { vocabulary: Vocabulary; terms: string[]; renumbered: Int32Array } {
  // The default order is compareNames' (UTF-16 code units), without a call back into JS per comparison.
  const terms = [...ids.keys()].sort();
  const renumbered = new Int32Array(terms.length);
  for (let id = 0; id < terms.length; id++) renumbered[ids.get(terms[id] as string) ?? 0] = id;
  return { vocabulary: vocabularyOf(terms), terms, renumbered };
}

/** `terms`, already sorted (code-unit order) and distinct, as a Vocabulary: term id = position. */
export function vocabularyOf(terms: readonly string[]): Vocabulary {
  return {
    size: terms.length,
    idOf(term) {
      let low = 0;
      let high = terms.length - 1;
      while (low <= high) {
        const mid = (low + high) >>> 1;
        const at = terms[mid] as string;
        if (at === term) return mid;
        if (at < term) low = mid + 1;
        else high = mid - 1;
      }
      return undefined;
    },
  };
}

/** (term, doc, weight) triples as parallel arrays, in any order: what packPostings packs. */
export interface PostingList {
  term: ArrayLike<number>;
  doc: ArrayLike<number>;
  /** In (0, 1); or, with `packed`, each already as packedWeight makes it (copied as it is). */
  weight: ArrayLike<number>;
  packed?: boolean;
}

/**
 * Postings grouped by term: for term t, positions start(t) to end(t) - 1,
 * each a doc number and a weight. Read with a plain loop:
 * `for (let p = postings.start(t); p < postings.end(t); p++)`.
 */
export interface Postings {
  start(term: number): number;
  end(term: number): number;
  /** How many postings term `term` has: end - start, without decoding pending postings. */
  count(term: number): number;
  doc(position: number): number;
  /** In (0, 1): the packed weight, never 0 for a weight that was above 0. */
  weight(position: number): number;
}

/** Weights keep 16 bits of their fraction: steps of 1.5e-5, far below any difference ranking relies on. */
export const WEIGHT_SCALE = 0xffff;

/**
 * The packed arrays themselves: term t's postings are positions offsets[t]
 * to offsets[t + 1] - 1 of `docs` and `weights` (a weight is its value x
 * WEIGHT_SCALE, at least 1). A prebuilt index stores them as they are.
 */
export class PackedPostings implements Postings {
  // Not readonly: a GrowingPostings replaces them as it grows.
  constructor(
    public offsets: Int32Array,
    public docs: Uint16Array | Uint32Array,
    public weights: Uint16Array,
    /** A prebuilt index's postings, decoded a term at a time as start() first asks for each (ranker-data.ts). */
    private readonly pending?: PendingPostings,
  ) {}

  /** Where term `term`'s postings start; decodes them first when they are pending, and gives none (end) when they are damaged. */
  start(term: number): number {
    if (this.pending !== undefined && !this.pending.decode(term)) return this.offsets[term + 1] ?? 0;
    return this.offsets[term] ?? 0;
  }

  /** How many postings term `term` has, decoded or not. */
  count(term: number): number {
    return (this.offsets[term + 1] ?? 0) - (this.offsets[term] ?? 0);
  }

  end(term: number): number {
    return this.offsets[term + 1] ?? 0;
  }

  doc(position: number): number {
    return this.docs[position] ?? 0;
  }

  weight(position: number): number {
    return (this.weights[position] ?? 0) / WEIGHT_SCALE;
  }
}

/**
 * `list` packed by term in typed arrays: `terms` term numbers, `docs` doc
 * numbers. 4 bytes a posting instead of an object each, or 8 in parallel
 * arrays: doc numbers take 16 bits up to 65,536 docs, weights 16 bits.
 *
 * Bench: typed arrays instead of an object per posting, 20,000 skills
 * 84 MB -> 2.7 MB for the ranker (9db466f); 16-bit docs and weights halve
 * the remaining 8 bytes a posting (some 600,000 postings at 20,000 skills,
 * 973f996).
 */
export function packPostings(terms: number, docs: number, list: PostingList): PackedPostings {
  const steps = packPostingsSteps(terms, docs, list, Infinity);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** `packPostings` in steps of `step` postings, for a build that lets requests run between them. */
export function* packPostingsSteps(terms: number, docs: number, list: PostingList, step: number): Generator<void, PackedPostings, void> {
  const total = list.term.length;
  const offsets = new Int32Array(terms + 1);
  for (let from = 0; from < total; from += step) {
    const to = Math.min(total, from + step);
    for (let i = from; i < to; i++) {
      const term = list.term[i] ?? 0;
      offsets[term + 1] = (offsets[term + 1] ?? 0) + 1;
    }
    if (to < total) yield;
  }
  for (let term = 0; term < terms; term++) offsets[term + 1] = (offsets[term + 1] ?? 0) + (offsets[term] ?? 0);
  const packedDocs = docs <= 0x10000 ? new Uint16Array(total) : new Uint32Array(total);
  const weights = new Uint16Array(total);
  const fill = offsets.slice(0, terms);
  for (let i = 0; i < total; i++) {
    if (i % step === step - 1) yield;
    const term = list.term[i] ?? 0;
    const at = fill[term] ?? 0;
    fill[term] = at + 1;
    packedDocs[at] = list.doc[i] ?? 0;
    weights[at] = list.packed === true ? (list.weight[i] ?? 0) : packedWeight(list.weight[i] ?? 0);
  }
  return new PackedPostings(offsets, packedDocs, weights);
}

/** A weight in (0, 1) as packed postings keep it: x WEIGHT_SCALE, rounded. */
export function packedWeight(weight: number): number {
  // At least 1: a weight above 0 must stay above 0 (the ranker tells touched docs by a score above 0).
  return Math.max(1, Math.round(weight * WEIGHT_SCALE));
}

/** `array` with room for at least `length` items, its items kept: itself when it has room, else a copy twice as long. */
function withRoom<T extends Int32Array | Uint16Array | Uint32Array | Float64Array>(array: T, length: number): T {
  if (length <= array.length) return array;
  const grown = new (array.constructor as new (length: number) => T)(Math.max(length, array.length * 2));
  grown.set(array);
  return grown;
}

/**
 * Postings added a term at a time and kept, with each term's IDF: what a
 * ranker built from a scan holds (term-scan.ts), which finds a term's
 * postings when a query first has it instead of tokenising every skill
 * first. Term ids are in the order terms were added; docs and weights are
 * packed as packPostings packs them, so a term's postings read the same as
 * a whole index's. Also remembers terms no doc holds, so a query does not
 * look for them again; up to ABSENT_LIMIT of them, as users' words are
 * without bound (file paths, names), then it starts over.
 */
export class GrowingPostings extends PackedPostings implements Vocabulary {
  private readonly ids = new Map<string, number>();
  private absent = new Set<string>();
  /** Each term's IDF by id (read up to `size`); replaced when it grows, so read it after adding. */
  idf = new Float64Array(64);

  /** `docCount`: the docs postings may name (0 to docCount - 1). */
  constructor(
    docCount: number,
    private readonly idfOf: (documentFrequency: number) => number,
  ) {
    super(new Int32Array(65), docCount <= 0x10000 ? new Uint16Array(256) : new Uint32Array(256), new Uint16Array(256));
  }

  get size(): number {
    return this.ids.size;
  }

  idOf(term: string): number | undefined {
    return this.ids.get(term);
  }

  /** Whether `term`'s postings are known: added, or known to be none. */
  knows(term: string): boolean {
    return this.ids.has(term) || this.absent.has(term);
  }

  /** Adds `term`'s postings: `docs` ascending, each with its weight in (0, 1); none: no doc holds it. */
  add(term: string, docs: readonly number[], weights: readonly number[]): void {
    if (this.knows(term)) return;
    if (docs.length === 0) {
      if (this.absent.size >= ABSENT_LIMIT) this.absent = new Set();
      this.absent.add(term);
      return;
    }
    const id = this.ids.size;
    const from = this.offsets[id] ?? 0;
    const to = from + docs.length;
    this.offsets = withRoom(this.offsets, id + 2);
    this.docs = withRoom(this.docs, to);
    this.weights = withRoom(this.weights, to);
    this.idf = withRoom(this.idf, id + 1);
    for (let i = 0; i < docs.length; i++) {
      this.docs[from + i] = docs[i] ?? 0;
      this.weights[from + i] = packedWeight(weights[i] ?? 0);
    }
    this.offsets[id + 1] = to;
    this.idf[id] = this.idfOf(docs.length);
    this.ids.set(term, id);
  }
}

/** Terms no doc holds that GrowingPostings remembers at most: some 10,000 words, under 1 MB. */
export const ABSENT_LIMIT = 10_000;

/**
 * A growable list of int32s (term ids while an index is built): one typed
 * array instead of an array of boxed numbers per field of every entry, which
 * was most of a cold build's garbage.
 */
export class Int32List {
  values: Int32Array;
  length = 0;

  constructor(capacity = 1024) {
    this.values = new Int32Array(capacity);
  }

  push(value: number): void {
    if (this.length === this.values.length) this.values = withRoom(this.values, this.length + 1);
    this.values[this.length++] = value;
  }
}

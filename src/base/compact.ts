/**
 * Memory tricks that depend on how V8 stores strings, objects and typed
 * arrays, kept in one module behind plain functions so the rest of the code
 * reads as ordinary data handling. They exist because the skill index and
 * its ranker live for the whole process: at 20,000 skills, every byte kept
 * per skill is 20 KB, every Map entry per skill is about 0.8 MB.
 *
 * Each trick names the figure that justifies it: the bench row "memory N:
 * middleware index heap" (bench/memory.mjs, workload seed 1, `npm run
 * bench`), before and after, with the commit that measured it. Nothing here
 * changes a value: every function gives back data equal to what it was
 * given, only stored more compactly. Pure; never throws on plain data.
 */
import { compareNames } from './text.js';

// ---------------------------------------------------------------------------
// Flat strings. A string sliced from a file keeps the whole file alive, and a
// string built by concatenation keeps its pieces; a flat copy holds only its
// own characters.

/**
 * A deep copy of parsed frontmatter with every string stored on its own: the
 * parser's strings are slices of the file text, and a slice keeps its whole
 * source alive.
 *
 * Bench: flat copies at all, 5,000 skills 12.2 -> 9.5 MB (a40a5f8). Through
 * JSON where JSON carries every value exactly: JSON.parse builds flat strings
 * and objects sized to their keys, 20,000 skills 35.49 -> 30.58 MB (dc8141b),
 * for some milliseconds more per 2,000 skills. Other values (NaN, ±Infinity,
 * -0, undefined) are copied value by value.
 */
export function compactCopy(value: unknown): unknown {
  if (jsonExact(value)) return JSON.parse(JSON.stringify(value)) as unknown;
  return copyEach(value);
}

/**
 * compactCopy of each of `values`, in one JSON round trip for all those JSON
 * carries exactly (the others are copied value by value).
 *
 * Bench: the index's metadata in one round trip instead of one per skill:
 * building the index in a fresh process, 2,000 real-shaped skills, 26 -> 22
 * ms (medians of 21 interleaved runs); the copies are the same values.
 */
export function compactCopies(values: readonly unknown[]): unknown[] {
  const copies = new Array<unknown>(values.length);
  const exact: unknown[] = [];
  const positions: number[] = [];
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (jsonExact(value)) {
      exact.push(value);
      positions.push(i);
    } else {
      copies[i] = copyEach(value);
    }
  }
  const parsed = JSON.parse(JSON.stringify(exact)) as unknown[];
  for (let j = 0; j < positions.length; j++) copies[positions[j] as number] = parsed[j];
  return copies;
}

/**
 * `strings`, each as one flat string, in one JSON pass for all.
 *
 * Bench: folder paths come from joins (pieces, some shared) that cost about
 * twice a flat copy; with SKILL.md paths sharing their folder's characters,
 * 20,000 skills 25.0 -> 22.7 MB (eb11388). Folder paths now: sharingParents.
 */
export function flatStrings(strings: readonly string[]): string[] {
  return JSON.parse(JSON.stringify(strings)) as string[];
}

/**
 * `paths`, each stored as two pieces: its parent folder (up to and with the
 * last `separator`), one copy shared by every path in that folder, and the
 * last segment, a flat copy of its own. The values are equal to `paths`.
 * Skill folders sit side by side in a few parent folders, so the parents'
 * characters are stored once each instead of once a skill. A piece is read
 * as a whole only when something reads the path's characters (an
 * activation, say): V8 then copies that one path flat.
 *
 * Bench: the index's folder paths at 20,000 real-shaped skills (3,101
 * parent folders, 84 characters a path on average), flat copies 1.95 MB,
 * pairs 1.37 MB; bench/memory.mjs first-request at 20,000 skills, heap kept
 * 17.35-17.43 -> 17.02-17.04 MB (two runs each, builds alternated).
 */
export function sharingParents(paths: readonly string[], separator: string): string[] {
  const cuts = paths.map((path) => path.lastIndexOf(separator) + 1);
  // Every piece flat, in one JSON pass: a slice would keep its whole path alive.
  const pieces = flatStrings(paths.flatMap((path, i) => [path.slice(0, cuts[i]), path.slice(cuts[i])]));
  const parents = new Map<string, string>();
  return paths.map((_, i) => {
    const piece = pieces[2 * i] as string;
    let parent = parents.get(piece);
    if (parent === undefined) {
      parent = piece;
      parents.set(piece, piece);
    }
    return parent + (pieces[2 * i + 1] as string);
  });
}

/** Whether a JSON round trip gives back a deep-equal value (no NaN, ±Infinity, -0 or undefined). */
function jsonExact(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value) && !Object.is(value, -0);
    case 'object':
      if (value === null) return true;
      if (Array.isArray(value)) return value.every(jsonExact);
      if (Object.getPrototypeOf(value) !== Object.prototype) return false;
      for (const key in value) {
        if (!jsonExact((value as Record<string, unknown>)[key])) return false;
      }
      return true;
    default:
      return false;
  }
}

function copyEach(value: unknown): unknown {
  if (typeof value === 'string') return flatString(value);
  if (Array.isArray(value)) return value.map(copyEach);
  if (typeof value === 'object' && value !== null) {
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (key === '__proto__') {
        // Assignment would set the prototype; keep it an ordinary property, as the parser made it.
        Object.defineProperty(copy, key, { value: copyEach(item), enumerable: true, writable: true, configurable: true });
      } else {
        // Plain assignment keeps the object in V8's compact (shared-shape) form.
        copy[flatString(key)] = copyEach(item);
      }
    }
    return copy;
  }
  return value;
}

function flatString(text: string): string {
  // Slicing a concatenation makes V8 copy it into one new string; V8 copies
  // strings under 13 characters anyway.
  return text.length < 13 ? text : ` ${text}`.slice(1);
}

// ---------------------------------------------------------------------------
// Sorted lookups: positions or keys in sorted order and a binary search,
// instead of a Map entry (about 40 bytes) per item.

/**
 * Finds items by name: positions sorted by name in one Int32Array (4 bytes
 * per item, outside the JS heap) and a binary search. The order is built on
 * the first lookup, so building an index costs nothing here, and the first
 * of several items with one name wins.
 *
 * `sorted`, when given, is that order worked out before (a prebuilt index
 * stores it): it is used when it is one (checked on the first lookup, one
 * comparison an item), else the order is sorted as without it. Sorting
 * 20,000 skill names takes 10-20 ms of a first request; checking, about 1 ms.
 *
 * Bench: instead of a Map in the index and the ranked catalog, 20,000 skills
 * 26.17 -> 25.00 MB (ec92c42); a lookup is ~15 string compares at 20,000.
 */
export function nameLookup<T>(items: readonly T[], nameOf: (item: T) => string, sorted?: Int32Array): (name: string) => T | undefined {
  const find = positionLookup(items.length, (position) => nameOf(items[position] as T), sorted);
  return (name) => {
    const position = find(name);
    return position === -1 ? undefined : items[position];
  };
}

/** nameLookup by position: the position of the first item named `name` among `count`, or -1. */
export function positionLookup(count: number, nameAt: (position: number) => string, sorted?: Int32Array): (name: string) => number {
  let order: Int32Array | undefined;
  return (name) => {
    order ??= sorted && isNameOrder(sorted, count, nameAt) ? sorted : sortedByName(count, nameAt);
    // Leftmost position whose name is >= `name`.
    let low = 0;
    let high = order.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (nameAt(order[mid] as number) < name) low = mid + 1;
      else high = mid;
    }
    if (low === order.length) return -1;
    const position = order[low] as number;
    return nameAt(position) === name ? position : -1;
  };
}

/** Positions 0 to count - 1 sorted by `nameAt`, ties by position (so a search lands on the first item of a name). */
export function sortedByName(count: number, nameAt: (position: number) => string): Int32Array {
  const order = new Int32Array(count);
  for (let i = 0; i < count; i++) order[i] = i;
  order.sort((a, b) => compareNames(nameAt(a), nameAt(b)) || a - b);
  return order;
}

/** Whether `order` is exactly what sortedByName(count, nameAt) gives: each position once, names ascending, ties by position. */
function isNameOrder(order: Int32Array, count: number, nameAt: (position: number) => string): boolean {
  if (order.length !== count) return false;
  const seen = new Uint8Array(count);
  for (let i = 0; i < count; i++) {
    const position = order[i] as number;
    if (position < 0 || position >= count || seen[position] === 1) return false;
    seen[position] = 1;
    if (i > 0) {
      const previous = order[i - 1] as number;
      const comparison = compareNames(nameAt(previous), nameAt(position));
      if (comparison > 0 || (comparison === 0 && previous > position)) return false;
    }
  }
  return true;
}

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

// ---------------------------------------------------------------------------
// Packed postings.

/** (term, doc, weight) triples as parallel arrays, in any order: what packPostings packs. */
export interface PostingList {
  term: ArrayLike<number>;
  doc: ArrayLike<number>;
  /** In (0, 1). */
  weight: ArrayLike<number>;
}

/**
 * Postings grouped by term: for term t, positions start(t) to end(t) - 1,
 * each a doc number and a weight. Read with a plain loop:
 * `for (let p = postings.start(t); p < postings.end(t); p++)`.
 */
export interface Postings {
  start(term: number): number;
  end(term: number): number;
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
  ) {}

  start(term: number): number {
    return this.offsets[term] ?? 0;
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
    weights[at] = packedWeight(list.weight[i] ?? 0);
  }
  return new PackedPostings(offsets, packedDocs, weights);
}

/** A weight in (0, 1) as packed postings keep it: x WEIGHT_SCALE, rounded. */
function packedWeight(weight: number): number {
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
 * ranker built from a scan holds (src/catalog/rank.ts), which finds a term's
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

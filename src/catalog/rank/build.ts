/**
 * Building BM25F over a skill's name, tags, "Use when" clauses and
 * description: each field's text and length, the three passes of a whole
 * build (term ids per field, saturated weights, postings packed by term),
 * and the index a query is scored against (IDFs, the evidence floor, the
 * buffers queries reuse). A ranker built from a scan finds the same postings
 * a term at a time (term-scan.ts); a prebuilt index stores the whole build
 * (data.ts). Pure.
 */
import { TermTable, whenClauses } from './tokenize.js';
import {
  Int32List,
  packPostings,
  sortedVocabulary,
  vocabularyOf,
  type PackedPostings,
  type Postings,
  type Vocabulary,
} from './postings.js';

export interface RankEntry {
  name: string;
  description: string;
  tags?: readonly string[];
}

/** BM25 saturation and length-normalisation constants (the usual values). */
export const K1 = 1.2;

const B = 0.75;

/**
 * Field weights. Names are short and chosen with care, so a word in the name
 * says most; "Use when ..." clauses state the user's intent, so their words
 * count a little more than the rest of the description.
 */
export const FIELDS = [
  { key: 'name', weight: 3, b: 0.5 },
  { key: 'tags', weight: 2, b: 0.5 },
  { key: 'when', weight: 1, b: B },
  { key: 'description', weight: 1, b: B },
] as const;

/**
 * The least a query's evidence counts for, in rare words (see the score scale
 * in score.ts): a request must match about this many rare words to reach a score
 * of 1 x saturation. Chosen with the auto-activation threshold.
 */
export const EVIDENCE_FLOOR = 3;

/** The text of each field of an entry, in FIELDS order. */
export function fieldTexts(entry: RankEntry): readonly string[] {
  return [entry.name, (entry.tags ?? []).join(' '), whenClauses(entry.description), entry.description];
}

/**
 * Writes the length BM25 normalises each field by, from the field texts
 * `fieldTexts` gives, into `lengths[at]` onwards: characters, not words.
 * Lengths then cost next to nothing to find: a ranker built from a scan
 * reads no entry's words but those of entries that may hold a query's terms
 * (at 2,000 skills, counting every field's words was half of a first
 * ranking's 20 ms).
 * Ranks about as word counts did on the labelled sets (docs/performance.md).
 */
export function writeFieldLengths(texts: readonly string[], lengths: Int32Array, at: number): void {
  for (let f = 0; f < texts.length; f++) lengths[at + f] = (texts[f] as string).length;
}

/** What one occurrence of a term in field `f` of an entry adds to the term's tf there: the field's weight, normalised by its length. */
export function fieldNorm(weights: readonly number[], f: number, length: number, averageLength: Float64Array): number {
  const field = FIELDS[f] as (typeof FIELDS)[number];
  return (weights[f] ?? field.weight) / (1 - field.b + (field.b * length) / (averageLength[f] ?? 1));
}

/** Each field's average length over `count` entries (at least 1), from lengths as writeFieldLengths writes them. */
export function averageLengths(lengths: Int32Array, count: number): Float64Array {
  const fieldCount = FIELDS.length;
  const average = new Float64Array(fieldCount);
  for (let e = 0; e < count; e++) for (let f = 0; f < fieldCount; f++) average[f] = (average[f] ?? 0) + (lengths[e * fieldCount + f] ?? 0);
  for (let f = 0; f < fieldCount; f++) average[f] = count === 0 ? 1 : Math.max((average[f] ?? 0) / count, 1);
  return average;
}

/**
 * Pass 1's result: every entry's term ids, field by field, in one list:
 * field f of entry e holds ids[bounds[e * FIELDS.length + f]] up to
 * ids[bounds[e * FIELDS.length + f + 1]]. Flat typed arrays, not an array per
 * field of every entry: on a cold start at 2,000 skills those arrays were
 * most of the build's garbage.
 */
interface Tokenized {
  table: TermTable;
  ids: Int32List;
  bounds: Int32Array;
  /** Field f of entry e is lengths[e * FIELDS.length + f] long (writeFieldLengths). */
  lengths: Int32Array;
  averageLength: Float64Array;
}

/** Pass 2's result: the build-time vocabulary and one posting per (term, doc), weight saturated. */
interface Weighted {
  ids: ReadonlyMap<string, number>;
  postings: { term: Int32Array; doc: Int32Array; weight: Float64Array };
}

/** What a query is scored against, kept as long as the ranker. */
export interface Bm25Index {
  names: readonly string[];
  vocabulary: Vocabulary;
  postings: Postings;
  /**
   * Each term's IDF by id (a scanned index's grows as it learns terms: see TermScan); a whole index's is NaN
   * until the term is first ranked (wholeIndex), and worked out from its postings' count then.
   */
  idf: Float64Array;
  /** The least a query's evidence counts for (see the score scale in score.ts). */
  evidenceFloor: number;
  /** Reused by every query (ranking is synchronous): scores by doc, and which docs were touched. */
  scores: Float64Array;
  touched: Int32Array;
  /** Reused by every query: the touched docs' final scores, in `touched` order, and a copy the top-k cut reorders. */
  final: Float64Array;
  cutScratch: Float64Array;
}

/** A whole index's terms (sorted: term id = position) and postings: what buildIndex makes and a prebuilt index stores. */
export interface BuiltIndex {
  terms: readonly string[];
  postings: PackedPostings;
}

/** Where a ranker's index comes from: whole from the start (a prebuilt index), or found a term at a time (TermScan). */
export interface IndexSource {
  /** The index as it is now (read it after `learn`). */
  readonly index: Bm25Index;
  /** Makes sure the postings of `terms` are in `index`. */
  learn(terms: readonly string[]): void;
}

/** Pass 1: term ids per field, and the field lengths BM25 normalises by. */
function tokenizeEntries(entries: ReadonlyArray<RankEntry>): Tokenized {
  const table = new TermTable();
  const ids = new Int32List();
  const fieldCount = FIELDS.length;
  const bounds = new Int32Array(entries.length * fieldCount + 1);
  const lengths = new Int32Array(entries.length * fieldCount);
  for (let e = 0; e < entries.length; e++) {
    const texts = fieldTexts(entries[e] as RankEntry);
    writeFieldLengths(texts, lengths, e * fieldCount);
    for (let f = 0; f < fieldCount; f++) {
      table.append(texts[f] ?? '', ids);
      bounds[e * fieldCount + f + 1] = ids.length;
    }
  }
  return { table, ids, bounds, lengths, averageLength: averageLengths(lengths, entries.length) };
}

/** Pass 2: (term, doc, saturated weight) triples, doc by doc: the weighted, length-normalised tf as tf/(tf + K1). */
function weighTerms({ table, ids, bounds, lengths, averageLength }: Tokenized, weights: readonly number[]): Weighted {
  const fieldCount = FIELDS.length;
  const docs = (bounds.length - 1) / fieldCount;
  // A doc has at most one posting per id it holds: the id count bounds the posting count.
  const term = new Int32Array(ids.length);
  const doc = new Int32Array(ids.length);
  const weight = new Float64Array(ids.length);
  let count = 0;
  // One doc's frequencies by term id and the ids it used, reset after each doc: no Map per doc.
  const tfById = new Float64Array(table.vocabulary.size);
  const docTerms = new Int32Array(table.vocabulary.size);
  const values = ids.values;
  for (let index = 0; index < docs; index++) {
    let used = 0;
    for (let f = 0; f < fieldCount; f++) {
      const from = bounds[index * fieldCount + f] ?? 0;
      const to = bounds[index * fieldCount + f + 1] ?? 0;
      if (from === to) continue;
      const norm = fieldNorm(weights, f, lengths[index * fieldCount + f] ?? 0, averageLength);
      for (let i = from; i < to; i++) {
        const id = values[i] ?? 0;
        // norm is positive, so 0 means not yet seen in this doc.
        if (tfById[id] === 0) docTerms[used++] = id;
        tfById[id] = (tfById[id] ?? 0) + norm;
      }
    }
    for (let j = 0; j < used; j++) {
      const id = docTerms[j] ?? 0;
      const tf = tfById[id] ?? 0;
      term[count] = id;
      doc[count] = index;
      weight[count] = tf / (tf + K1);
      count++;
      tfById[id] = 0;
    }
  }
  return {
    ids: table.vocabulary,
    postings: { term: term.subarray(0, count), doc: doc.subarray(0, count), weight: weight.subarray(0, count) },
  };
}

/** Pass 3: terms numbered in sorted order, postings packed by term (postings.ts). */
function packIndex(count: number, { ids, postings }: Weighted): BuiltIndex {
  const { terms, renumbered } = sortedVocabulary(ids);
  const term = postings.term;
  for (let i = 0; i < term.length; i++) term[i] = renumbered[term[i] ?? 0] ?? 0;
  return { terms, postings: packPostings(terms.length, count, postings) };
}

/** The index queries are scored against over these postings: the evidence floor, and the buffers queries reuse. */
export function indexOf(names: readonly string[], vocabulary: Vocabulary, postings: Postings, idf: Float64Array): Bm25Index {
  const count = names.length;
  return {
    names,
    vocabulary,
    postings,
    idf,
    evidenceFloor: EVIDENCE_FLOOR * idfOf(1, count),
    scores: new Float64Array(count),
    touched: new Int32Array(count),
    final: new Float64Array(count),
    cutScratch: new Float64Array(count),
  };
}

/** The index over a whole index's terms and postings (built, or as a prebuilt index stores them), for entries named `names`. */
export function wholeIndex(names: readonly string[], { terms, postings }: BuiltIndex): Bm25Index {
  // Each term's IDF is worked out when the term is first ranked (score.ts): a request ranks a few of some 30,000
  // terms, and a loop over all of them was 1-2 ms of a first request from a prebuilt index. NaN until then.
  const idf = new Float64Array(terms.length).fill(Number.NaN);
  return indexOf(names, vocabularyOf(terms), postings, idf);
}

/** BM25's IDF, kept positive even for a term in every entry. */
export function idfOf(documentFrequency: number, count: number): number {
  return Math.log(1 + (count - documentFrequency + 0.5) / (documentFrequency + 0.5));
}

/** The whole index over `entries` at once, every entry's words tokenised: what a prebuilt index stores (buildRankerData). */
export function buildIndex(entries: ReadonlyArray<RankEntry>, weights: readonly number[]): BuiltIndex {
  const tokenized = tokenizeEntries(entries);
  // Each pass's result is dropped when the next returns.
  return packIndex(entries.length, weighTerms(tokenized, weights));
}

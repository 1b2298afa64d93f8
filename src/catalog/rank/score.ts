/**
 * Local ranking of skills against a free-text query: BM25F over a skill's
 * name, tags and description, dependency-free and deterministic. An inverted
 * index with per-field weights folded in, so a query costs only the postings
 * of its terms: from a scan, a term's postings are found when a query first
 * has it (TermScan); a prebuilt index holds them all. Once a skill's
 * instructions are indexed (src/catalog/body-terms.ts, src/source/body-indexer.ts),
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
import { BODY_DEFAULTS, BodyCollector, kthLargest, type BodyIndex, type BodyTuning } from './body-terms.js';
import {
  GrowingPostings,
  Int32List,
  PackedPostings,
  packPostings,
  sortedVocabulary,
  vocabularyOf,
  type Postings,
  type Vocabulary,
} from '../base/compact.js';
import { compareNames } from '../base/text.js';

export interface RankEntry {
  name: string;
  description: string;
  tags?: readonly string[];
}

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

/** A ranker whose instructions' terms can be added once they are read (src/source/body-indexer.ts). */
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

/** BM25 saturation and length-normalisation constants (the usual values). */
const K1 = 1.2;
const B = 0.75;

/**
 * Field weights. Names are short and chosen with care, so a word in the name
 * says most; "Use when ..." clauses state the user's intent, so their words
 * count a little more than the rest of the description.
 */
const FIELDS = [
  { key: 'name', weight: 3, b: 0.5 },
  { key: 'tags', weight: 2, b: 0.5 },
  { key: 'when', weight: 1, b: B },
  { key: 'description', weight: 1, b: B },
] as const;

/**
 * The least a query's evidence counts for, in rare words (see the score scale
 * above): a request must match about this many rare words to reach a score
 * of 1 x saturation. Chosen with the auto-activation threshold.
 */
const EVIDENCE_FLOOR = 3;

/** Long queries (a pasted stack trace) are cut: the first words carry the request. */
export const MAX_QUERY_CHARS = 2000;

/** Words that carry no topic in requests or descriptions. Short on purpose. */
const STOPWORDS = new Set(
  (
    'a an the and or but if of to in on at by for from with without into onto as is are was were be been being ' +
    'it its this that these those there here i me my we our us you your they them their he she his her ' +
    'do does did done can could would should will shall may might must not no so than then too very ' +
    'what which who whom how why when where please help want need like just also any some all each ' +
    'use used uses using about via skill skills'
  ).split(' '),
);

const VOWEL = /[aeiouy]/;

/**
 * Naive suffix stemming, one rule then a final "e": "reviews", "reviewing",
 * "reviewed" and "review" all become "review"; "release", "releases" and
 * "releasing" become "releas". Only consistency matters: queries and skills
 * go through the same function.
 */
export function stem(word: string): string {
  if (word.length <= 3 || /^\d+$/.test(word)) return word;
  let w = word;
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('ing') && w.length > 5 && VOWEL.test(w.slice(0, -3))) w = undouble(w.slice(0, -3));
  else if (w.endsWith('ed') && !w.endsWith('eed') && w.length > 4 && VOWEL.test(w.slice(0, -2))) w = undouble(w.slice(0, -2));
  else if (/(?:ss|x|ch|sh)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1);
  if (w.length > 3 && w.endsWith('e')) w = w.slice(0, -1);
  return w;
}

/** "debugg" -> "debug", so "debugging" meets "debug"; keeps "ll"/"ss"/"zz" words as they are. */
function undouble(word: string): string {
  const last = word[word.length - 1];
  if (word.length > 3 && last === word[word.length - 2] && last !== 'l' && last !== 's' && last !== 'z') return word.slice(0, -1);
  return word;
}

const NOT_A_WORD_CHAR = /[^\p{L}\p{N}]+/u;
const NOT_AN_ASCII_WORD_CHAR = /[^a-z0-9]+/;
/** Anything but printable ASCII and line whitespace: a quick test before the slower NON_ASCII_WORD_CHAR. */
const NON_ASCII = /[^\t\n\r -~]/;
/** A letter or digit outside ASCII: text with one takes the Unicode split (always right, only slower). */
const NON_ASCII_WORD_CHAR = /(?![\0-\x7f])[\p{L}\p{N}]/u;

/**
 * Whether lowercased `lower` must be split on Unicode word characters: the
 * ASCII split gives the same words unless a letter or digit outside ASCII
 * is in it (dashes, quotes and emoji are not). Most texts with one of those
 * have none, and the Unicode expressions are several times slower.
 */
function unicodeWords(lower: string): boolean {
  return NON_ASCII.test(lower) && NON_ASCII_WORD_CHAR.test(lower);
}

/** The words of `text`, lowercased: split on anything that is not a letter or a digit (may hold ''). Exported for tests. */
export function words(text: string): string[] {
  const lower = text.toLowerCase();
  return unicodeWords(lower) ? lower.split(NOT_A_WORD_CHAR) : lower.split(NOT_AN_ASCII_WORD_CHAR);
}

/** The term a lowercased word counts as, or undefined for a stopword. Queries and skills share it. */
function termOf(word: string): string | undefined {
  return STOPWORDS.has(word) ? undefined : stem(word);
}

/** Lowercase, split on anything that is not a letter or digit, drop stopwords, stem. */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const word of words(text)) {
    const term = word.length === 0 ? undefined : termOf(word);
    if (term !== undefined) out.push(term);
  }
  return out;
}

const WHEN_CLAUSE =
  /\b(?:use|used|trigger|triggers|triggered|invoke|activate|apply)\s+(?:this\s+(?:skill\s+)?|it\s+)?(?:when|whenever|for|if|to)\b([^.!?\n]*)/gi;

/** The words of "Use when ..." (and alike) clauses in a description. */
export function whenClauses(description: string): string {
  // exec in a loop, not matchAll: its iterator cost a first query at 2,000 skills more than the matching (about 3 ms).
  WHEN_CLAUSE.lastIndex = 0;
  let clauses: string | undefined;
  for (let match = WHEN_CLAUSE.exec(description); match !== null; match = WHEN_CLAUSE.exec(description)) {
    const clause = match[1] ?? '';
    clauses = clauses === undefined ? clause : `${clauses} ${clause}`;
  }
  return clauses ?? '';
}

/**
 * tokenize, giving term ids, for building an index: each distinct word is
 * looked up in the stopwords and stemmed once, not at every occurrence (the
 * same few thousand words fill most descriptions). Build-time only.
 */
class TermTable {
  /** Stemmed term -> id. */
  readonly vocabulary = new Map<string, number>();
  /** Lowercase word as split -> its term's id, or -1 for a stopword. */
  private readonly idByWord = new Map<string, number>();

  /** Appends the term ids of `text` to `out`. */
  append(text: string, out: Int32List): void {
    const lower = text.toLowerCase();
    // ASCII text (most descriptions) splits the same on a plain character class, which V8 matches faster.
    for (const raw of unicodeWords(lower) ? lower.split(NOT_A_WORD_CHAR) : lower.split(NOT_AN_ASCII_WORD_CHAR)) {
      if (raw.length === 0) continue;
      let id = this.idByWord.get(raw);
      if (id === undefined) {
        const term = termOf(raw);
        id = term === undefined ? -1 : this.idOf(term);
        this.idByWord.set(raw, id);
      }
      if (id >= 0) out.push(id);
    }
  }

  private idOf(term: string): number {
    let id = this.vocabulary.get(term);
    if (id === undefined) {
      id = this.vocabulary.size;
      this.vocabulary.set(term, id);
    }
    return id;
  }
}

/** The terms the index build finds in `text`: always `tokenize(text)` (tested); for tests. */
export function indexTerms(text: string): string[] {
  const table = new TermTable();
  const ids = new Int32List();
  table.append(text, ids);
  const terms = [...table.vocabulary.keys()];
  return Array.from(ids.values.subarray(0, ids.length), (id) => terms[id] ?? '');
}

/** The text of each field of an entry, in FIELDS order. */
function fieldTexts(entry: RankEntry): readonly string[] {
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
function writeFieldLengths(texts: readonly string[], lengths: Int32Array, at: number): void {
  for (let f = 0; f < texts.length; f++) lengths[at + f] = (texts[f] as string).length;
}

/** What one occurrence of a term in field `f` of an entry adds to the term's tf there: the field's weight, normalised by its length. */
function fieldNorm(weights: readonly number[], f: number, length: number, averageLength: Float64Array): number {
  const field = FIELDS[f] as (typeof FIELDS)[number];
  return (weights[f] ?? field.weight) / (1 - field.b + (field.b * length) / (averageLength[f] ?? 1));
}

/** Each field's average length over `count` entries (at least 1), from lengths as writeFieldLengths writes them. */
function averageLengths(lengths: Int32Array, count: number): Float64Array {
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
interface Bm25Index {
  names: readonly string[];
  vocabulary: Vocabulary;
  postings: Postings;
  /** Each term's IDF by id (a scanned index's grows as it learns terms: see TermScan). */
  idf: Float64Array;
  /** The least a query's evidence counts for (see the score scale in this module's header). */
  evidenceFloor: number;
  /** Reused by every query (ranking is synchronous): scores by doc, and which docs were touched. */
  scores: Float64Array;
  touched: Int32Array;
  /** Reused by every query: the touched docs' final scores, in `touched` order, and a copy the top-k cut reorders. */
  final: Float64Array;
  cutScratch: Float64Array;
}

/** A whole index's terms (sorted: term id = position) and postings: what buildIndex makes and a prebuilt index stores. */
interface BuiltIndex {
  terms: readonly string[];
  postings: PackedPostings;
}

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
function bodyAware(ranker: Bm25Ranker, size: number): BodyAwareRanker {
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

/** Where a ranker's index comes from: whole from the start (a prebuilt index), or found a term at a time (TermScan). */
interface IndexSource {
  /** The index as it is now (read it after `learn`). */
  readonly index: Bm25Index;
  /** Makes sure the postings of `terms` are in `index`. */
  learn(terms: readonly string[]): void;
}

class Bm25Ranker {
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

/** The whole index over `entries` at once, every entry's words tokenised: what a prebuilt index stores (buildRankerData). */
function buildIndex(entries: ReadonlyArray<RankEntry>, weights: readonly number[]): BuiltIndex {
  const tokenized = tokenizeEntries(entries);
  // Each pass's result is dropped when the next returns.
  return packIndex(entries.length, weighTerms(tokenized, weights));
}

/** A word of a query that ranks: the word as written (its first occurrence) and the term it counts as. */
export interface QueryWord {
  word: string;
  term: string;
}

/** The words of a query that rank, each with the term it counts as (first occurrence of each term): what ranking scores, and what find_skills explains. */
export function queryWords(query: string): QueryWord[] {
  const out: QueryWord[] = [];
  const seen = new Set<string>();
  for (const word of words(String(query).slice(0, MAX_QUERY_CHARS))) {
    const term = word === '' ? undefined : termOf(word);
    if (term === undefined || seen.has(term)) continue;
    seen.add(term);
    out.push({ word, term });
  }
  return out;
}

/**
 * A ranker's index built from a scan. Up front only each field's length
 * (characters: no entry's words are read) and their averages; a term's
 * postings are found when a query first has it, reading only the entries
 * that may hold one of the query's new terms (mayHoldTerms), of their words
 * only those that start as such a term does, and kept (GrowingPostings).
 * The postings are the whole index's (tokenizeEntries, weighTerms,
 * packPostings), bit for bit: the same field lengths and averages, the same
 * tf sums in the same order, the same packing, the same IDFs (tested).
 * Building the whole index up front cost a fresh process some 60 ms at
 * 2,000 skills, the lengths 2 ms, and a run of a few requests asks for a
 * few dozen of its thousands of terms; a ranker that keeps meeting new
 * words builds it after SCANS_BEFORE_WHOLE_INDEX scans (docs/performance.md).
 */
class TermScan implements IndexSource {
  index: Bm25Index;
  /** What finding a term's postings needs; dropped once the whole index is built (every term known). */
  private scanning: Scanning | undefined;
  /** Scans so far: after SCANS_BEFORE_WHOLE_INDEX, the whole index is built instead. */
  private scans = 0;

  constructor(entries: ReadonlyArray<RankEntry>, weights: readonly number[]) {
    const count = entries.length;
    const fieldCount = FIELDS.length;
    const lengths = new Int32Array(count * fieldCount);
    const asIs = new Uint8Array(count);
    for (let e = 0; e < count; e++) {
      const entry = entries[e] as RankEntry;
      writeFieldLengths(fieldTexts(entry), lengths, e * fieldCount);
      asIs[e] = caseless(entry) ? 1 : 0;
    }
    const postings = new GrowingPostings(count, (frequency) => idfOf(frequency, count));
    this.scanning = { entries, weights, lengths, averageLength: averageLengths(lengths, count), asIs, postings };
    this.index = indexOf(
      entries.map((entry) => entry.name),
      postings,
      postings,
      postings.idf,
    );
  }

  /**
   * Finds and keeps the postings of those of `terms` whose postings are not
   * known yet; once it has scanned SCANS_BEFORE_WHOLE_INDEX times, builds
   * the whole index instead, after which every term is known.
   */
  learn(terms: readonly string[]): void {
    const scanning = this.scanning;
    if (!scanning) return;
    const unknown = [...new Set(terms.filter((term) => !scanning.postings.knows(term)))];
    if (unknown.length === 0) return;
    if (this.scans >= SCANS_BEFORE_WHOLE_INDEX) {
      this.index = wholeIndex(this.index.names, buildIndex(scanning.entries, scanning.weights));
      // Only the whole index stays: the entries belong to the caller.
      this.scanning = undefined;
      return;
    }
    this.scans++;
    scanTerms(scanning, unknown);
    // The IDFs' array is replaced as it grows.
    this.index.idf = scanning.postings.idf;
  }
}

/** What a TermScan reads to find a term's postings, and the postings found. */
interface Scanning {
  entries: ReadonlyArray<RankEntry>;
  /** Field weights (RankTuning.fields). */
  weights: readonly number[];
  /** Field f of entry e is lengths[e * FIELDS.length + f] characters long. */
  lengths: Int32Array;
  averageLength: Float64Array;
  /** 1 where an entry's texts can be searched as they are (`caseless`), lowercased when 0. */
  asIs: Uint8Array;
  postings: GrowingPostings;
}

/** Finds the postings of `terms` (none known yet) and adds them to `scanning.postings`. */
function scanTerms({ entries, weights, lengths, averageLength, asIs, postings }: Scanning, terms: readonly string[]): void {
  const fieldCount = FIELDS.length;
  const mayHave = mayHoldTerms(terms);
  const slot = new Map(terms.map((term, i) => [term, i]));
  const docs: number[][] = terms.map(() => []);
  const saturated: number[][] = terms.map(() => []);
  // One entry's occurrences of each term, field by field (field-major: f * terms + i), and its tf per term.
  const occurrences = new Int32Array(fieldCount * terms.length);
  const tf = new Float64Array(terms.length);
  for (let e = 0; e < entries.length; e++) {
    const entry = entries[e] as RankEntry;
    if (!mayHave.entry(entry, asIs[e] === 1)) continue;
    const texts = fieldTexts(entry);
    let found = false;
    for (let f = 0; f < fieldCount; f++) {
      const text = texts[f] ?? '';
      if (text === '') continue;
      for (const word of mayHave.words(text.toLowerCase())) {
        const i = slot.get(termOf(word) ?? '');
        if (i === undefined) continue;
        occurrences[f * terms.length + i] = (occurrences[f * terms.length + i] ?? 0) + 1;
        found = true;
      }
    }
    if (!found) continue;
    // As weighTerms sums a doc's tf: a field's norm added once per occurrence, field by field.
    for (let f = 0; f < fieldCount; f++) {
      const norm = fieldNorm(weights, f, lengths[e * fieldCount + f] ?? 0, averageLength);
      for (let i = 0; i < terms.length; i++) {
        for (let n = occurrences[f * terms.length + i] ?? 0; n > 0; n--) tf[i] = (tf[i] ?? 0) + norm;
        occurrences[f * terms.length + i] = 0;
      }
    }
    for (let i = 0; i < terms.length; i++) {
      const value = tf[i] ?? 0;
      if (value === 0) continue;
      docs[i]?.push(e);
      saturated[i]?.push(value / (value + K1));
      tf[i] = 0;
    }
  }
  terms.forEach((term, i) => postings.add(term, docs[i] ?? [], saturated[i] ?? []));
}

/**
 * Scans a ranker makes before it builds the whole index: a ranker that keeps
 * meeting new words (a server's) then pays for the build once, and each new
 * word after it costs nothing; one that answers a few requests (an agent
 * run from the command line) never builds it. At 2,000 real-shaped skills a
 * scan costs 1-6 ms warm and the whole build about 25 (docs/performance.md):
 * about what the scans before it cost.
 */
export const SCANS_BEFORE_WHOLE_INDEX = 8;

/**
 * Where entries and texts may have a word whose term is one of `terms`. A
 * term is its word less a suffix, or with "ies" made "y" (see `stem`), so a
 * word giving term t starts with t, or with t less its final "y": looked for
 * with regular expressions at word starts, no per-word work. `entry` is
 * false for an entry without such a word (`asIs`: whether its texts can be
 * searched as they are, as `caseless` tells); `words` gives the words of a
 * lowercased text that start so (those to look up), as tokenize splits them.
 */
function mayHoldTerms(terms: readonly string[]): {
  entry: (entry: RankEntry, asIs: boolean) => boolean;
  words: (lower: string) => string[];
} {
  // Terms are letters and digits only: nothing to escape.
  const starts = terms.map((term) => (term.endsWith('y') ? term.slice(0, -1) : term)).join('|');
  // Plain searches, made for each scan: a word start is checked in code (wordCharBefore), not by a lookbehind of
  // Unicode classes, which cost 0.5-1 ms each to compile (three of them were most of a warm scan's time).
  const anywhere = new RegExp(starts, 'g');
  // Whole words, split as `words` splits them: on ASCII letters and digits where no other letter is.
  const asciiWords = new RegExp(`(?<![a-z0-9])(?:${starts})[a-z0-9]*`, 'g');
  // Lowercasing a sigma depends on what is around it, so a piece of a text may lowercase otherwise.
  const sigma = /[σς]/u.test(starts);
  // Terms of ASCII letters and digits are searched for in a text as it is, any case: no lowercased copy of
  // every text (at 20,000 skills, most of a scan's time). Exact for a text without LOWERCASES_TO_ASCII.
  const asciiTerms = /^[a-z0-9|]*$/.test(starts);
  const anywhereAnyCase = new RegExp(starts, 'gi');
  /** Whether `text` holds a term at a word start, once lowercased; `anyCase`: searched as it is (asciiTerms, and no LOWERCASES_TO_ASCII in it). */
  const holds = (text: string, anyCase: boolean): boolean =>
    (anyCase ? termAt(anywhereAnyCase, text) : termAt(anywhere, text.toLowerCase())) === 'word start';
  return {
    words: (lower) => (unicodeWords(lower) ? wordsFrom(anywhere, lower) : (lower.match(asciiWords) ?? [])),
    entry(entry, asIs) {
      const anyCase = asciiTerms && asIs;
      if (holds(entry.name, anyCase)) return true;
      if (entry.tags && holds(entry.tags.join(' '), anyCase)) return true;
      const { description } = entry;
      // The description as it is searched, once: most descriptions hold no term at all.
      const found = anyCase ? termAt(anywhereAnyCase, description) : termAt(anywhere, description.toLowerCase());
      if (found === 'word start') return true;
      // "Use when" clauses are pieces of the description: what it does not hold at all, they do not.
      return (sigma || found === 'inside a word') && holds(whenClauses(description), anyCase);
    },
  };
}

/** A letter or digit: what `(?<![\p{L}\p{N}])` looks back for. Compiled once. */
const WORD_CHAR = /[\p{L}\p{N}]/u;
/** The letters and digits from lastIndex on. */
const WORD_CHARS_FROM = /[\p{L}\p{N}]*/uy;

/** Whether the code point that ends at `index` of `text` is a letter or a digit (a surrogate pair read as one). */
function wordCharBefore(text: string, index: number): boolean {
  if (index === 0) return false;
  const unit = text.charCodeAt(index - 1);
  if (unit < 0x80) return (unit >= 0x30 && unit <= 0x39) || (unit >= 0x61 && unit <= 0x7a) || (unit >= 0x41 && unit <= 0x5a);
  const high = index >= 2 ? text.charCodeAt(index - 2) : 0;
  const pair = unit >= 0xdc00 && unit <= 0xdfff && high >= 0xd800 && high <= 0xdbff;
  return WORD_CHAR.test(text.slice(pair ? index - 2 : index - 1, index));
}

/** What nextWordStart gives when `search` matches nowhere from its lastIndex on, and when it matches only inside words. */
const NO_MATCH = -1;
const ONLY_INSIDE_WORDS = -2;

/**
 * Where the next match of `search` (a 'g' expression of terms' starts), from
 * its lastIndex on, has no letter or digit before it; lastIndex is then the
 * match's end. Else NO_MATCH or ONLY_INSIDE_WORDS.
 */
function nextWordStart(search: RegExp, text: string): number {
  let missed = NO_MATCH;
  for (let match = search.exec(text); match !== null; match = search.exec(text)) {
    if (!wordCharBefore(text, match.index)) return match.index;
    missed = ONLY_INSIDE_WORDS;
    // Inside a match every position follows a letter or digit, so none is a word start: the search goes on after it.
    if (match[0] === '') search.lastIndex = nextCodePoint(text, match.index);
  }
  return missed;
}

/** Where `search` (a 'g' expression of terms' starts) matches `text`: somewhere no letter or digit is before, only inside words, or nowhere. */
function termAt(search: RegExp, text: string): 'word start' | 'inside a word' | 'nowhere' {
  search.lastIndex = 0;
  const start = nextWordStart(search, text);
  if (start >= 0) return 'word start';
  return start === ONLY_INSIDE_WORDS ? 'inside a word' : 'nowhere';
}

/** The words of `lower` that start with a match of `search` (a 'g' expression) where no letter or digit is before. */
function wordsFrom(search: RegExp, lower: string): string[] {
  const found: string[] = [];
  search.lastIndex = 0;
  for (let start = nextWordStart(search, lower); start >= 0; start = nextWordStart(search, lower)) {
    WORD_CHARS_FROM.lastIndex = search.lastIndex;
    WORD_CHARS_FROM.exec(lower);
    const end = WORD_CHARS_FROM.lastIndex;
    if (end > start) found.push(lower.slice(start, end));
    search.lastIndex = end > start ? end : nextCodePoint(lower, start);
  }
  return found;
}

/**
 * The index after the code point at `index`: a search that matched nothing
 * there goes on from it, never from inside a surrogate pair (as a /u
 * expression would), where the empty term start would match again.
 */
function nextCodePoint(text: string, index: number): number {
  const unit = text.charCodeAt(index);
  const next = text.charCodeAt(index + 1);
  return unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff ? index + 2 : index + 1;
}

/** Whether the texts of `entry` can be searched in any case, not lowercased (mayHoldTerms): none holds a letter of LOWERCASES_TO_ASCII. */
function caseless(entry: RankEntry): boolean {
  return (
    !LOWERCASES_TO_ASCII.test(entry.name) &&
    !LOWERCASES_TO_ASCII.test(entry.description) &&
    !(entry.tags ?? []).some((tag) => LOWERCASES_TO_ASCII.test(tag))
  );
}

/**
 * The letters outside ASCII whose lowercase holds an ASCII letter (İ, the
 * Kelvin sign): a text with one is lowercased before it is searched. No
 * other letter's lowercase does, and lowercasing keeps what is a letter or
 * digit (checked over every code point).
 */
const LOWERCASES_TO_ASCII = /[\u0130\u212a]/;

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

/** Pass 3: terms numbered in sorted order, postings packed by term (src/base/compact.ts). */
function packIndex(count: number, { ids, postings }: Weighted): BuiltIndex {
  const { terms, renumbered } = sortedVocabulary(ids);
  const term = postings.term;
  for (let i = 0; i < term.length; i++) term[i] = renumbered[term[i] ?? 0] ?? 0;
  return { terms, postings: packPostings(terms.length, count, postings) };
}

/** The index queries are scored against over these postings: the evidence floor, and the buffers queries reuse. */
function indexOf(names: readonly string[], vocabulary: Vocabulary, postings: Postings, idf: Float64Array): Bm25Index {
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
function wholeIndex(names: readonly string[], { terms, postings }: BuiltIndex): Bm25Index {
  const idf = new Float64Array(terms.length);
  for (let id = 0; id < terms.length; id++) idf[id] = idfOf(postings.end(id) - postings.start(id), names.length);
  return indexOf(names, vocabularyOf(terms), postings, idf);
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
  const termIdf = factor * (from.idf[id] ?? 0);
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

/** BM25's IDF, kept positive even for a term in every entry. */
function idfOf(documentFrequency: number, count: number): number {
  return Math.log(1 + (count - documentFrequency + 0.5) / (documentFrequency + 0.5));
}

// ---------------------------------------------------------------------------
// A built ranker as data, for the prebuilt index: loading it skips tokenising.

/** Bump when tokenize, stem, the stopwords or whenClauses change what terms a text gives. */
const TOKENIZER_REVISION = 1;

/**
 * How a ranker's terms and weights were made: the tokenizer's revision, the
 * unit of field lengths (characters; earlier builds counted words), K1, and
 * each field's weight and b. Data made under another scheme (an index
 * written by another version) is not used: the ranker ranks from the
 * entries instead, as after a scan (INDEX_RANKER_OUTDATED says so).
 */
export const RANKER_SCHEME = `bm25f/${TOKENIZER_REVISION} length=chars k1=${K1} ${FIELDS.map((f) => `${f.key}:${f.weight}:${f.b}`).join(',')}`;

/** How a body index's terms and weights were made (RANK_TUNING.body and the tokenizer): stored body data of another scheme is not used. */
export const BODY_SCHEME = `body/${TOKENIZER_REVISION} k1=${K1} ${Object.entries(RANK_TUNING.body)
  .map(([key, value]) => `${key}:${String(value)}`)
  .join(',')}`;

/**
 * A built ranker's index as plain data: what `rankerFromData` ranks with, no
 * text read again. Field lengths and weights are folded into each posting's
 * saturated weight when it is built, so they are not kept apart.
 */
export interface RankerData {
  /** RANKER_SCHEME of the version that built it. */
  scheme: string;
  /** Entries ranked: doc numbers are positions in the entry list (0 to count - 1). */
  count: number;
  /** The vocabulary, distinct and sorted by code unit: term id = position. */
  terms: readonly string[];
  /** Term t's postings are positions offsets[t] to offsets[t + 1] - 1; terms.length + 1 of them, from 0 to docs.length. */
  offsets: Int32Array;
  /** Doc numbers, ascending within a term; 16 bits up to 65,536 entries. */
  docs: Uint16Array | Uint32Array;
  /** The saturated weight x 65,535, at least 1. */
  weights: Uint16Array;
  /** The instructions' index over the same entries (BODY_SCHEME), when it was built with them: ranking reads it at once. */
  body?: BodyIndex;
}

/** Build the ranker's index over `entries` now, as data (the prebuilt index stores it). */
export function buildRankerData(entries: ReadonlyArray<RankEntry>): RankerData {
  const { terms, postings } = buildIndex(entries, RANK_TUNING.fields);
  const { offsets, docs, weights } = postings;
  return { scheme: RANKER_SCHEME, count: entries.length, terms, offsets, docs, weights };
}

/**
 * Why `data` cannot be ranked with, or undefined when it can: every posting
 * is checked (a file is not trusted), so a query never reads out of range
 * nor counts a doc twice. The scheme is the caller's to compare.
 */
export function rankerDataProblem(data: RankerData): string | undefined {
  const { count, terms, offsets, docs, weights } = data;
  if (!Number.isInteger(count) || count < 0) return 'the entry count is not a whole number';
  for (let t = 1; t < terms.length; t++) {
    if (!((terms[t - 1] as string) < (terms[t] as string))) return `terms are not sorted and distinct (at ${t})`;
  }
  if (offsets.length !== terms.length + 1 || offsets[0] !== 0 || offsets[terms.length] !== docs.length) {
    return 'the term offsets do not span the postings';
  }
  if (weights.length !== docs.length) return 'there are not as many weights as postings';
  for (let t = 0; t < terms.length; t++) if ((offsets[t + 1] ?? 0) < (offsets[t] ?? 0)) return 'the term offsets go backwards';
  for (let t = 0; t < terms.length; t++) {
    const end = offsets[t + 1] ?? 0;
    let previous = -1;
    for (let p = offsets[t] ?? 0; p < end; p++) {
      const doc = docs[p] ?? 0;
      if (doc <= previous || doc >= count || weights[p] === 0) return `a posting of "${terms[t]}" is out of range`;
      previous = doc;
    }
  }
  return undefined;
}

/**
 * A ranker over entries named `names` from `data` built over those entries
 * (check it with rankerDataProblem first): ranks exactly as `createRanker`
 * over them does, without tokenising them again.
 */
export function rankerFromData(names: readonly string[], data: RankerData): BodyAwareRanker {
  const index = wholeIndex(names, { terms: data.terms, postings: new PackedPostings(data.offsets, data.docs, data.weights) });
  const ranker = new Bm25Ranker({ index, learn: () => undefined }, RANK_TUNING);
  if (data.body && data.body.size === names.length) ranker.useBodies(data.body);
  return bodyAware(ranker, names.length);
}

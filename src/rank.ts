/**
 * Local ranking of skills against a free-text query: BM25F over a skill's
 * name, tags and description, dependency-free and deterministic. Built once
 * per index (an inverted index with per-field weights folded in), so a query
 * costs only the postings of its terms.
 *
 * Score scale (what `threshold` options compare against): each result's
 * `score` is in [0, 1), the share of the query's evidence it matched. A
 * skill earns, per distinct query term, IDF x tf/(tf + k1), where tf is the
 * term's weighted, length-normalised frequency across fields. The sum is
 * divided by the query's evidence: the IDFs of its terms that the library
 * uses, but never less than EVIDENCE_FLOOR rare words' worth (the IDF of a
 * word only one skill uses). So one matching word out of a short request
 * ("continue", "I have a question") stays low however rare the word, and
 * words no skill uses (a file path, a product name) do not pull a good match
 * down. The floor and the auto-activation threshold were chosen together,
 * by measurement (scripts/auto-activate-threshold.mjs): requests that fit a
 * skill mostly score 0.3-0.7, and 79 of 80 everyday requests that fit none
 * score under 0.28, on a library of 5 skills and on one of 1,088 alike. The
 * order of one query's results does not depend on this scale.
 */
import { packPostings, sortedVocabulary, type Postings, type Vocabulary } from './compact.js';
import { compareNames } from './text.js';

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

export interface Ranker {
  /** Best matches first; only entries sharing a term with the query. Ties break by name. */
  rank(query: string, limit?: number): RankResult[];
  /** Number of entries indexed. */
  readonly size: number;
}

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

type FieldKey = (typeof FIELDS)[number]['key'];

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

/** The words of `text`, lowercased: split on anything that is not a letter or a digit (may hold ''). */
function words(text: string): string[] {
  return text.toLowerCase().split(/[^\p{L}\p{N}]+/u);
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

const WHEN_CLAUSE = /\b(?:use|used|trigger|triggers|triggered|invoke|activate|apply)\s+(?:this\s+(?:skill\s+)?|it\s+)?(?:when|whenever|for|if|to)\b([^.!?\n]*)/gi;

/** The words of "Use when ..." (and alike) clauses in a description. */
export function whenClauses(description: string): string {
  const parts: string[] = [];
  for (const match of description.matchAll(WHEN_CLAUSE)) parts.push(match[1] ?? '');
  return parts.join(' ');
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

  ids(text: string): number[] {
    const out: number[] = [];
    for (const raw of words(text)) {
      if (raw.length === 0) continue;
      let id = this.idByWord.get(raw);
      if (id === undefined) {
        const term = termOf(raw);
        id = term === undefined ? -1 : this.idOf(term);
        this.idByWord.set(raw, id);
      }
      if (id >= 0) out.push(id);
    }
    return out;
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

function fieldsOf(entry: RankEntry, table: TermTable): FieldTerms {
  return {
    name: table.ids(entry.name),
    tags: table.ids((entry.tags ?? []).join(' ')),
    when: table.ids(whenClauses(entry.description)),
    description: table.ids(entry.description),
  };
}

/** One entry's term ids, field by field. */
type FieldTerms = Record<FieldKey, number[]>;

/** Pass 1's result: every entry's term ids, and the average field lengths BM25 normalises by. */
interface Tokenized {
  table: TermTable;
  docs: FieldTerms[];
  averageLength: Record<FieldKey, number>;
}

/** Pass 2's result: the build-time vocabulary and one posting per (term, doc), weight saturated. */
interface Weighted {
  ids: ReadonlyMap<string, number>;
  postings: { term: number[]; doc: number[]; weight: number[] };
}

/** What a query is scored against, kept as long as the ranker. */
interface Bm25Index {
  names: readonly string[];
  vocabulary: Vocabulary;
  postings: Postings;
  idf: Float64Array;
  /** The least a query's evidence counts for (see the score scale in this module's header). */
  evidenceFloor: number;
  /** Reused by every query (ranking is synchronous): scores by doc, and which docs were touched. */
  scores: Float64Array;
  touched: Int32Array;
}

export function createRanker(entries: ReadonlyArray<RankEntry>): Ranker {
  // Each pass's result is dropped when the next returns: only the packed index stays with `rank`.
  const index = packIndex(
    entries.map((entry) => entry.name),
    weighTerms(tokenizeEntries(entries)),
  );
  return { rank: (query, limit) => rankQuery(index, query, limit), size: index.names.length };
}

/** Pass 1: term ids per field, for the average field lengths BM25 normalises by. */
function tokenizeEntries(entries: ReadonlyArray<RankEntry>): Tokenized {
  const table = new TermTable();
  const docs = entries.map((entry) => fieldsOf(entry, table));
  const averageLength = {} as Record<FieldKey, number>;
  for (const field of FIELDS) {
    let total = 0;
    for (const doc of docs) total += doc[field.key].length;
    averageLength[field.key] = docs.length === 0 ? 1 : Math.max(total / docs.length, 1);
  }
  return { table, docs, averageLength };
}

/** Pass 2: (term, doc, saturated weight) triples, doc by doc: the weighted, length-normalised tf as tf/(tf + K1). */
function weighTerms({ table, docs, averageLength }: Tokenized): Weighted {
  const postings: Weighted['postings'] = { term: [], doc: [], weight: [] };
  // One doc's frequencies by term id and the ids it used, reset after each doc: no Map per doc.
  const tfById = new Float64Array(table.vocabulary.size);
  const docTerms: number[] = [];
  for (let index = 0; index < docs.length; index++) {
    const doc = docs[index] as FieldTerms;
    for (const field of FIELDS) {
      const ids = doc[field.key];
      if (ids.length === 0) continue;
      const norm = field.weight / (1 - field.b + (field.b * ids.length) / averageLength[field.key]);
      for (const id of ids) {
        // norm is positive, so 0 means not yet seen in this doc.
        if (tfById[id] === 0) docTerms.push(id);
        tfById[id] = (tfById[id] ?? 0) + norm;
      }
    }
    for (const id of docTerms) {
      const tf = tfById[id] ?? 0;
      postings.term.push(id);
      postings.doc.push(index);
      postings.weight.push(tf / (tf + K1));
      tfById[id] = 0;
    }
    docTerms.length = 0;
  }
  return { ids: table.vocabulary, postings };
}

/** Pass 3: terms numbered in sorted order, postings packed by term (src/compact.ts), and each term's IDF. */
function packIndex(names: readonly string[], { ids, postings }: Weighted): Bm25Index {
  const count = names.length;
  const { vocabulary, renumbered } = sortedVocabulary(ids);
  const term = postings.term;
  for (let i = 0; i < term.length; i++) term[i] = renumbered[term[i] ?? 0] ?? 0;
  const packed = packPostings(vocabulary.size, count, postings);
  const idf = new Float64Array(vocabulary.size);
  for (let id = 0; id < vocabulary.size; id++) idf[id] = idfOf(packed.end(id) - packed.start(id), count);
  return {
    names,
    vocabulary,
    postings: packed,
    idf,
    evidenceFloor: EVIDENCE_FLOOR * idfOf(1, count),
    scores: new Float64Array(count),
    touched: new Int32Array(count),
  };
}

function rankQuery(index: Bm25Index, query: string, limit: number | undefined): RankResult[] {
  const queryTerms = [...new Set(tokenize(String(query).slice(0, MAX_QUERY_CHARS)))];
  if (queryTerms.length === 0 || index.names.length === 0) return [];
  const { scores, touched, names } = index;
  const { hits, evidence } = accumulate(index, queryTerms);
  const attainable = Math.max(evidence, index.evidenceFloor);
  const results: Scored[] = [];
  for (let i = 0; i < hits; i++) {
    const doc = touched[i] ?? 0;
    results.push({ doc, name: names[doc] ?? '', score: (scores[doc] ?? 0) / attainable });
    scores[doc] = 0;
  }
  const max = limit === undefined || !Number.isFinite(limit) ? results.length : Math.max(0, Math.floor(limit));
  if (max === 0) return [];
  return best(results, max).map(({ name, score }) => ({ name, score }));
}

/**
 * Adds each query term's postings into `index.scores`, listing the docs
 * touched in `index.touched`; returns how many, and the query's evidence
 * (the IDFs of its terms that some skill uses).
 */
function accumulate(index: Bm25Index, queryTerms: readonly string[]): { hits: number; evidence: number } {
  const { vocabulary, postings, idf, scores, touched } = index;
  let evidence = 0;
  let hits = 0;
  for (const term of queryTerms) {
    const id = vocabulary.idOf(term);
    // A word no skill uses says nothing about which skill fits: it neither adds nor dilutes.
    if (id === undefined) continue;
    const termIdf = idf[id] ?? 0;
    evidence += termIdf;
    const end = postings.end(id);
    for (let p = postings.start(id); p < end; p++) {
      const doc = postings.doc(p);
      if (scores[doc] === 0) touched[hits++] = doc;
      scores[doc] = (scores[doc] ?? 0) + termIdf * postings.weight(p);
    }
  }
  return { hits, evidence };
}

interface Scored {
  doc: number;
  name: string;
  score: number;
}

function better(x: Scored, y: Scored): number {
  return y.score - x.score || compareNames(x.name, y.name) || x.doc - y.doc;
}

/** The best `k` of `items` in order; a bounded insertion when k is small next to the list. */
function best(items: Scored[], k: number): Scored[] {
  if (k >= items.length / 4) return items.sort(better).slice(0, k);
  const top: Scored[] = [];
  for (const item of items) {
    if (top.length === k && better(item, top[k - 1] as Scored) >= 0) continue;
    let i = top.length < k ? top.length : k - 1;
    while (i > 0 && better(item, top[i - 1] as Scored) < 0) {
      top[i] = top[i - 1] as Scored;
      i--;
    }
    top[i] = item;
  }
  return top;
}

/** BM25's IDF, kept positive even for a term in every entry. */
function idfOf(documentFrequency: number, count: number): number {
  return Math.log(1 + (count - documentFrequency + 0.5) / (documentFrequency + 0.5));
}

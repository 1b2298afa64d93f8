/**
 * How text becomes terms, for skills and queries alike: lowercased, split on
 * anything that is not a letter or a digit, stopwords dropped, stemmed; the
 * words of "Use when" clauses; the term table a build numbers terms with; the
 * words of a query that rank. Only consistency matters: everything that
 * indexes or asks goes through these functions. Pure.
 */
import { Int32List } from './postings.js';

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
export function unicodeWords(lower: string): boolean {
  return NON_ASCII.test(lower) && NON_ASCII_WORD_CHAR.test(lower);
}

/** The words of `text`, lowercased: split on anything that is not a letter or a digit (may hold ''). Exported for tests. */
export function words(text: string): string[] {
  const lower = text.toLowerCase();
  return unicodeWords(lower) ? lower.split(NOT_A_WORD_CHAR) : lower.split(NOT_AN_ASCII_WORD_CHAR);
}

/** The term a lowercased word counts as, or undefined for a stopword. Queries and skills share it. */
export function termOf(word: string): string | undefined {
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
export class TermTable {
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

/** Bump when tokenize, stem, the stopwords or whenClauses change what terms a text gives. */
export const TOKENIZER_REVISION = 1;

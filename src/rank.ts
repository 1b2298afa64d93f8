/**
 * Local ranking of skills against a free-text query: BM25F over a skill's
 * name, tags and description, dependency-free and deterministic. Built once
 * per index (an inverted index with per-field weights folded in), so a query
 * costs only the postings of its terms.
 *
 * Score scale (what `threshold` options compare against): each result's
 * `score` is in [0, 1], the fraction of the query's attainable weight it
 * reached. Every distinct query term carries its IDF; a skill earns, per
 * term, IDF x tf/(tf + k1), where tf is the term's weighted, length-
 * normalised frequency across fields. The sum is divided by the sum of the
 * query terms' IDFs. So 1 would need every query word to be matched with
 * unbounded frequency; in practice a skill whose name and description both
 * carry all the query's words scores about 0.6-0.8, one strong word out of
 * several about 0.1-0.3, and words the library never uses pull every score
 * down (they are counted with the highest IDF). Scores are comparable across
 * queries on the same index, less so across indexes.
 */

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

/** Lowercase, split on anything that is not a letter or digit, drop stopwords, stem. */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (raw.length === 0 || STOPWORDS.has(raw)) continue;
    out.push(stem(raw));
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

function fieldsOf(entry: RankEntry): Record<FieldKey, string[]> {
  return {
    name: tokenize(entry.name),
    tags: tokenize((entry.tags ?? []).join(' ')),
    when: tokenize(whenClauses(entry.description)),
    description: tokenize(entry.description),
  };
}

interface Posting {
  doc: number;
  /** Saturated contribution before IDF: tf / (tf + k1), in [0, 1). */
  weight: number;
}

function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function createRanker(entries: ReadonlyArray<RankEntry>): Ranker {
  const names = entries.map((entry) => entry.name);
  const tokenized = entries.map(fieldsOf);
  const count = entries.length;

  const averageLength = {} as Record<FieldKey, number>;
  for (const field of FIELDS) {
    let total = 0;
    for (const doc of tokenized) total += doc[field.key].length;
    averageLength[field.key] = count === 0 ? 1 : Math.max(total / count, 1);
  }

  // Term -> doc -> weighted, length-normalised frequency (BM25F's pseudo tf).
  const frequencies = new Map<string, Map<number, number>>();
  tokenized.forEach((doc, index) => {
    for (const field of FIELDS) {
      const tokens = doc[field.key];
      if (tokens.length === 0) continue;
      const norm = field.weight / (1 - field.b + (field.b * tokens.length) / averageLength[field.key]);
      for (const token of tokens) {
        let perDoc = frequencies.get(token);
        if (!perDoc) frequencies.set(token, (perDoc = new Map()));
        perDoc.set(index, (perDoc.get(index) ?? 0) + norm);
      }
    }
  });

  const postings = new Map<string, Posting[]>();
  const idf = new Map<string, number>();
  for (const [term, perDoc] of frequencies) {
    const list: Posting[] = [];
    for (const [doc, tf] of perDoc) list.push({ doc, weight: tf / (tf + K1) });
    postings.set(term, list);
    idf.set(term, idfOf(perDoc.size, count));
  }
  // A term no entry uses gets the highest IDF: it is the most specific word of the query.
  const unknownIdf = idfOf(0, count);

  function rank(query: string, limit?: number): RankResult[] {
    const terms = [...new Set(tokenize(String(query).slice(0, MAX_QUERY_CHARS)))];
    if (terms.length === 0 || count === 0) return [];
    let attainable = 0;
    const scores = new Map<number, number>();
    for (const term of terms) {
      const termIdf = idf.get(term) ?? unknownIdf;
      attainable += termIdf;
      for (const posting of postings.get(term) ?? []) {
        scores.set(posting.doc, (scores.get(posting.doc) ?? 0) + termIdf * posting.weight);
      }
    }
    const results: Array<RankResult & { doc: number }> = [];
    for (const [doc, score] of scores) results.push({ doc, name: names[doc] ?? '', score: score / attainable });
    results.sort((x, y) => y.score - x.score || compareNames(x.name, y.name) || x.doc - y.doc);
    const max = limit === undefined || !Number.isFinite(limit) ? results.length : Math.max(0, Math.floor(limit));
    return results.slice(0, max).map(({ name, score }) => ({ name, score }));
  }

  return { rank, size: count };
}

/** BM25's IDF, kept positive even for a term in every entry. */
function idfOf(documentFrequency: number, count: number): number {
  return Math.log(1 + (count - documentFrequency + 0.5) / (documentFrequency + 0.5));
}

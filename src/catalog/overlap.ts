/**
 * Which skills a model is likely to confuse, from what it sees of them at
 * level 1: the name and description as the catalog lists them. Pure: entries
 * in, pairs out, the same pairs for the same entries.
 *
 * Each skill is a TF-IDF vector over the ranker's terms (rank/tokenize.ts:
 * stopwords dropped, words stemmed), its name's words counted NAME_WEIGHT
 * times since a name says most; a pair's score is the cosine of the two
 * vectors, in [0, 1] (IDF as if the library held at least MIN_LIBRARY_SIZE
 * skills, so a small library is judged like a large one). Pairs are found through an inverted index: only pairs
 * sharing a term that at most COMMON_SHARE of the library uses are scored, so
 * a library of 2,000 skills never compares all 2 million pairs (two skills
 * that share only common words score low anyway). The threshold was chosen
 * on hand-labelled pairs of a real corpus (scripts/overlap-labels.json).
 */
import { catalogText } from './catalog-text.js';
import { tokenize } from './rank/tokenize.js';

export interface OverlapEntry {
  name: string;
  description: string;
}

export interface OverlapPair {
  /** The two names, in catalog order (`a` before `b`). */
  a: string;
  b: string;
  /** Cosine similarity of the two skills' level-1 text, in [0, 1], rounded to 3 decimals. */
  score: number;
  /** The words the two share, the ones adding most to the score first (at most SHARED_WORDS). */
  shared: string[];
}

export interface OverlapOptions {
  /**
   * Pairs scoring at least this are returned.
   * @default OVERLAP_THRESHOLD
   */
  threshold?: number;
}

/**
 * The score from which two skills are reported as likely to be confused:
 * chosen on 120 hand-labelled pairs of the corpus (see scripts/overlap-labels.md).
 */
export const OVERLAP_THRESHOLD = 0.5;

/** How many times a word of the name counts against one of the description. */
const NAME_WEIGHT = 2;
/** Terms used by more than this share of the library (and more than MIN_COMMON skills) never make a pair a candidate. */
const COMMON_SHARE = 0.05;
const MIN_COMMON = 50;
/**
 * IDF is computed as if the library held at least this many skills (the
 * others sharing none of its words). In a library of five, a word two skills
 * share would otherwise weigh next to nothing, and two skills with the same
 * description would not look alike. Calibration ran on 1,032 skills, above it.
 */
const MIN_LIBRARY_SIZE = 1000;
/** Shared words listed per pair. */
const SHARED_WORDS = 8;

interface Vector {
  /** Term ids, ascending. */
  terms: Int32Array;
  /** Weight of each term, the vector normalised to length 1. */
  weights: Float64Array;
}

/** The ranker's terms of `text`, each with the first word it came from (for showing to people). */
function termsWithWords(text: string, counts: Map<string, number>, words: Map<string, string>, weight: number): void {
  for (const word of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (word === '') continue;
    const [term] = tokenize(word);
    if (term === undefined) continue;
    counts.set(term, (counts.get(term) ?? 0) + weight);
    if (!words.has(term)) words.set(term, word);
  }
}

/**
 * Pairs of entries whose level-1 text is alike, best first (ties by name).
 * Entries are the skills the model sees; pass the catalog's (model-invocable) ones.
 */
export function findOverlaps(entries: readonly OverlapEntry[], options: OverlapOptions = {}): OverlapPair[] {
  const threshold = options.threshold ?? OVERLAP_THRESHOLD;
  const n = entries.length;
  const ids = new Map<string, number>();
  const surface: string[] = [];
  const counted: Array<Map<number, number>> = [];
  const df: number[] = [];
  for (const entry of entries) {
    const counts = new Map<string, number>();
    const words = new Map<string, string>();
    termsWithWords(catalogText(entry.name), counts, words, NAME_WEIGHT);
    termsWithWords(catalogText(entry.description), counts, words, 1);
    const byId = new Map<number, number>();
    for (const [term, count] of counts) {
      let id = ids.get(term);
      if (id === undefined) {
        id = ids.size;
        ids.set(term, id);
        surface.push(words.get(term) ?? term);
        df.push(0);
      }
      df[id] = (df[id] ?? 0) + 1;
      byId.set(id, count);
    }
    counted.push(byId);
  }
  const vectors = counted.map((byId) => vectorOf(byId, df, n));
  const pairs: OverlapPair[] = [];
  for (const [i, j] of candidatePairs(vectors, df, n)) {
    const { score, shared } = compare(vectors[i] as Vector, vectors[j] as Vector);
    if (score < threshold) continue;
    const [a, b] = [entries[i] as OverlapEntry, entries[j] as OverlapEntry];
    pairs.push({ a: a.name, b: b.name, score: round(score), shared: shared.slice(0, SHARED_WORDS).map((id) => surface[id] ?? '') });
  }
  return pairs.sort((x, y) => y.score - x.score || compare2(x.a, y.a) || compare2(x.b, y.b));
}

function compare2(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}

function round(score: number): number {
  return Math.round(Math.min(score, 1) * 1000) / 1000;
}

/** Sublinear TF x smoothed IDF, normalised. */
function vectorOf(byId: Map<number, number>, df: readonly number[], n: number): Vector {
  const terms = Int32Array.from([...byId.keys()].sort((x, y) => x - y));
  const weights = new Float64Array(terms.length);
  let norm = 0;
  terms.forEach((id, k) => {
    const tf = byId.get(id) ?? 0;
    const w = (1 + Math.log(tf)) * Math.log((Math.max(n, MIN_LIBRARY_SIZE) + 1) / ((df[id] ?? 0) + 0.5));
    weights[k] = w;
    norm += w * w;
  });
  norm = Math.sqrt(norm);
  if (norm > 0) for (let k = 0; k < weights.length; k++) weights[k] = (weights[k] ?? 0) / norm;
  return { terms, weights };
}

/** Every pair (i < j) sharing a term that is not common, once each. */
function* candidatePairs(vectors: readonly Vector[], df: readonly number[], n: number): Generator<[number, number]> {
  const common = Math.max(MIN_COMMON, Math.floor(n * COMMON_SHARE));
  const postings: number[][] = df.map(() => []);
  vectors.forEach((vector, i) => {
    for (const id of vector.terms) if ((df[id] ?? 0) <= common) postings[id]?.push(i);
  });
  // Per skill, the later skills it shares a rare term with: a mark array, not a set of pair keys.
  const seen = new Int32Array(n).fill(-1);
  for (let i = 0; i < n; i++) {
    const vector = vectors[i] as Vector;
    for (const id of vector.terms) {
      const list = postings[id];
      if (list === undefined) continue;
      for (const j of list) {
        if (j <= i || seen[j] === i) continue;
        seen[j] = i;
        yield [i, j];
      }
    }
  }
}

/** Cosine of two normalised vectors, and the shared terms by how much each adds. */
function compare(x: Vector, y: Vector): { score: number; shared: number[] } {
  let score = 0;
  const shared: Array<{ id: number; part: number }> = [];
  let p = 0;
  let q = 0;
  while (p < x.terms.length && q < y.terms.length) {
    const a = x.terms[p] as number;
    const b = y.terms[q] as number;
    if (a === b) {
      const part = (x.weights[p] as number) * (y.weights[q] as number);
      score += part;
      shared.push({ id: a, part });
      p++;
      q++;
    } else if (a < b) p++;
    else q++;
  }
  shared.sort((s, t) => t.part - s.part || s.id - t.id);
  return { score, shared: shared.map((s) => s.id) };
}

/**
 * For each skill in a pair, the other skills of its pairs, closest first, at
 * most `max`: what validate's DESCRIPTION_OVERLAP lists.
 */
export function closestOverlaps(pairs: readonly OverlapPair[], max = 3): Map<string, OverlapPair[]> {
  const byName = new Map<string, OverlapPair[]>();
  for (const pair of pairs) {
    for (const name of [pair.a, pair.b]) {
      const list = byName.get(name) ?? [];
      if (list.length < max) list.push(pair);
      byName.set(name, list);
    }
  }
  return byName;
}

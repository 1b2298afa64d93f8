/** Small pure text helpers shared by options, catalog and tools. */

/**
 * Code-unit order, the same on every machine: names are sorted with it
 * wherever order is visible (listings, ties in rankings), never with
 * localeCompare, whose order depends on the host's ICU data.
 */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Most characters of each string that name comparisons look at. Skill names
 * are at most 64 characters and resource paths rarely pass 128; a longer
 * string (a 100,000-character `skill_name` from a model, or a broken name in
 * a SKILL.md) is compared by its first 128 characters, so one comparison
 * costs at most 128 x 128 steps whatever the input.
 */
export const MAX_COMPARED_LENGTH = 128;

/**
 * Largest edit distance closestNames tells apart; names further away tie and
 * are ordered by name. Bounds each comparison to a band of 2 x 16 + 1 cells
 * per character.
 */
export const MAX_SUGGESTION_DISTANCE = 16;

/** Counts the work name comparisons did, for tests and benches: dynamic-programming cells computed. */
export interface DistanceWork {
  cells: number;
}

/**
 * Two rows of the distance table, reused by every call: comparisons are
 * synchronous and never nested, and allocating per call was most of their
 * cost (2,000 names per suggestion).
 */
const rowA = new Int32Array(MAX_COMPARED_LENGTH + 2);
const rowB = new Int32Array(MAX_COMPARED_LENGTH + 2);

/**
 * Levenshtein distance between the first MAX_COMPARED_LENGTH characters
 * (UTF-16 units) of `a` and `b`. With `max`, only distances up to `max` are
 * worked out (a band of 2 x max + 1 cells per row, stopping as soon as every
 * cell of a row is over `max`), and anything further returns `max + 1`.
 */
export function editDistance(a: string, b: string, max = Infinity, work?: DistanceWork): number {
  let x = a.length > MAX_COMPARED_LENGTH ? a.slice(0, MAX_COMPARED_LENGTH) : a;
  let y = b.length > MAX_COMPARED_LENGTH ? b.slice(0, MAX_COMPARED_LENGTH) : b;
  const limit = Math.min(max, Math.max(x.length, y.length));
  const over = limit + 1;
  if (Math.abs(x.length - y.length) > limit) return over;
  // A shared prefix and suffix cost nothing: leave them out of the table.
  let start = 0;
  while (start < x.length && start < y.length && x.charCodeAt(start) === y.charCodeAt(start)) start++;
  let endX = x.length;
  let endY = y.length;
  while (endX > start && endY > start && x.charCodeAt(endX - 1) === y.charCodeAt(endY - 1)) {
    endX--;
    endY--;
  }
  x = x.slice(start, endX);
  y = y.slice(start, endY);
  const m = x.length;
  const n = y.length;
  let previous = rowA;
  let current = rowB;
  // previous[j]: distance between x[0..i-1] and y[0..j]; cells outside the band hold `over`.
  for (let j = 0; j <= n; j++) previous[j] = j <= limit ? j : over;
  let cells = 0;
  for (let i = 1; i <= m; i++) {
    const from = i - limit > 1 ? i - limit : 1;
    const to = i + limit < n ? i + limit : n;
    let left = from === 1 && i <= limit ? i : over;
    current[from - 1] = left;
    let best = left;
    let diagonal = previous[from - 1] as number;
    const code = x.charCodeAt(i - 1);
    for (let j = from; j <= to; j++) {
      const up = previous[j] as number;
      let value = diagonal + (code === y.charCodeAt(j - 1) ? 0 : 1);
      if (up + 1 < value) value = up + 1;
      if (left + 1 < value) value = left + 1;
      if (value > over) value = over;
      current[j] = value;
      if (value < best) best = value;
      left = value;
      diagonal = up;
    }
    if (to < n) current[to + 1] = over;
    cells += to - from + 1;
    if (best > limit) {
      if (work) work.cells += cells;
      return over;
    }
    const swap = previous;
    previous = current;
    current = swap;
  }
  if (work) work.cells += cells;
  const distance = previous[n] as number;
  return distance < over ? distance : over;
}

export interface SpellingMatch {
  name: string;
  /** The name contains the query, or the query the name (ignoring case). */
  contains: boolean;
  /** Edit distance to the query (ignoring case), or `bound + 1` when further than the bound. */
  distance: number;
}

export interface SpellingOptions {
  /** Most matches returned (the closest); all names when absent. */
  limit?: number;
  /** Largest distance worked out; default: spellingBound of the query's length. */
  bound?: number;
  /** Adds the comparison work done, for tests and benches. */
  work?: DistanceWork;
}

/**
 * The distance bound closestNames uses for a query of `length` characters: a
 * third of it (at least 2, at most MAX_SUGGESTION_DISTANCE). Further than
 * that, two names share too little for the distance to say which is closer.
 */
export function spellingBound(length: number): number {
  return Math.min(MAX_SUGGESTION_DISTANCE, Math.max(2, Math.ceil(Math.min(length, MAX_COMPARED_LENGTH) / 3)));
}

/**
 * The query's letters counted, for a cheap lower bound of its edit distance
 * to a name (the "bag distance"): an edit adds at most one letter and removes
 * at most one, so the distance is at least the larger of the letters the name
 * has in surplus and the letters it lacks. Letters are counted by their code
 * modulo 128, which can only lower the bound (ASCII is counted exactly).
 */
class LetterCounts {
  /** The query's count per bucket, minus the name's while a name is measured. */
  private readonly counts = new Int32Array(128);
  /** Which buckets the current measurement has already summed (by generation, never cleared). */
  private readonly seen = new Int32Array(128);
  private generation = 0;

  constructor(private readonly query: string) {
    for (let k = 0; k < query.length; k++) (this.counts[query.charCodeAt(k) & 127] as number)++;
  }

  lowerBound(name: string): number {
    const { counts, seen, query } = this;
    const generation = ++this.generation;
    for (let k = 0; k < name.length; k++) (counts[name.charCodeAt(k) & 127] as number)--;
    let surplus = 0;
    let missing = 0;
    for (let k = 0; k < name.length; k++) {
      const bucket = name.charCodeAt(k) & 127;
      if (seen[bucket] === generation) continue;
      seen[bucket] = generation;
      const left = counts[bucket] as number;
      if (left < 0) surplus -= left;
      else missing += left;
    }
    for (let k = 0; k < query.length; k++) {
      const bucket = query.charCodeAt(k) & 127;
      if (seen[bucket] === generation) continue;
      seen[bucket] = generation;
      missing += counts[bucket] as number;
    }
    for (let k = 0; k < name.length; k++) (counts[name.charCodeAt(k) & 127] as number)++;
    return surplus > missing ? surplus : missing;
  }
}

function closer(x: SpellingMatch, y: SpellingMatch): number {
  return Number(y.contains) - Number(x.contains) || x.distance - y.distance || compareNames(x.name, y.name);
}

/**
 * `names` ordered by closeness to `query`: names containing the query (or
 * contained in it) first, then by edit distance, then alphabetically. Only
 * the first MAX_COMPARED_LENGTH characters of each are compared, and only
 * distances up to the bound are worked out, so the cost is at most
 * names x 128 x (2 x 16 + 1) steps however long the query or the names.
 */
export function rankBySpelling(names: readonly string[], query: string, options: SpellingOptions = {}): SpellingMatch[] {
  const q = query.slice(0, MAX_COMPARED_LENGTH).toLowerCase();
  const bound = options.bound ?? spellingBound(q.length);
  const limit = options.limit === undefined ? names.length : Math.max(0, Math.floor(options.limit));
  const letters = new LetterCounts(q);
  const match = (name: string): SpellingMatch => {
    const n = name.slice(0, MAX_COMPARED_LENGTH).toLowerCase();
    const contains = q.length > 0 && (n.includes(q) || q.includes(n));
    // Most names differ from the query in too many letters to be close: no table for them.
    const distance = letters.lowerBound(n) > bound ? bound + 1 : editDistance(n, q, bound, options.work);
    return { name, contains, distance };
  };
  // The closest few of many: a bounded insertion instead of sorting them all.
  if (limit < names.length / 4) {
    const top: SpellingMatch[] = [];
    for (const name of names) insertBounded(top, match(name), limit);
    return top;
  }
  return names.map(match).sort(closer).slice(0, limit);
}

/** Insert `item` into the sorted `top`, keeping at most `limit`. */
function insertBounded(top: SpellingMatch[], item: SpellingMatch, limit: number): void {
  if (limit === 0) return;
  if (top.length === limit && closer(item, top[limit - 1] as SpellingMatch) >= 0) return;
  // Binary search for the first element that sorts after `item`.
  let low = 0;
  let high = top.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (closer(top[mid] as SpellingMatch, item) <= 0) low = mid + 1;
    else high = mid;
  }
  top.splice(low, 0, item);
  if (top.length > limit) top.pop();
}

/** The names of rankBySpelling, closest first. */
export function closestNames(names: readonly string[], query: string, options: SpellingOptions = {}): string[] {
  return rankBySpelling(names, query, options).map((match) => match.name);
}

/** Collapse every run of whitespace (newlines from block scalars included) to one space. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** `512 B`, `1.2 KB`, `3.4 MB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

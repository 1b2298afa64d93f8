/**
 * "Did you mean" for an unknown skill name: names spelt like the request,
 * and names the local ranker finds for its words, merged. Edit distance alone
 * fails in large libraries (`kubernetes-migrate` is a few edits from
 * `generate-git-242` and from nothing about Kubernetes), and the ranker alone
 * misses typos (`pdf-tols`), so close spellings come first, then the ranker's
 * picks, then looser spellings. Cost is bounded whatever the request's length
 * (see rankBySpelling); pure, never throws.
 */
import { MAX_COMPARED_LENGTH, rankBySpelling, type DistanceWork, type SpellingMatch } from '../base/text.js';

export interface SuggestionSource {
  /** Every name that may be suggested. */
  names: readonly string[];
  /**
   * Names matching the words of `query`, best first, at most `limit`: the
   * local ranker over the same skills, e.g.
   * `(q, n) => ranker.rank(q, n).map((r) => r.name)`. It must return names
   * from `names`. Without it, suggestions come from spelling only.
   */
  rank?: (query: string, limit: number) => readonly string[];
}

/** How much of a request the ranker reads: a name's words come first, and a name is at most 64 characters. */
const RANKED_QUERY_LENGTH = 256;

/**
 * A spelling this close is a typo of the name, worth more than any ranked
 * guess: the query contains the name or the name the query, or they are at
 * most a quarter of the query's length apart (at least 1).
 */
function isTypo(match: SpellingMatch, queryLength: number): boolean {
  return match.contains || match.distance <= Math.max(1, Math.floor(Math.min(queryLength, MAX_COMPARED_LENGTH) / 4));
}

/**
 * Up to `limit` names for an unknown `requested` name, most likely first:
 * close spellings, then the ranker's matches for its words, then the next
 * closest spellings. Fewer only when the source has fewer names.
 */
export function suggestNames(source: SuggestionSource, requested: string, limit: number, work?: DistanceWork): string[] {
  const count = Math.max(0, Math.floor(limit));
  if (count === 0 || source.names.length === 0) return [];
  const spelt = rankBySpelling(source.names, requested, { limit: count, ...(work ? { work } : {}) });
  const chosen: string[] = [];
  const taken = new Set<string>();
  const take = (name: string): void => {
    if (chosen.length < count && !taken.has(name)) {
      taken.add(name);
      chosen.push(name);
    }
  };
  for (const match of spelt) if (isTypo(match, requested.length)) take(match.name);
  if (source.rank && chosen.length < count) {
    for (const name of source.rank(requested.slice(0, RANKED_QUERY_LENGTH), count)) take(name);
  }
  for (const match of spelt) take(match.name);
  return chosen;
}

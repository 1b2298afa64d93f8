/**
 * A word ranker that also ranks by meaning: the same object in every other
 * respect (a proxy, so whatever the word ranker offers stays as it is), whose
 * `rank` fuses its order with the nearest skills to the query's vector when
 * that vector is at hand (QueryVectors.peek: `rank` never waits and never
 * calls the embedder). Without one, or before any skill has a vector, it
 * answers exactly as the word ranker does.
 */
import type { Ranker, RankResult } from '../catalog/rank/score.js';
import { fuse, FUSION, type FusedResult, type FusionSettings } from './fusion.js';
import type { QueryVectors } from './query-vectors.js';
import type { SkillMeaning } from './skill-meaning.js';

/** How deep each list is read before fusing, at least: a skill 20th by words and 2nd by meaning still comes up. */
export const FUSION_DEPTH = 30;

export interface HybridParts {
  meaning: SkillMeaning;
  queries: QueryVectors;
  fusion?: FusionSettings;
}

/** `words` ranking by meaning too; its `version` also changes when vectors arrive, so a kept ranking is redone. */
export function hybridRanker<R extends Ranker>(words: R, parts: HybridParts): R {
  const rank = (query: string, limit?: number): RankResult[] => rankHybrid(words, parts, query, limit);
  return new Proxy(words, {
    get(target, property) {
      if (property === 'rank') return rank;
      // Positions are the word ranker's answer alone: a ranked catalog then looks the fused names up.
      if (property === 'rankDocs') return undefined;
      if (property === 'version') {
        const own = Reflect.get(target, property, target) as unknown;
        return (typeof own === 'number' ? own : 0) + parts.meaning.store.version + parts.queries.arrivals;
      }
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** The word ranker's answer, fused with meaning when the query's vector is at hand; each result says how it was found. */
export function rankHybrid(words: Ranker, parts: HybridParts, query: string, limit?: number): FusedResult[] | RankResult[] {
  const vector = parts.queries.peek(query);
  if (!vector || !parts.meaning.searchable) return words.rank(query, limit);
  const wanted = limit ?? words.size;
  const depth = Math.max(wanted, FUSION_DEPTH);
  const byWords = words.rank(query, depth).map((result) => result.name);
  const byMeaning = parts.meaning.nearest(vector, depth).map((near) => near.name);
  return fuse(byWords, byMeaning, wanted, parts.fusion ?? FUSION);
}

/** How a ranked result was found, when a hybrid ranker made it. */
export function matchedBy(result: RankResult): FusedResult['by'] | undefined {
  const by = (result as Partial<FusedResult>).by;
  return by === 'words' || by === 'meaning' || by === 'both' ? by : undefined;
}

/**
 * `sisu-skills eval --offline --embeddings <module>`: each case that expects
 * a skill, ranked by words alone and by words + meaning (the middleware's
 * find_skills order either way), with the app's own provider. Tells an app
 * whether meaning helps its library, and which `meaningWeight` to use.
 */
import type { ResolvedEmbeddings } from '../config/embeddings.js';
import type { Skill } from '../base/model.js';
import { FUSION } from '../meaning/fusion.js';
import { hybridRanker } from '../meaning/hybrid-ranker.js';
import { QueryVectors } from '../meaning/query-vectors.js';
import { SkillMeaning } from '../meaning/skill-meaning.js';
import { SkillVectors, type EmbeddingOutcome } from '../meaning/skill-vectors.js';
import { rankedSkills } from '../index/prebuilt/format.js';
import { SkillRanker } from '../catalog/skill-ranker.js';
import type { TriggerCase } from './trigger-eval.js';
import { count } from './io.js';

/** How deep a case's expected skill is looked for (MRR is over these places). */
const DEPTH = 20;
/** An eval waits this long at least for a query's vector: it measures the model, not the deadline. */
const EVAL_QUERY_TIMEOUT_MS = 30_000;

export interface RankingFigures {
  /** Share of cases whose expected skill comes first. */
  top1: number;
  /** Share of cases whose expected skill is in the first five (find_skills' default). */
  top5: number;
  /** Mean reciprocal place of the expected skill in the first 20 (0 when not there). */
  mrr: number;
}

export interface RankingComparison {
  /** Cases that expect a skill. */
  cases: number;
  model: string;
  dimensions: number | undefined;
  meaningWeight: number;
  words: RankingFigures;
  hybrid: RankingFigures;
  /** Cases whose expected skill came higher with meaning, and lower. */
  higher: number;
  lower: number;
  embedded: EmbeddingOutcome;
}

export async function compareRanking(
  skills: readonly Skill[],
  cases: readonly TriggerCase[],
  embeddings: ResolvedEmbeddings,
): Promise<RankingComparison> {
  const ranked = rankedSkills(skills);
  const words = new SkillRanker(
    ranked,
    ranked.map((skill) => skill.instructions),
  ).get();
  const store = new SkillVectors(embeddings);
  const meaning = new SkillMeaning(ranked, store);
  const embedded = await meaning.embedAll();
  const queries = new QueryVectors(embeddings, Math.max(embeddings.queryTimeoutMs, EVAL_QUERY_TIMEOUT_MS));
  const hybrid = hybridRanker(words, { meaning, queries, fusion: { k: FUSION.k, meaningWeight: embeddings.meaningWeight } });
  const labelled = cases.filter((c): c is TriggerCase & { expect: string } => c.expect !== null);
  const places: Array<{ words: number; hybrid: number }> = [];
  for (const c of labelled) {
    await queries.get(c.query);
    const place = (names: string[]): number => names.indexOf(c.expect);
    places.push({
      words: place(words.rank(c.query, DEPTH).map((r) => r.name)),
      hybrid: place(hybrid.rank(c.query, DEPTH).map((r) => r.name)),
    });
  }
  queries.stop();
  const reach = (at: number): number => (at === -1 ? DEPTH : at);
  return {
    cases: labelled.length,
    model: store.model,
    dimensions: store.dimensions,
    meaningWeight: embeddings.meaningWeight,
    words: figuresOf(places.map((p) => p.words)),
    hybrid: figuresOf(places.map((p) => p.hybrid)),
    higher: places.filter((p) => reach(p.hybrid) < reach(p.words)).length,
    lower: places.filter((p) => reach(p.hybrid) > reach(p.words)).length,
    embedded,
  };
}

function figuresOf(places: readonly number[]): RankingFigures {
  const n = Math.max(1, places.length);
  return {
    top1: places.filter((at) => at === 0).length / n,
    top5: places.filter((at) => at !== -1 && at < 5).length / n,
    mrr: places.reduce((sum, at) => sum + (at === -1 ? 0 : 1 / (at + 1)), 0) / n,
  };
}

/** The comparison as report lines: words and words + meaning side by side. */
export function formatRanking(ranking: RankingComparison): string[] {
  const row = (label: string, f: RankingFigures): string =>
    `  ${label.padEnd(15)} ${f.top1.toFixed(2).padStart(5)}  ${f.top5.toFixed(2).padStart(5)}  ${f.mrr.toFixed(3).padStart(6)}`;
  const { embedded } = ranking;
  const skipped = embedded.failed > 0 ? `; ${count(embedded.failed, 'skill')} could not be embedded (${embedded.error ?? 'error'})` : '';
  return [
    `Ranking (find_skills' order) of the ${count(ranking.cases, 'case')} with an expected skill, by words and by words + meaning` +
      ` (model ${ranking.model}, ${ranking.dimensions ?? '?'} dimensions, meaningWeight ${ranking.meaningWeight}${skipped}):`,
    `  ${''.padEnd(15)} top 1  top 5  MRR@${DEPTH}`,
    row('words', ranking.words),
    row('words + meaning', ranking.hybrid),
    `  With meaning the expected skill came higher in ${count(ranking.higher, 'case')} and lower in ${count(ranking.lower, 'case')}.`,
  ];
}

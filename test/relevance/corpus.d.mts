// Types for corpus.mjs.
import type { ParsedFrontmatter, ParseOptions } from '../../src/frontmatter/parse.js';
import type { RankEntry } from '../../src/catalog/rank/build.js';
import type { Ranker } from '../../src/catalog/rank/score.js';
import type { LabeledQuery } from './queries.mjs';

export const CORPUS_DIR: string;
export function corpusPresent(): boolean;
export function loadEntries(parseFrontmatter: (text: string, options?: ParseOptions) => ParsedFrontmatter, dir?: string): RankEntry[];
export function loadSkills(
  parseFrontmatter: (text: string, options?: ParseOptions) => ParsedFrontmatter,
  dir?: string,
): ReadonlyArray<{ readonly entry: RankEntry; readonly body: string }>;

export interface AutoActivationFigures {
  threshold: number;
  recall: number;
  precision: number;
  falseOnNegatives: number;
  negatives: number;
  wrongOnLabeled: number;
  falseHits: Array<{ text: string; skill: string; score: number }>;
}

export function measureAutoActivation(
  ranker: Pick<Ranker, 'rank'>,
  options: { queries: readonly LabeledQuery[]; negatives: readonly string[]; threshold: number; maxSkills?: number },
): AutoActivationFigures;

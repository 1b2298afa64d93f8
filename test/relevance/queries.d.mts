// Types for queries.mjs (plain JS so scripts/auto-activate-threshold.mjs can import it too).
export interface LabeledQuery {
  query: string;
  want: readonly string[];
}

export const QUERIES: readonly LabeledQuery[];
export const NEGATIVES: readonly string[];
export const NEGATIVES_HELD_OUT: readonly string[];
export const QUERIES_HELD_OUT: readonly LabeledQuery[];
export const FIXTURE_QUERIES: readonly LabeledQuery[];

/**
 * Reciprocal-rank fusion of the word ranker's order and the meaning order:
 * each list gives a skill weight / (k + its place), and the sums order them.
 * Places, not scores, so BM25's scale and a cosine's never need to agree;
 * a skill in both lists comes before one in either (docs/embeddings.md,
 * Fusion, for the measurement behind k and the weights).
 */

/** How a fused result was found. */
export type MatchedBy = 'words' | 'meaning' | 'both';

export interface FusedResult {
  name: string;
  /** The fused score, scaled to [0, 1] (1: first in both lists). */
  score: number;
  by: MatchedBy;
}

export interface FusionSettings {
  /** RRF's constant: larger lets lower places count more. */
  k: number;
  /** What a place in the meaning list counts next to one in the word list (1: as much). */
  meaningWeight: number;
}

/**
 * Measured on the train parts of three labelled sets with real word vectors
 * (scripts/embeddings-recall.mjs, docs/embeddings.md): the paper's k = 60 with
 * equal weights let a weak model reorder the words' best matches (top 1 0.55 ->
 * 0.22 on the body set, 0.84 -> 0.13 on the instructions set); k = 10 keeps the
 * words' order in front, and a meaning weight of 0.05 lost nothing on any set
 * (0.1 already cost 0.03 of top 1 on the instructions set), while meaning still
 * fills the places words leave empty and breaks their near-ties further down.
 * An app whose model is stronger raises `embeddings.meaningWeight` after
 * `sisu-skills eval --offline --embeddings`.
 */
export const FUSION: Readonly<FusionSettings> = Object.freeze({ k: 10, meaningWeight: 0.05 });

/** The two orders fused, best first, at most `limit`. Ties break by name. */
export function fuse(
  words: readonly string[],
  meaning: readonly string[],
  limit: number,
  settings: FusionSettings = FUSION,
): FusedResult[] {
  const { k, meaningWeight } = settings;
  const scores = new Map<string, { score: number; words: boolean; meaning: boolean }>();
  words.forEach((name, place) => {
    scores.set(name, { score: 1 / (k + place + 1), words: true, meaning: false });
  });
  meaning.forEach((name, place) => {
    const add = meaningWeight / (k + place + 1);
    const held = scores.get(name);
    if (held) {
      held.score += add;
      held.meaning = true;
    } else {
      scores.set(name, { score: add, words: false, meaning: true });
    }
  });
  const best = (1 + meaningWeight) / (k + 1);
  return [...scores.entries()]
    .sort(([a, x], [b, y]) => y.score - x.score || (a < b ? -1 : a > b ? 1 : 0))
    .slice(0, Math.max(0, limit))
    .map(([name, { score, words: w, meaning: m }]) => ({ name, score: score / best, by: w && m ? 'both' : w ? 'words' : 'meaning' }));
}

/**
 * The skill vectors a prebuilt index carries (`sisu-skills index
 * --embeddings <module>`): every skill the middleware ranks, embedded at
 * build time as the middleware would (same text, same batches), packed by
 * src/meaning/vector-file.ts. A middleware started from the index embeds no
 * skill, and its first request ranks by meaning.
 */
import type { ResolvedEmbeddings } from '../config/embeddings.js';
import type { SkillEntry } from '../base/model.js';
import { contentKey, skillText } from './skill-text.js';
import { SkillVectors, type EmbeddingOutcome } from './skill-vectors.js';
import { encodeVectors, type PrebuiltVectors } from './vector-file.js';
import type { VectorEncoding } from './vectors.js';

/** How an index stores vectors. */
export const INDEX_ENCODING: VectorEncoding = 'int8';

export interface IndexVectors {
  /** Undefined when no skill could be embedded. */
  block: PrebuiltVectors | undefined;
  outcome: EmbeddingOutcome;
}

/** Embed `skills` (the index's ranked skills) with `embeddings`, as the vectors block to store. */
export async function vectorsForIndex(skills: readonly SkillEntry[], embeddings: ResolvedEmbeddings): Promise<IndexVectors> {
  const store = new SkillVectors(embeddings);
  const items = skills.map((entry) => {
    const text = skillText(entry);
    return { key: contentKey(text), text };
  });
  const outcome = await store.embed(items);
  const dimensions = store.dimensions;
  if (dimensions === undefined || store.size === 0) return { block: undefined, outcome };
  const held = items.flatMap(({ key }) => {
    const vector = store.get(key);
    return vector ? [[key, vector] as const] : [];
  });
  // Int8 whatever the width: a quarter of Float32's size to read and decode at start-up, at no measured recall (docs/embeddings.md).
  return { block: encodeVectors(store.model, dimensions, INDEX_ENCODING, held), outcome };
}

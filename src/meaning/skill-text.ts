/**
 * What a skill is embedded as, and the key its vector is cached under: the
 * text's own hash, so an edited skill gets a new key (and is embedded again)
 * while every unchanged skill keeps its vector, whichever index it is in.
 */
import { createHash } from 'node:crypto';
import type { SkillEntry } from '../base/model.js';

/**
 * Most characters of a skill's text sent to the embedder. Name and
 * description are what a model judges a skill by; a description is at most
 * 1,024 characters by the specification. The start of the instructions was
 * measured and left out (docs/embeddings.md, What is embedded).
 */
export const MAX_SKILL_TEXT = 2_000;

/** The text a skill is embedded as: its name (words, not hyphens), then its description. */
export function skillText(entry: SkillEntry): string {
  const { name, description } = entry.metadata;
  const words = name.replace(/[-_]+/g, ' ');
  return `${words}: ${description}`.slice(0, MAX_SKILL_TEXT);
}

/** The cache key of a text: 128 bits of its SHA-256, base64url. */
export function contentKey(text: string): string {
  return createHash('sha256').update(text).digest('base64url').slice(0, 22);
}

/**
 * The catalog section exactly as the middleware injects it. The one place the
 * CLI builds it, so `sisu-skills prompt` follows the middleware when it changes.
 */
import { isModelInvocable } from '../activation.js';
import { buildCatalog, catalogEntries, DEFAULT_CATALOG_BUDGET } from '../catalog.js';
import type { SkillEntry } from '../types.js';

export interface SectionOptions {
  /** The middleware's catalog budget in characters. Default: the catalog module's default. */
  budget?: number;
  /** The latest user message, which ranked mode (over budget) ranks by. */
  query?: string;
}

/** The section for `skills`, or undefined when the middleware would add none (no model-invocable skill). */
export function catalogSection(skills: readonly SkillEntry[], options: SectionOptions = {}): string | undefined {
  const listed = skills.filter((skill) => isModelInvocable(skill.metadata));
  if (listed.length === 0) return undefined;
  const { text } = buildCatalog(catalogEntries(listed), { budget: options.budget ?? DEFAULT_CATALOG_BUDGET, query: options.query });
  return text === '' ? undefined : text;
}

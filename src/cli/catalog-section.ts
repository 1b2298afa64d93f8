/**
 * The catalog section exactly as the middleware injects it. The one place the
 * CLI builds it, so `sisu-skills prompt` follows the middleware when it changes.
 */
import { isModelInvocable } from '../activation.js';
import { catalogEntries, renderCatalog } from '../catalog.js';
import type { SkillEntry } from '../types.js';

/** The section for `skills`, or undefined when the middleware would add none (no model-invocable skill). */
export function catalogSection(skills: readonly SkillEntry[]): string | undefined {
  const listed = skills.filter((skill) => isModelInvocable(skill.metadata));
  if (listed.length === 0) return undefined;
  return renderCatalog(catalogEntries(listed));
}

/**
 * The catalog section exactly as the middleware injects it. The one place the
 * CLI builds it, so `sisu-skills prompt` follows the middleware when it changes.
 */
import { isModelInvocable } from '../run/activation.js';
import { catalogEntries, createCatalog, DEFAULT_CATALOG_BUDGET, type CatalogResult } from '../catalog/catalog.js';
import { FIND_SKILLS_TOOL, USE_SKILL_TOOL } from '../base/tool-names.js';
import type { SkillEntry } from '../index/types.js';

export interface SectionOptions {
  /** The middleware's `catalogBudget` in characters. Default: the catalog module's default. */
  budget?: number;
  /** The latest user message, which ranked mode (over budget) ranks by. */
  query?: string;
  /** false as with the middleware's `findSkills: false`: the section never names find_skills. Default true. */
  findSkills?: boolean;
}

export interface Section extends CatalogResult {
  /** The skills the catalog is about: those without `disable-model-invocation`. */
  candidates: number;
}

/**
 * What the middleware renders for `skills` and this request. It injects
 * `text` unless it is '' (no model-invocable skill, or a budget too small
 * for even the smallest section).
 */
export function catalogSection(skills: readonly SkillEntry[], options: SectionOptions = {}): Section {
  const listed = skills.filter((skill) => isModelInvocable(skill.metadata));
  const catalog = createCatalog(catalogEntries(listed), {
    budget: options.budget ?? DEFAULT_CATALOG_BUDGET,
    toolName: USE_SKILL_TOOL,
    findToolName: options.findSkills === false ? null : FIND_SKILLS_TOOL,
  });
  return { ...catalog.render(options.query), candidates: listed.length };
}

/**
 * The catalog section exactly as the middleware injects it. The one place the
 * CLI builds it, so `sisu-skills prompt` follows the middleware when it changes.
 */
import { isModelInvocable } from '../metadata/invocation.js';
import { catalogEntries, createCatalog, type CatalogResult } from '../catalog/catalog.js';
import { DEFAULTS } from '../config/defaults.js';
import { FIND_SKILLS_TOOL, USE_SKILL_TOOL } from '../base/tool-names.js';
import { createRanker } from '../catalog/rank/score.js';
import type { Skill } from '../base/model.js';

export interface SectionOptions {
  /** The middleware's `catalogBudget` in characters. Default: the middleware's (DEFAULTS.catalogBudget). */
  budget?: number;
  /** The latest user message, which ranked mode (over budget) ranks by. */
  query?: string;
  /** false as with the middleware's `findSkills: false`: the section never names find_skills. Default true. */
  findSkills?: boolean;
  /**
   * Rank `query` by the skills' instructions too, as the middleware does once
   * it has read them (a second after its first request); the skills must hold
   * them (discoverSkills'). Default false: as the first request ranks.
   */
  rankInstructions?: boolean;
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
export function catalogSection(skills: readonly Skill[], options: SectionOptions = {}): Section {
  const listed = skills.filter((skill) => isModelInvocable(skill.metadata));
  const entries = catalogEntries(listed);
  const instructions = listed.map((skill) => skill.instructions);
  const catalog = createCatalog(entries, {
    budget: options.budget ?? DEFAULTS.catalogBudget,
    ...(options.rankInstructions === true ? { ranker: () => createRanker(entries, instructions) } : {}),
    toolName: USE_SKILL_TOOL,
    findToolName: options.findSkills === false ? null : FIND_SKILLS_TOOL,
  });
  return { ...catalog.render(options.query), candidates: listed.length };
}

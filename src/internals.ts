// `@sisu-ai/mw-skills/internals`: UNSTABLE. The pieces the middleware is built from, for tools, scripts and
// experiments that need one of them alone. Any of these may change or go in any release, minor or patch,
// without a deprecation; the main entry (`@sisu-ai/mw-skills`) is the stable API. Named re-exports only.

// The catalog section and the local ranker behind it, `find_skills` and `autoActivate`.
export { buildCatalog, catalogEntries } from './catalog/catalog.js';
export type { CatalogEntry, CatalogMode, CatalogOptions, CatalogResult } from './catalog/catalog.js';
export { createRanker } from './catalog/rank/score.js';
export type { Ranker, RankResult } from './catalog/rank/score.js';
export type { RankEntry } from './catalog/rank/build.js';

// Activation: `@` mentions and who may invoke a skill.
export { findMentions, leadingMention } from './run/activation.js';
export type { Mentions } from './run/activation.js';
export { isModelInvocable, isUserInvocable } from './metadata/invocation.js';

// A skill's placeholders, as activation fills them in; its `allowed-tools` and SISU's `requires` as data.
export { substitutePlaceholders, splitArguments, argumentHint, substitutesInCode } from './base/arguments.js';
export type { Substitutions, Substituted } from './base/arguments.js';
export { parseAllowedTools } from './base/allowed-tools.js';
export { parseRequires } from './base/required-tools.js';

// The resource listing `use_skill` shows, the secret file patterns always applied, and each ecosystem tool's folders.
export { renderResourceListing } from './tools/resource-listing.js';
export type { ListingOptions } from './tools/resource-listing.js';
export { DEFAULT_SECRET_PATTERNS } from './config/defaults.js';
export { SKILL_TOOL_FOLDERS } from './config/ecosystem.js';

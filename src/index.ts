// Public API: named re-exports only.
export { skillsMiddleware, getSkills } from './middleware.js';
export type { SkillsMiddleware } from './middleware.js';
export { discoverSkills } from './source/skill-source.js';
export { parseFrontmatter } from './frontmatter/parse.js';
export type { ParsedFrontmatter, ParseOptions, FieldInfo } from './frontmatter/parse.js';
export { createUseSkillTool, UseSkillArgsSchema, USE_SKILL_TOOL } from './tools/use-skill.js';
export type { UseSkillArgs } from './tools/use-skill.js';
export { createReadResourceTool, ReadResourceArgsSchema, READ_RESOURCE_TOOL } from './tools/read-resource.js';
export type { ReadResourceArgs, ReadResourceSettings } from './tools/read-resource.js';
export { renderResourceListing, DEFAULT_MAX_LISTED_RESOURCES } from './tools/resource-listing.js';
export type { ListingOptions } from './tools/resource-listing.js';
export { DEFAULT_SECRET_PATTERNS } from './resources/secrets.js';
export { SkillMetadataSchema } from './metadata/schema.js';
export { DiagnosticCodes, formatDiagnostic } from './base/diagnostics.js';
export type { Diagnostic, DiagnosticCode, Severity } from './base/diagnostics.js';
export { SkillsError, SkillsConfigError, SkillsUsageError, SkillsWatchError } from './config/errors.js';
export { createFindSkillsTool, FindSkillsArgsSchema, FIND_SKILLS_TOOL, type FindSkillsToolOptions } from './tools/find-skills.js';
export type { FindSkillsArgs } from './tools/find-skills.js';
export { buildCatalog, catalogEntries, DEFAULT_CATALOG_BUDGET } from './catalog/catalog.js';
export type { CatalogEntry, CatalogMode, CatalogOptions, CatalogReport, CatalogResult } from './catalog/catalog.js';
export { createRanker } from './catalog/rank/score.js';
export type { Ranker, RankResult } from './catalog/rank/score.js';
export type { RankEntry } from './catalog/rank/build.js';
export { findMentions, isModelInvocable, isUserInvocable, leadingMention, AUTO_ACTIVATE_DEFAULTS } from './run/activation.js';
export { substitute as substitutePlaceholders, splitArguments, argumentHint, substitutesInCode } from './base/arguments.js';
export type { Substitutions, Substituted } from './base/arguments.js';
export type { ActivationRoute, Mentions } from './run/activation.js';
export type { AutoActivateOptions, KeepInViewOptions } from './config/options.js';
export type { SkillVisibility, VisibilityFailure } from './config/visibility.js';
export type { SkillActivation, SkillApproval, ApprovalDecision } from './config/approval.js';
export type { SkillEvent, SkillEventHandler, SkillEventType, SkillEventOutcome, SkillRoute } from './config/events.js';
export { parseAllowedTools } from './base/allowed-tools.js';
export { parseRequires } from './base/required-tools.js';
export type { AllowedTool } from './base/allowed-tools.js';
export { watchSkillDirectories, WatchProblem } from './watch/watch.js';
export type { SkillsWatcher, WatchChange, WatchOptions, WatchMode, WatchProblemKind, FolderWatching } from './watch/watch.js';
export type { SkillsErrorCode } from './config/errors.js';
export { DEFAULTS } from './config/options.js';
export type { SkillsOptions } from './config/options.js';
export type { EmbeddingsOptions } from './config/embeddings.js';
export type { HostEmbeddings as EmbeddingsProviderLike } from './base/host.js';
export type { EmbeddingOutcome } from './meaning/skill-vectors.js';
export type { SkillIndex, SkillsState, LoadedSkill } from './index/skill-index.js';
export type { SkillsFileSystem, DirEntry, FileStats, FileHandle, FolderWatchHandle } from './base/fs.js';
export type {
  Skill,
  SkillEntry,
  SkillMetadata,
  SkillResource,
  ResourceType,
  DiscoveryResult,
  SkillsContext,
  ToolContext,
  HostTool,
  HostToolRegistry,
  HostMessage,
  HostLogger,
  Middleware,
  Next,
} from './index/types.js';
export { skillDirectories, SKILL_TOOLS, SKILL_TOOL_FOLDERS } from './config/ecosystem.js';
export type { SkillDirectoriesOptions, SkillScope, SkillTool, ToolSkillFolders } from './config/ecosystem.js';

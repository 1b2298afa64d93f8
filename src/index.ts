// Public API: what the README and docs/usage.md teach, as named re-exports only. Anything else the
// package uses is in src/internals.ts (`@sisu-ai/mw-skills/internals`), unstable by design.
export { skillsMiddleware, getSkills } from './middleware.js';
export type { SkillsMiddleware } from './middleware.js';
export { discoverSkills } from './discover/with-storage.js';
export { parseFrontmatter } from './frontmatter/parse.js';
export type { ParsedFrontmatter, ParseOptions, FieldInfo } from './frontmatter/parse.js';
export { skillDirectories, SKILL_TOOLS } from './config/ecosystem.js';
export type { SkillDirectoriesOptions, SkillScope, SkillTool, ToolSkillFolders } from './config/ecosystem.js';
export { watchSkillDirectories, WatchProblem } from './watch/watch.js';
export type { SkillsWatcher, WatchChange, WatchOptions, WatchMode, WatchProblemKind, FolderWatching } from './watch/watch.js';

// The tools, for apps that wire tools by hand: factories, argument schemas and names.
export { createUseSkillTool, UseSkillArgsSchema, USE_SKILL_TOOL } from './tools/use-skill.js';
export type { UseSkillArgs } from './tools/use-skill.js';
export { createReadResourceTool, ReadResourceArgsSchema, READ_RESOURCE_TOOL } from './tools/read-resource.js';
export type { ReadResourceArgs, ReadResourceSettings } from './tools/read-resource.js';
export { createFindSkillsTool, FindSkillsArgsSchema, FIND_SKILLS_TOOL, type FindSkillsToolOptions } from './tools/find-skills.js';
export type { FindSkillsArgs } from './tools/find-skills.js';

// Errors, diagnostics, the schema frontmatter is validated with, and the option defaults.
export { SkillsError, SkillsConfigError, SkillsUsageError, SkillsWatchError } from './config/errors.js';
export type { SkillsErrorCode } from './config/errors.js';
export { DiagnosticCodes, formatDiagnostic } from './base/diagnostics.js';
export type { Diagnostic, DiagnosticCode, Severity } from './base/diagnostics.js';
export { SkillMetadataSchema } from './metadata/fields.js';
export { DEFAULTS } from './config/defaults.js';

// Types: the options and their hooks, what a run publishes, the data model and the host's shapes.
export type { SkillsOptions } from './run/options.js';
export type { AutoActivateOptions, KeepInViewOptions } from './config/options.js';
export type { EmbeddingsOptions } from './config/embeddings.js';
export type { TrustMode, TrustOptions } from './config/trust-options.js';
export type { EmbeddingOutcome } from './meaning/skill-vectors.js';
export type { SkillVisibility, VisibilityFailure } from './run/visibility.js';
export type { SkillActivation, SkillApproval, ApprovalDecision } from './run/approval.js';
export type { SkillEventHandler } from './run/events.js';
export type {
  SkillActivityEvent,
  SkillEvent,
  SkillEventType,
  SkillEventOutcome,
  SkillRoute,
  SkillUntrustedEvent,
} from './base/skill-event.js';
export type { SkillsContext, SkillsState, Middleware } from './run/context.js';
export type { SkillIndex, LoadedSkill } from './index/skill-index.js';
export type { CatalogReport } from './catalog/catalog.js';
export type { AllowedTool } from './base/allowed-tools.js';
export type { Skill, SkillEntry, SkillMetadata, SkillResource, ResourceType, DiscoveryResult } from './base/model.js';
export type { EmbeddingsProviderLike, ToolContext, HostTool, HostToolRegistry, HostMessage, HostLogger, Next } from './base/host.js';
export type { SkillsFileSystem, DirEntry, FileStats, FileHandle, FolderWatchHandle } from './base/fs.js';

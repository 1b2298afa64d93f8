/**
 * The package's data model and the host (SISU-shaped) context types.
 * Host types are structural so that SISU's real `Ctx` is assignable to them
 * without a dependency on `@sisu-ai/core`.
 */
import type { Diagnostic } from './diagnostics.js';
import type { SkillsState } from './skill-index.js';

export type ResourceType = 'script' | 'template' | 'reference' | 'asset' | 'other';

/** A file bundled with a skill (`scripts/`, `references/`, `assets/` ...). */
export interface SkillResource {
  /** File name, e.g. `deploy.sh`. */
  name: string;
  /** Path relative to the skill folder, with `/` separators. */
  path: string;
  absolutePath: string;
  type: ResourceType;
  /** Size in bytes. */
  size: number;
  /** Over `maxFileSize`: listed so the model knows it exists, never read. */
  tooLarge?: boolean;
}

/** Validated frontmatter. Keys the schema does not know are kept as they were. */
export interface SkillMetadata {
  name: string;
  description: string;
  license?: string;
  compatibility?: string;
  metadata?: Record<string, unknown>;
  'allowed-tools'?: string | string[];
  version?: string;
  author?: string;
  tags?: string[];
  [key: string]: unknown;
}

/** What the index keeps for every skill: enough for the catalog and lookups (level 1). */
export interface SkillEntry {
  metadata: SkillMetadata;
  /** Absolute path of the SKILL.md file. */
  path: string;
  /** Absolute path of the skill folder. */
  directory: string;
}

/** A skill with its instructions and resource listing (level 2). */
export interface Skill extends SkillEntry {
  /** The markdown after the frontmatter. */
  instructions: string;
  /** 1-based line of SKILL.md on which `instructions` start, when discovery read the file. */
  instructionsLine?: number;
  /** Bundled files, relative to `directory`, within the size limits. */
  resources: SkillResource[];
}

export interface DiscoveryResult {
  /** Loaded skills, in discovery order (configured directory order, then path order). */
  skills: Skill[];
  /** Absolute paths of the configured directories that were scanned. */
  scannedDirectories: string[];
  /** Problems that kept a skill (or a directory) from loading. */
  errors: Diagnostic[];
  /** Problems that did not: the skill loaded, or nothing was lost. */
  warnings: Diagnostic[];
}

// ---------------------------------------------------------------------------
// Host context (SISU-shaped)

export interface HostMessage {
  role: string;
  content: string;
}

export interface HostLogger {
  debug(...args: unknown[]): void;
  info(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  error(...args: unknown[]): void;
  span?(name: string, attrs?: Record<string, unknown>): void;
}

/** A SISU tool: a zod (v3) schema for its arguments and an async handler. */
export interface HostTool<TArgs = never> {
  name: string;
  description?: string;
  schema: unknown;
  // Method syntax on purpose: SISU's handlers take its own `Ctx`, and method
  // parameters are compared bivariantly, which keeps SISU's tools assignable.
  handler(args: TArgs, ctx?: ToolContext): Promise<unknown>;
}

export interface HostToolRegistry {
  get(name: string): HostTool | undefined;
  register(tool: HostTool): void;
}

/**
 * What a tool handler may use from its second argument. SISU passes a
 * `ToolContext` of `{ memory, signal, log, model, deps }`, not the request's
 * ctx; our tools are bound to their run instead, so they read only these two
 * (both optional, so a hand call with `{}` works too).
 */
export interface ToolContext {
  log?: HostLogger;
  signal?: AbortSignal;
}

/** The part of SISU's model (`ctx.model`) the middleware touches: it may wrap `generate` for one request. */
export interface HostModel {
  generate(messages: never, options?: never): unknown;
}

/** The parts of SISU's `Ctx` this middleware reads and writes. */
export interface SkillsContext {
  /** The request's user input; `inputToMessage` turns it into the user message when it runs. */
  input?: string;
  messages: HostMessage[];
  tools: HostToolRegistry;
  state: Record<string, unknown>;
  log: HostLogger;
  model?: HostModel;
  signal?: AbortSignal;
  /** Set by the skills middleware: the index this run sees and what it activated. */
  skills?: SkillsState;
}

export type Next = () => Promise<void>;

export type Middleware<C = SkillsContext> = (ctx: C, next: Next) => Promise<void>;

/**
 * The request as this middleware sees it: the parts of SISU's ctx it reads
 * and writes, and the run's view it publishes there (`ctx.skills`,
 * `ctx.state.skills`) for other middleware. The data model and the host's
 * shapes are base/model.ts and base/host.ts.
 */
import type { AllowedTool } from '../base/allowed-tools.js';
import type { HostLogger, HostMessage, HostModel, HostToolRegistry, Next } from '../base/host.js';
import type { CatalogReport } from '../catalog/catalog.js';
import type { SkillIndex } from '../index/skill-index.js';

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

export type Middleware<C = SkillsContext> = (ctx: C, next: Next) => Promise<void>;

/** What one run (one ctx) sees: the index it was given, and what it activated. */
export interface SkillsState extends SkillIndex {
  /**
   * Names of the skills active in this conversation (earlier turns included,
   * ended ones not), least recently activated first.
   */
  readonly activated: readonly string[];
  /** Whether the skill's instructions are in the messages the model will be sent (`ctx.messages` as it stands now). */
  inView(name: string): boolean;
  /**
   * End an active skill: it is no longer kept in view (nor recognised again
   * from the conversation) until something activates it again. False when it
   * was not active.
   */
  end(name: string): boolean;
  /** What the catalog in this run's system prompt holds, and what the budget cut. */
  readonly catalog: CatalogReport | undefined;
  /**
   * The parsed `allowed-tools` of each active skill that declares the field,
   * by name, in activation order (a skill without the field is absent: it
   * pre-approves nothing, it does not forbid anything). Data for a guard
   * middleware; this package enforces nothing.
   */
  readonly allowedTools: ReadonlyMap<string, readonly AllowedTool[]>;
  /**
   * The `requires` of each active skill that declares the field (SISU's skill
   * packages: the tools the skill expects the agent to have), by name, in
   * activation order, as tool names. Data, like `allowedTools`: a skill whose
   * tools are missing still activates, and its answer names the missing ones.
   */
  readonly requires: ReadonlyMap<string, readonly string[]>;
}

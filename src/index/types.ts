/**
 * The public types in one place: the data model (model.ts), the host's shapes
 * (host.ts), and the context the middleware reads and writes. Lower layers
 * import model.ts and host.ts directly, so nothing below the run depends on
 * this module.
 */
import type { HostLogger, HostMessage, HostModel, HostToolRegistry, Next } from '../base/host.js';
import type { SkillsState } from './skill-index.js';

export type * from '../base/model.js';
export type * from '../base/host.js';

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

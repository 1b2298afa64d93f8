/**
 * What every skill tool shares: find the index, check the arguments, and
 * never throw. A handler that throws ends the agent's turn; a message lets
 * the model recover, so every failure becomes one.
 *
 * A tool never looks anything up through its second argument: SISU passes a
 * `ToolContext` (`{ memory, signal, log, model, deps }`), not the request's
 * ctx. The middleware binds each tool to its run instead; a hand-wired tool
 * is bound to the skills it was made with.
 */
import { logUntrusted, retryCannotHelp } from '../config/errors.js';
import type { z } from 'zod';
import type { SkillIndex } from '../index/skill-index.js';
import type { HostTool, ToolContext } from '../base/host.js';

/** Where a tool finds the index it answers from; undefined when none is loaded. */
export type IndexSource = () => SkillIndex | undefined;

/**
 * A skill tool as the host sees it: its zod 3 schema, and a handler whose
 * arguments are what that schema parses (a hand call is checked against it).
 */
export interface SkillTool<S extends z.ZodTypeAny> extends HostTool<z.infer<S>> {
  schema: S;
}

/**
 * What makes one skill tool. `S` is the schema the model is shown, `A` the
 * arguments `run` gets after `accepts` read them.
 */
export interface SkillToolSpec<S extends z.ZodTypeAny, A> {
  name: string;
  description: string;
  /**
   * The schema the model is shown: plain zod 3 only (z.object of z.string,
   * z.number, .optional(), .describe()), because SISU's adapters convert it by
   * `_def.typeName` and know few types (no effects, defaults or enums).
   */
  schema: S;
  /**
   * How the handler reads its arguments: `schema` itself, or a lenient
   * reading of the same fields whose output is what `run` gets. Never shown
   * to the adapters, so it may transform.
   */
  accepts: z.ZodType<A, z.ZodTypeDef, unknown>;
  source: IndexSource;
  /** The answer when no skills are loaded at all. */
  noSkills: string;
  /** How to call the tool properly: the answer to arguments `accepts` rejects. */
  usage(index: SkillIndex): string;
  run(args: A, index: SkillIndex, ctx: ToolContext): Promise<string>;
  /** The answer when something failed, given the reason and whether trying again may help. */
  failed(reason: string, retry: boolean): string;
}

/**
 * `schema` as the host sees it (same `_def`, so the adapters convert it the
 * same), except that `parse` never throws. SISU's execute calls
 * `tool.schema.parse(args)` before the handler, and a ZodError there ends the
 * whole turn; arguments that fail go through unchanged, so the handler can
 * answer with how to call the tool instead.
 */
export function forgivingSchema<S extends z.ZodTypeAny>(schema: S): S {
  const wrapped = Object.create(schema) as S;
  Object.defineProperty(wrapped, 'parse', {
    value: (value: unknown): unknown => {
      const checked = schema.safeParse(value);
      return checked.success ? checked.data : value;
    },
  });
  return wrapped;
}

export function skillTool<S extends z.ZodTypeAny, A>(spec: SkillToolSpec<S, A>): SkillTool<S> {
  return {
    name: spec.name,
    description: spec.description,
    schema: forgivingSchema(spec.schema),
    async handler(args: z.infer<S>, ctx: ToolContext = {}): Promise<string> {
      try {
        const index = spec.source();
        if (!index) return spec.noSkills;
        const parsed = spec.accepts.safeParse(args);
        if (!parsed.success) return spec.usage(index);
        return await spec.run(parsed.data, index, ctx);
      } catch (error) {
        logUntrusted(ctx.log, error);
        const reason = error instanceof Error ? error.message : String(error);
        ctx.log?.error(`[skills] ${spec.name} failed`, { error: reason });
        return spec.failed(busy(error) ? 'busy: too many files are open right now' : reason, !retryCannotHelp(error));
      }
    },
  };
}

/** Out of file descriptors (here or in the error's cause): a passing condition, not a broken skill. */
export function busy(error: unknown): boolean {
  for (let current = error, depth = 0; typeof current === 'object' && current !== null && depth < 5; depth++) {
    const { code, cause } = current as { code?: unknown; cause?: unknown };
    if (code === 'EMFILE' || code === 'ENFILE') return true;
    current = cause;
  }
  return false;
}

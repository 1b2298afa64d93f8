/**
 * What every skill tool shares: find the run's index, check the arguments,
 * and never throw. A handler that throws ends the agent's turn; a message lets
 * the model recover, so every failure becomes one.
 */
import type { SkillIndex } from '../skill-index.js';
import type { HostTool, ToolContext } from '../types.js';

/** Where a tool finds the index: the run's, or a fallback it was built with. */
export type IndexSource = (ctx: ToolContext) => SkillIndex | undefined;

/** Arguments that failed the check, with the message telling the model how to call the tool. */
export interface InvalidArgs {
  invalid: string;
}

export interface SkillToolSpec<A> {
  name: string;
  description: string;
  /** The zod 3 schema the model is shown (SISU's adapters convert it). */
  schema: unknown;
  source: IndexSource;
  /** The answer when no skills are loaded at all. */
  noSkills: string;
  /** The checked arguments, or how to call the tool properly. */
  parse(args: unknown, index: SkillIndex): A | InvalidArgs;
  run(args: A, index: SkillIndex, ctx: ToolContext): Promise<string>;
  /** The answer when something unexpected failed, given the reason. */
  failed(reason: string): string;
}

function isInvalid(value: unknown): value is InvalidArgs {
  return typeof value === 'object' && value !== null && 'invalid' in value;
}

export function skillTool<A>(spec: SkillToolSpec<A>): HostTool<A> {
  return {
    name: spec.name,
    description: spec.description,
    schema: spec.schema,
    async handler(args: A, ctx: ToolContext): Promise<string> {
      try {
        const index = spec.source(ctx);
        if (!index) return spec.noSkills;
        const parsed = spec.parse(args, index);
        if (isInvalid(parsed)) return parsed.invalid;
        return await spec.run(parsed, index, ctx);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        ctx.log?.error(`[skills] ${spec.name} failed`, { error: reason });
        return spec.failed(reason);
      }
    },
  };
}

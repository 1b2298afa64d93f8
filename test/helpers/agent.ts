/**
 * Shared test helpers: fixture paths and a one-call way to run middleware the
 * way a SISU app does (system + user message, middleware, then the tool loop).
 */
import { fileURLToPath } from 'node:url';
import {
  compose,
  createContext,
  scriptedModel,
  toolCalling,
  type ContextInit,
  type MiniContext,
  type MiniMessage,
  type Middleware,
  type ScriptStep,
  type ScriptedModel,
  type ScriptedReply,
  type ToolMessage,
} from '../../demo/mini-sisu.mjs';

/** Absolute path of the example skills shipped in fixtures/skills. */
export const SKILLS_FIXTURES = fileURLToPath(new URL('../../fixtures/skills', import.meta.url));

/** Absolute path of the broken skills in fixtures/invalid. */
export const INVALID_FIXTURES = fileURLToPath(new URL('../../fixtures/invalid', import.meta.url));

/** The names of the example skills, sorted. */
export const FIXTURE_SKILL_NAMES = ['code-review', 'debug', 'deploy-staging', 'explain', 'test-gen'] as const;

export const DEFAULT_SYSTEM = 'You are a careful coding assistant.';

/** A system message followed by a user message. */
export function conversation(user: string, system: string = DEFAULT_SYSTEM): MiniMessage[] {
  return [
    { role: 'system', content: system },
    { role: 'user', content: user },
  ];
}

/** A scripted reply that calls one tool. */
export function callTool(name: string, args: unknown, id?: string): ScriptedReply {
  return { content: '', tool_calls: [{ name, arguments: args, ...(id === undefined ? {} : { id }) }] };
}

/** A scripted reply that activates a skill through `use_skill`. */
export function useSkill(skillName: string): ScriptedReply {
  return callTool('use_skill', { skill_name: skillName });
}

export interface RunResult {
  ctx: MiniContext;
  model: ScriptedModel;
}

/**
 * Builds a context, composes `middleware` (one or many) in front of the tool
 * loop, and runs it with a scripted model.
 */
export async function runAgent(
  middleware: Middleware<MiniContext> | ReadonlyArray<Middleware<MiniContext>>,
  steps: ReadonlyArray<ScriptStep>,
  init: Omit<ContextInit, 'model'> = {},
): Promise<RunResult> {
  const model = scriptedModel(steps);
  const ctx = createContext({ messages: conversation('Please help.'), ...init, model });
  const list: ReadonlyArray<Middleware<MiniContext>> = typeof middleware === 'function' ? [middleware] : middleware;
  await compose([...list, toolCalling()])(ctx);
  return { ctx, model };
}

/** The tool result messages, in order. */
export function toolMessages(ctx: MiniContext): ToolMessage[] {
  return ctx.messages.filter((m): m is ToolMessage => m.role === 'tool');
}

/** The first system message's content ('' when there is none). */
export function systemPrompt(messages: readonly MiniMessage[]): string {
  return messages.find((m) => m.role === 'system')?.content ?? '';
}

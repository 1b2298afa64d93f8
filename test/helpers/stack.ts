/**
 * Plain objects for tests that only need a middleware stack: a ctx with the
 * fields our middleware touches, a Koa-style compose, and a way to call a
 * registered tool the way a host does. Deliberately no model, no tool loop
 * and no adapter: how SISU itself runs tools is tested on the real SISU
 * (test/real-sisu), never on a copy of it here.
 */
import { fileURLToPath } from 'node:url';
import type { HostLogger } from '../../src/base/host.js';
import { recordingLogger, type RecordingLogger } from './logger.js';

export { recordingLogger, type LogEntry, type RecordingLogger } from './logger.js';

/** Absolute path of the example skills shipped in fixtures/skills. */
export const SKILLS_FIXTURES = fileURLToPath(new URL('../../fixtures/skills', import.meta.url));

/** Absolute path of the broken skills in fixtures/invalid. */
export const INVALID_FIXTURES = fileURLToPath(new URL('../../fixtures/invalid', import.meta.url));

/** The names of the example skills, sorted. */
export const FIXTURE_SKILL_NAMES = ['code-review', 'debug', 'deploy-staging', 'explain', 'test-gen'] as const;

export const DEFAULT_SYSTEM = 'You are a careful coding assistant.';

export interface StackMessage {
  role: string;
  content: string;
  [key: string]: unknown;
}

/**
 * What a host hands a tool handler as its second argument. SISU passes
 * `{ memory, signal, log, model, deps }`; our tools may use only these two.
 */
export interface ToolCallContext {
  signal?: AbortSignal;
  log?: HostLogger;
}

export interface StackTool {
  name: string;
  description?: string;
  schema: unknown;
  // Method syntax: a tool with narrower `args` (all of ours) still fits.
  handler(args: never, toolCtx: ToolCallContext): Promise<unknown>;
}

export interface StackRegistry {
  list(): StackTool[];
  get(name: string): StackTool | undefined;
  /** Adds the tool, replacing one of the same name (as SISU's registry does). */
  register(tool: StackTool): void;
  /** How many times `register` was called with this name: tells "once" from "every request". */
  timesRegistered(name: string): number;
}

export interface StackContext {
  messages: StackMessage[];
  tools: StackRegistry;
  state: Record<string, unknown>;
  log: RecordingLogger;
  signal: AbortSignal;
}

export type Next = () => Promise<void>;
export type StackMiddleware<C = StackContext> = (ctx: C, next: Next) => unknown;

export function toolRegistry(): StackRegistry {
  const tools = new Map<string, StackTool>();
  const registrations: string[] = [];
  return {
    list: () => [...tools.values()],
    get: (name) => tools.get(name),
    register(tool) {
      tools.set(tool.name, tool);
      registrations.push(tool.name);
    },
    timesRegistered: (name) => registrations.filter((n) => n === name).length,
  };
}

/** A system message followed by a user message. */
export function conversation(user: string, system: string = DEFAULT_SYSTEM): StackMessage[] {
  return [
    { role: 'system', content: system },
    { role: 'user', content: user },
  ];
}

export interface ContextInit {
  messages?: readonly StackMessage[];
  signal?: AbortSignal;
}

/**
 * A fresh request ctx. Messages are copied one by one, so a middleware that
 * edits the system message cannot leak the edit into a fixture shared by tests.
 */
export function createContext(init: ContextInit = {}): StackContext {
  return {
    messages: (init.messages ?? []).map((m) => ({ ...m })),
    tools: toolRegistry(),
    state: {},
    log: recordingLogger(),
    signal: init.signal ?? new AbortController().signal,
  };
}

/**
 * Koa-style composition: `next()` runs the rest; calling it twice from one
 * middleware rejects. The ctx type is StackContext unless given (never
 * inferred from the first middleware, which would narrow it to SkillsContext).
 */
export function compose<C = StackContext>(middlewares: ReadonlyArray<StackMiddleware<NoInfer<C>>>): (ctx: C, next?: Next) => Promise<void> {
  return (ctx, last) => {
    let called = -1;
    const dispatch = async (i: number): Promise<void> => {
      if (i <= called) throw new Error('next() called multiple times');
      called = i;
      const fn = i === middlewares.length ? last : middlewares[i];
      if (fn) await fn(ctx, () => dispatch(i + 1));
    };
    return dispatch(0);
  };
}

/** Runs `middlewares` on a fresh ctx holding `messages`, and returns the ctx. */
export async function runStack(
  middlewares: StackMiddleware | ReadonlyArray<StackMiddleware>,
  messages: readonly StackMessage[] = conversation('Please help.'),
): Promise<StackContext> {
  const ctx = createContext({ messages });
  await compose(typeof middlewares === 'function' ? [middlewares] : middlewares)(ctx);
  return ctx;
}

/**
 * Calls `tool` as a host does: with the arguments and a tool context of
 * `{ signal, log }` only, never the request ctx. Our tools answer in text;
 * anything else fails here, naming the tool.
 */
export async function invoke(tool: StackTool | undefined, args: unknown, toolCtx: ToolCallContext = {}): Promise<string> {
  if (!tool) throw new Error('invoke(): no such tool (was it registered on this ctx?)');
  const result = await tool.handler(args as never, toolCtx);
  if (typeof result !== 'string') throw new Error(`invoke(): ${tool.name} answered with ${typeof result}, not text`);
  return result;
}

/** Calls the tool registered on `ctx` under `name`, with the ctx's signal and logger as its tool context. */
export function callTool(ctx: StackContext, name: string, args: unknown): Promise<string> {
  return invoke(ctx.tools.get(name), args, { signal: ctx.signal, log: ctx.log });
}

/** The tool result messages, in order. */
export function toolMessages(ctx: { messages: readonly StackMessage[] }): StackMessage[] {
  return ctx.messages.filter((m) => m.role === 'tool');
}

/**
 * Type tests: SISU's real Ctx, tools and middleware signatures must accept
 * ours. `@sisu-ai/core` is not installed here, so its published shapes are
 * described below (structure only); `npm run typecheck` fails if they drift apart.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { createUseSkillTool, getSkills, skillsMiddleware, type SkillsContext, type SkillsState } from '../../src/index.js';

// --- The shape of @sisu-ai/core's public types (Ctx, Tool, ToolRegistry, Logger, Middleware).
type SisuMessage =
  | { role: 'system'; content: string; name?: string }
  | { role: 'user'; content: string; name?: string }
  | { role: 'assistant'; content: string; name?: string; tool_calls?: Array<{ id: string; name: string; arguments: unknown }> }
  | { role: 'tool'; content: string; tool_call_id: string; name?: string };
interface SisuLogger {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- mirrors SISU's published signature
  debug(...args: any[]): void;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- mirrors SISU's published signature
  info(...args: any[]): void;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- mirrors SISU's published signature
  warn(...args: any[]): void;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- mirrors SISU's published signature
  error(...args: any[]): void;
  span?(name: string, attrs?: Record<string, unknown>): void;
}
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- mirrors SISU's published signature
interface SisuTool<TArgs = any, TResult = unknown> {
  name: string;
  description?: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- mirrors SISU's published signature
  schema: any;
  handler: (args: TArgs, ctx: SisuCtx) => Promise<TResult>;
}
interface SisuToolRegistry {
  list(): SisuTool[];
  get(name: string): SisuTool | undefined;
  register(tool: SisuTool): void;
}
interface SisuCtx {
  input?: string;
  messages: SisuMessage[];
  model: { name: string; generate(...args: unknown[]): Promise<unknown> };
  tools: SisuToolRegistry;
  memory: { get(key: string): Promise<unknown>; set(key: string, value: unknown): Promise<void> };
  stream: { write(token: string): void; end(): void };
  state: Record<string, unknown>;
  signal: AbortSignal;
  log: SisuLogger;
}
type SisuMiddleware = (ctx: SisuCtx, next: () => Promise<void>) => unknown | Promise<unknown>;

describe('types line up with SISU', () => {
  it('SISU Ctx is assignable to SkillsContext, and the middleware fits agent.use()', () => {
    expectTypeOf<SisuCtx>().toExtend<SkillsContext>();
    const middleware = skillsMiddleware({ directories: ['fixtures/skills'] });
    expectTypeOf(middleware).toExtend<SisuMiddleware>();
    expect(typeof middleware).toBe('function');
  });

  it('use_skill can be registered in a SISU tool registry and getSkills reads a SISU ctx', () => {
    const tool = createUseSkillTool([]);
    expectTypeOf(tool).toExtend<SisuTool>();
    expectTypeOf<SisuCtx>().toExtend<Parameters<typeof getSkills>[0]>();
    expectTypeOf(getSkills({ state: {} })).toEqualTypeOf<SkillsState | undefined>();
    expect(getSkills({ state: {} })).toBeUndefined();
  });
});

/**
 * The host's (SISU-shaped) types, as far as this package touches them:
 * messages, loggers, tools and middleware. Structural, so SISU's real types
 * are assignable to them without a dependency on `@sisu-ai/core`. A leaf.
 */
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

export type Next = () => Promise<void>;

/**
 * SISU's `EmbeddingsProvider` (`@sisu-ai/core`), structurally: what
 * `createEmbeddingsClient`, `openAIEmbeddings()` and `ollamaEmbeddings()`
 * return. One vector per input, in order.
 */
export interface EmbeddingsProviderLike {
  embed(input: string[], options?: { model?: string; signal?: AbortSignal }): Promise<number[][]>;
}

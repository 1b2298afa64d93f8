/**
 * Types for mini-sisu.mjs, written by hand so TypeScript tests can import the
 * plain-JavaScript runtime with types. Self-contained on purpose: the runtime
 * stands in for SISU, so it must not borrow the package's own types.
 */

// ---------------------------------------------------------------------------
// Messages

export interface MiniMessage {
  role: string;
  content: string;
  [key: string]: unknown;
}

export interface ToolCall {
  id: string;
  name: string;
  /** An object, or a JSON string as OpenAI sends it. */
  arguments: unknown;
}

export interface AssistantMessage extends MiniMessage {
  role: 'assistant';
  tool_calls?: ToolCall[];
}

export interface ToolMessage extends MiniMessage {
  role: 'tool';
  tool_call_id: string;
  name: string;
}

// ---------------------------------------------------------------------------
// Tools

export interface MiniTool<TArgs = never> {
  name: string;
  description?: string;
  /** A zod 3 schema (anything with `parse`); other values skip validation. */
  schema: unknown;
  // Method syntax keeps handlers with narrower `args` types assignable.
  handler(args: TArgs, ctx: MiniContext): Promise<unknown>;
}

export interface MiniToolRegistry {
  /** Names passed to `register`, in call order, repeats included. */
  readonly registrations: string[];
  list(): MiniTool[];
  get(name: string): MiniTool | undefined;
  /** Adds the tool, replacing any tool of the same name. */
  register(tool: MiniTool): void;
  /** How many times `register` was called with this name. */
  timesRegistered(name: string): number;
}

// ---------------------------------------------------------------------------
// Logging, memory, stream

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'span';

export interface LogEntry {
  level: LogLevel;
  args: unknown[];
}

export interface RecordingLogger {
  readonly entries: LogEntry[];
  debug(...args: unknown[]): void;
  info(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  error(...args: unknown[]): void;
  span(name: string, attrs?: Record<string, unknown>): void;
}

export interface MiniMemory {
  get(key: string): Promise<unknown>;
  set(key: string, value: unknown): Promise<void>;
}

export interface MiniStream {
  readonly chunks: string[];
  readonly ended: boolean;
  write(token: string): void;
  end(): void;
}

// ---------------------------------------------------------------------------
// Model

export interface GenerateOptions {
  tools?: MiniTool[];
  toolChoice?: string;
  signal?: AbortSignal;
}

export interface ModelResponse {
  message: AssistantMessage;
}

export interface MiniModel {
  name: string;
  generate(messages: MiniMessage[], opts?: GenerateOptions): Promise<ModelResponse>;
}

/** A tool call as a script writes it: `id` is generated when left out. */
export interface ScriptedToolCall {
  id?: string;
  name: string;
  arguments?: unknown;
}

/** An assistant reply as a script writes it. */
export interface ScriptedReply {
  content?: string;
  tool_calls?: ScriptedToolCall[];
  [key: string]: unknown;
}

export type ScriptStep =
  | string
  | ScriptedReply
  | ((messages: MiniMessage[], opts: GenerateOptions) => string | ScriptedReply | Promise<string | ScriptedReply>);

export interface ScriptedCall {
  /** Deep copy of the messages as they were when the model was called. */
  messages: MiniMessage[];
  /** Content of the first system message, if any. */
  system: string | undefined;
  toolNames: string[];
  /** The tools as SISU's adapters would send them. */
  tools: ToolDefinition[];
  toolChoice: GenerateOptions['toolChoice'];
}

export interface ScriptedModel extends MiniModel {
  capabilities: { functionCall: boolean; streaming: boolean };
  readonly calls: ScriptedCall[];
  /** Steps not yet used. */
  readonly remaining: number;
}

// ---------------------------------------------------------------------------
// Context and middleware

export interface MiniContext {
  input: string | undefined;
  messages: MiniMessage[];
  model: MiniModel;
  tools: MiniToolRegistry;
  state: Record<string, unknown>;
  log: RecordingLogger;
  signal: AbortSignal;
  memory: MiniMemory;
  stream: MiniStream;
}

export interface ContextInit {
  messages?: MiniMessage[];
  model?: MiniModel;
  input?: string;
  signal?: AbortSignal;
}

export type Next = () => Promise<void>;

export type Middleware<C = MiniContext> = (ctx: C, next: Next) => Promise<void> | void;

export function compose<C>(middlewares: ReadonlyArray<Middleware<C>>): (ctx: C, next?: Next) => Promise<void>;

export function createContext(init?: ContextInit): MiniContext;

export function createToolRegistry(): MiniToolRegistry;

export function createRecordingLogger(): RecordingLogger;

export interface ToolCallingOptions {
  /** Rounds of tool execution before the loop gives up and throws. Default 6. */
  maxRounds?: number;
}

export function toolCalling(options?: ToolCallingOptions): Middleware<MiniContext>;

export function scriptedModel(steps: ReadonlyArray<ScriptStep>): ScriptedModel;

// ---------------------------------------------------------------------------
// Adapter view of tools

export interface JsonSchemaLike {
  type: 'object' | 'string' | 'number' | 'boolean' | 'array';
  description?: string;
  properties?: Record<string, JsonSchemaLike>;
  required?: string[];
  additionalProperties?: boolean;
  items?: JsonSchemaLike;
}

export interface ToolDefinition {
  name: string;
  description: string;
  parameters: JsonSchemaLike;
}

export function toJsonSchemaLikeSisu(schema: unknown): JsonSchemaLike;

export function toolDefinitionsLikeSisu(
  tools: ReadonlyArray<{ name: string; description?: string; schema?: unknown }>,
): ToolDefinition[];

/**
 * Types for scripted-model.mjs, so TypeScript tests can start the servers.
 * Self-contained: the servers stand in for providers, not for the package.
 */

/** A tool call the scripted model makes; `id` is generated when left out. */
export interface ScriptedToolCall {
  name: string;
  arguments?: Record<string, unknown>;
  id?: string;
}

/** Text, or tool calls (with optional text before them). */
export type ScriptedReply = string | { text?: string; toolCalls: ScriptedToolCall[] };

/** A message of the request, the same shape for both providers. */
export type NeutralMessage =
  | { role: 'user'; text: string }
  | { role: 'assistant'; text: string; toolCalls: Array<{ id: string; name: string; arguments: unknown }> }
  /** An OpenAI tool message, or one Anthropic tool_result block. */
  | { role: 'tool'; toolCallId: string; content: string };

export interface NeutralTool {
  name: string;
  description: string;
  /** OpenAI `function.parameters` or Anthropic `input_schema`, as sent. */
  parameters: Record<string, unknown> | undefined;
}

/** One request as the server received it. */
export interface ScriptedRequest {
  /** 0-based, in arrival order. */
  index: number;
  /** The parsed JSON body, exactly as the adapter sent it. */
  body: Record<string, unknown>;
  /** The system prompt: OpenAI system messages joined, or Anthropic's top-level `system`. */
  system: string;
  tools: NeutralTool[];
  /** The conversation without the system prompt. */
  messages: NeutralMessage[];
}

export type ScriptStep = ScriptedReply | ((request: ScriptedRequest) => ScriptedReply | Promise<ScriptedReply>);

/** Steps in request order, or one function answering every request. */
export type Script = ReadonlyArray<ScriptStep> | ((request: ScriptedRequest) => ScriptedReply | Promise<ScriptedReply>);

export interface ServerOptions {
  /** Requests answered before every further one gets a 400. Default 200. */
  maxRequests?: number;
  /** The model name echoed in responses. Default 'scripted-model'. */
  model?: string;
}

export interface ScriptedServer {
  provider: 'openai' | 'anthropic';
  /** `http://127.0.0.1:<port>`: the adapter's `baseUrl`. */
  url: string;
  /** Every request received, including those answered with a 400. */
  readonly requests: ScriptedRequest[];
  /** Protocol violations and script failures, each answered with a 400; empty when all went well. */
  readonly violations: string[];
  close(): Promise<void>;
}

export function startOpenAIServer(script: Script, options?: ServerOptions): Promise<ScriptedServer>;

export function startAnthropicServer(script: Script, options?: ServerOptions): Promise<ScriptedServer>;

/** The protocol checks alone: the problems with a request body, empty when it is valid. */
export const checkRequest: {
  openai(body: Record<string, unknown>): string[];
  anthropic(body: Record<string, unknown>): string[];
};

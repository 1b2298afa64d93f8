/**
 * The demo's fallback host: used only when neither `@sisu-ai/core` (installed
 * in the app) nor ../shared/sisu is available. It models the parts of SISU
 * 2.6 the demo touches, as read from SISU's code: Agent/compose, createCtx,
 * inputToMessage, execute (tool handlers get a ToolContext of
 * { memory, signal, log, model, deps }, arguments go through
 * `schema.parse`, results are stored as `JSON.stringify(result)`), and an
 * OpenAI adapter that POSTs to `<baseUrl>/v1/chat/completions` with fetch.
 * It is not SISU; the demo says so when it runs on it. No test relies on it.
 */
/* global AbortController, fetch */

export const HOST_NAME = 'demo/mini-sisu.mjs (a small model of SISU, not SISU)';

// ---------------------------------------------------------------------------
// Agent and middleware

export function compose(stack) {
  return (ctx, nextOuter) => {
    let index = -1;
    async function dispatch(i) {
      if (i <= index) throw new Error('next() called multiple times');
      index = i;
      const fn = stack[i] ?? nextOuter;
      if (fn) await fn(ctx, () => dispatch(i + 1));
    }
    return dispatch(0);
  };
}

export class Agent {
  #stack = [];
  use(middleware) {
    this.#stack.push(middleware);
    return this;
  }
  handler() {
    return compose(this.#stack);
  }
}

export function createCtx({ model, input, systemPrompt, signal, state }) {
  const tools = new Map();
  const memory = new Map();
  const quiet = () => {};
  return {
    input,
    messages: systemPrompt ? [{ role: 'system', content: systemPrompt }] : [],
    model,
    tools: {
      list: () => [...tools.values()],
      get: (name) => tools.get(name),
      register: (tool) => void tools.set(tool.name, tool),
    },
    memory: { get: async (key) => memory.get(key), set: async (key, value) => void memory.set(key, value) },
    stream: { write: quiet, end: quiet },
    state: state ?? {},
    signal: signal ?? new AbortController().signal,
    log: { debug: quiet, info: quiet, warn: quiet, error: quiet },
  };
}

export const inputToMessage = async (ctx, next) => {
  if (ctx.input) ctx.messages.push({ role: 'user', content: ctx.input });
  await next();
};

export function getExecutionResult(ctx) {
  return ctx.state.executionResult;
}

function parseArguments(args) {
  if (typeof args !== 'string') return args;
  try {
    return JSON.parse(args);
  } catch {
    return args;
  }
}

/** SISU's tool loop: the rest of the stack first, then model calls until one has no tool calls (12 rounds at most). */
export const execute = async (ctx, next) => {
  await next();
  const tools = ctx.tools.list();
  for (let round = 0; round < 12; round++) {
    const { message } = await ctx.model.generate(ctx.messages, { tools, toolChoice: tools.length ? 'auto' : 'none', signal: ctx.signal });
    if (!message.tool_calls?.length) {
      ctx.messages.push(message);
      ctx.state.executionResult = { message, text: message.content, rounds: round + 1 };
      return;
    }
    ctx.messages.push(message);
    for (const call of message.tool_calls) {
      const tool = ctx.tools.get(call.name);
      if (!tool) throw new Error(`Unknown tool: ${call.name}`);
      const raw = parseArguments(call.arguments);
      const args = typeof tool.schema?.parse === 'function' ? tool.schema.parse(raw) : raw;
      const toolCtx = { memory: ctx.memory, signal: ctx.signal, log: ctx.log, model: ctx.model, deps: ctx.state.toolDeps };
      const result = await tool.handler(args, toolCtx);
      ctx.messages.push({ role: 'tool', tool_call_id: call.id, name: call.name, content: JSON.stringify(result) });
    }
  }
  throw new Error('[execute] exceeded max rounds (12)');
};

// ---------------------------------------------------------------------------
// OpenAI adapter (Chat Completions over fetch)

/** zod 3 to JSON Schema as SISU's OpenAI adapter does it: by `_def.typeName`, a few types only. */
function toJsonSchema(schema) {
  const def = schema?._def;
  switch (def?.typeName) {
    case 'ZodString':
      return { type: 'string' };
    case 'ZodNumber':
      return { type: 'number' };
    case 'ZodBoolean':
      return { type: 'boolean' };
    case 'ZodArray':
      return { type: 'array', items: toJsonSchema(def.type) };
    case 'ZodOptional':
      return toJsonSchema(def.innerType);
    case 'ZodObject': {
      const shape = typeof def.shape === 'function' ? def.shape() : (def.shape ?? {});
      const properties = {};
      const required = [];
      for (const [key, value] of Object.entries(shape)) {
        properties[key] = toJsonSchema(value);
        const inner = value?._def?.typeName;
        if (inner !== 'ZodOptional' && inner !== 'ZodDefault') required.push(key);
      }
      return { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false };
    }
    default:
      return { type: 'object' };
  }
}

function toOpenAIMessage(message) {
  if (message.role === 'tool') return { role: 'tool', content: String(message.content ?? ''), tool_call_id: message.tool_call_id };
  if (message.role === 'assistant' && message.tool_calls?.length) {
    return {
      role: 'assistant',
      content: message.content ? message.content : null,
      tool_calls: message.tool_calls.map((call) => ({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: JSON.stringify(call.arguments ?? {}) },
      })),
    };
  }
  return { role: message.role, content: message.content ?? '' };
}

export function openAIAdapter({ model, apiKey, baseUrl }) {
  return {
    name: `openai:${model}`,
    capabilities: { functionCall: true, streaming: false },
    async generate(messages, options = {}) {
      const tools = (options.tools ?? []).map((tool) => ({
        type: 'function',
        function: { name: tool.name, description: tool.description, parameters: toJsonSchema(tool.schema) },
      }));
      const body = {
        model,
        messages: messages.map(toOpenAIMessage),
        temperature: 0.2,
        ...(tools.length ? { tools, tool_choice: options.toolChoice ?? 'auto' } : {}),
      };
      const response = await fetch(`${baseUrl.replace(/\/$/, '')}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: options.signal,
      });
      const data = await response.json();
      if (!response.ok) throw new Error(`OpenAI API error: ${response.status} — ${data?.error?.message ?? 'unknown error'}`);
      const reply = data.choices?.[0]?.message ?? {};
      const message = { role: 'assistant', content: reply.content ?? '' };
      if (reply.tool_calls?.length) {
        message.tool_calls = reply.tool_calls.map((call) => ({
          id: call.id,
          name: call.function?.name ?? '',
          arguments: parseArguments(call.function?.arguments),
        }));
      }
      return { message };
    },
  };
}

/**
 * A tiny, offline, SISU-shaped runtime: just enough of SISU's context,
 * middleware composition and tool-calling loop to exercise the skills
 * middleware without a network, an API key or `@sisu-ai/core`.
 *
 * Used by demo/run.mjs and (through mini-sisu.d.mts) by the TypeScript tests.
 * Plain JavaScript so the demo runs with `node` alone.
 */
/* global AbortController, structuredClone */

// ---------------------------------------------------------------------------
// Composition

/**
 * Koa-style composition: each middleware gets `(ctx, next)`; `next()` runs the
 * rest of the chain. Calling `next()` twice from one middleware rejects,
 * because running the downstream chain twice would duplicate side effects.
 *
 * @template C
 * @param {ReadonlyArray<(ctx: C, next: () => Promise<void>) => unknown>} middlewares
 * @returns {(ctx: C, next?: () => Promise<void>) => Promise<void>}
 */
export function compose(middlewares) {
  if (!Array.isArray(middlewares)) throw new TypeError('compose() expects an array of middleware functions');
  middlewares.forEach((mw, i) => {
    if (typeof mw !== 'function') throw new TypeError(`compose(): middleware at index ${i} is not a function`);
  });
  const chain = [...middlewares];
  return function composed(ctx, next) {
    let lastIndex = -1;
    function dispatch(i) {
      if (i <= lastIndex) return Promise.reject(new Error('next() called multiple times'));
      lastIndex = i;
      const fn = i === chain.length ? next : chain[i];
      if (!fn) return Promise.resolve();
      try {
        return Promise.resolve(fn(ctx, () => dispatch(i + 1))).then(() => undefined);
      } catch (err) {
        // A synchronous throw becomes a rejection so callers see one failure mode.
        return Promise.reject(err);
      }
    }
    return dispatch(0);
  };
}

// ---------------------------------------------------------------------------
// Context parts

/**
 * A tool registry. Registering an existing name replaces the tool (as a map
 * would); every call is recorded in `registrations` so tests can tell
 * "registered once" from "registered on every request".
 */
export function createToolRegistry() {
  /** @type {Map<string, { name: string, description?: string, schema?: unknown, handler: Function }>} */
  const tools = new Map();
  /** @type {string[]} */
  const registrations = [];
  return {
    registrations,
    list() {
      return [...tools.values()];
    },
    get(name) {
      return tools.get(name);
    },
    register(tool) {
      if (!tool || typeof tool.name !== 'string' || tool.name === '') {
        throw new TypeError('tools.register(): a tool needs a non-empty string `name`');
      }
      if (typeof tool.handler !== 'function') {
        throw new TypeError(`tools.register(): tool "${tool.name}" needs a handler function`);
      }
      tools.set(tool.name, tool);
      registrations.push(tool.name);
    },
    timesRegistered(name) {
      return registrations.filter((n) => n === name).length;
    },
  };
}

/** A logger that keeps every call, so tests can assert on warnings. */
export function createRecordingLogger() {
  /** @type {Array<{ level: string, args: unknown[] }>} */
  const entries = [];
  const record =
    (level) =>
    (...args) => {
      entries.push({ level, args });
    };
  return {
    entries,
    debug: record('debug'),
    info: record('info'),
    warn: record('warn'),
    error: record('error'),
    span: record('span'),
  };
}

function unconfiguredModel() {
  return {
    name: 'unconfigured',
    capabilities: { functionCall: true, streaming: false },
    async generate() {
      throw new Error('mini-sisu: no model configured; pass createContext({ model: scriptedModel([...]) })');
    },
  };
}

/**
 * A SISU-shaped request context.
 * Messages are copied (each one shallowly) so a middleware that edits the
 * system message cannot leak that edit into a fixture shared between tests.
 *
 * @param {{ messages?: Array<{ role: string, content: string }>, model?: object, input?: string, signal?: AbortSignal }} [init]
 */
export function createContext(init = {}) {
  const { messages = [], model, input, signal } = init;
  const memory = new Map();
  /** @type {string[]} */
  const chunks = [];
  const stream = {
    chunks,
    ended: false,
    write(token) {
      chunks.push(String(token));
    },
    end() {
      stream.ended = true;
    },
  };
  return {
    input,
    messages: messages.map((m) => ({ ...m })),
    model: model ?? unconfiguredModel(),
    tools: createToolRegistry(),
    state: {},
    log: createRecordingLogger(),
    signal: signal ?? new AbortController().signal,
    memory: {
      async get(key) {
        return memory.get(key);
      },
      async set(key, value) {
        memory.set(key, value);
      },
    },
    stream,
  };
}

// ---------------------------------------------------------------------------
// Tool-calling loop

function formatValidationError(err) {
  if (err && Array.isArray(err.issues)) {
    return err.issues
      .map((issue) => `${issue.path && issue.path.length ? issue.path.join('.') : '(root)'}: ${issue.message}`)
      .join('; ');
  }
  return err instanceof Error ? err.message : String(err);
}

async function runToolCall(ctx, call) {
  const tool = ctx.tools.get(call.name);
  if (!tool) {
    const known = ctx.tools.list().map((t) => t.name);
    return `Unknown tool "${call.name}". Available tools: ${known.length ? known.join(', ') : '(none)'}.`;
  }
  let args = call.arguments ?? {};
  if (typeof args === 'string') {
    // OpenAI sends arguments as a JSON string; adapters parse it before tools see it.
    try {
      args = args.trim() === '' ? {} : JSON.parse(args);
    } catch (err) {
      return `Invalid arguments for tool "${call.name}": not valid JSON (${err instanceof Error ? err.message : String(err)}).`;
    }
  }
  if (tool.schema && typeof tool.schema.parse === 'function') {
    try {
      args = tool.schema.parse(args);
    } catch (err) {
      return `Invalid arguments for tool "${call.name}": ${formatValidationError(err)}`;
    }
  }
  try {
    const result = await tool.handler(args, ctx);
    if (typeof result === 'string') return result;
    return JSON.stringify(result) ?? '';
  } catch (err) {
    // Reported to the model (so the loop can continue) and logged (so tests notice).
    ctx.log.error(`[mini-sisu] tool "${call.name}" threw`, err);
    return `Error from tool "${call.name}": ${err instanceof Error ? err.message : String(err)}`;
  }
}

/**
 * The tool-calling loop: ask the model, run the tools it asks for, append
 * the results, and repeat until it answers without tool calls. Throws when
 * the model still asks for tools after `maxRounds` rounds, so a runaway
 * script fails loudly instead of looping.
 *
 * @param {{ maxRounds?: number }} [options]
 */
export function toolCalling({ maxRounds = 6 } = {}) {
  if (!Number.isInteger(maxRounds) || maxRounds < 1) throw new TypeError('toolCalling(): maxRounds must be a whole number >= 1');
  return async function toolCallingMiddleware(ctx, next) {
    for (let round = 0; round <= maxRounds; round++) {
      ctx.signal?.throwIfAborted();
      const response = await ctx.model.generate(ctx.messages, {
        tools: ctx.tools.list(),
        toolChoice: 'auto',
        signal: ctx.signal,
      });
      const message = response.message;
      ctx.messages.push(message);
      const calls = message.tool_calls ?? [];
      if (calls.length === 0) {
        await next();
        return;
      }
      if (round === maxRounds) break;
      for (const call of calls) {
        const content = await runToolCall(ctx, call);
        ctx.messages.push({ role: 'tool', tool_call_id: call.id, name: call.name, content });
      }
    }
    throw new Error(`toolCalling(): the model still requested tools after ${maxRounds} rounds`);
  };
}

// ---------------------------------------------------------------------------
// Offline model

function toAssistantMessage(reply, callNumber) {
  if (typeof reply === 'string') return { role: 'assistant', content: reply };
  if (!reply || typeof reply !== 'object') {
    throw new TypeError(`scriptedModel: step ${callNumber} must give a string or an assistant message object`);
  }
  const message = { ...reply, role: 'assistant', content: reply.content ?? '' };
  if (reply.tool_calls) {
    message.tool_calls = reply.tool_calls.map((call, i) => ({
      ...call,
      id: call.id ?? `call_${callNumber}_${i + 1}`,
      arguments: call.arguments ?? {},
    }));
    if (message.tool_calls.length === 0) delete message.tool_calls;
  }
  return message;
}

/**
 * A model that replays a script. A step is an assistant message (or just its
 * text), or a function `(messages, opts) => message` for replies that depend
 * on what the model was shown, such as the skills catalog or a tool result.
 * Every call is recorded in `calls`.
 *
 * @param {ReadonlyArray<unknown>} steps
 */
export function scriptedModel(steps) {
  if (!Array.isArray(steps)) throw new TypeError('scriptedModel() expects an array of steps');
  const script = [...steps];
  /** @type {Array<Record<string, unknown>>} */
  const calls = [];
  let next = 0;
  return {
    name: 'scripted',
    capabilities: { functionCall: true, streaming: false },
    calls,
    get remaining() {
      return script.length - next;
    },
    async generate(messages, opts = {}) {
      opts.signal?.throwIfAborted();
      const tools = opts.tools ?? [];
      const system = messages.find((m) => m.role === 'system');
      calls.push({
        // A snapshot: later pushes to ctx.messages must not rewrite history.
        messages: structuredClone(messages),
        system: system ? system.content : undefined,
        toolNames: tools.map((t) => t.name),
        tools: toolDefinitionsLikeSisu(tools),
        toolChoice: opts.toolChoice,
      });
      if (next >= script.length) {
        throw new Error(`scriptedModel: call ${calls.length} has no scripted step (the script has ${script.length})`);
      }
      const step = script[next++];
      const reply = typeof step === 'function' ? await step(messages, opts) : step;
      return { message: toAssistantMessage(reply, calls.length) };
    },
  };
}

// ---------------------------------------------------------------------------
// Tool schemas as a provider adapter sees them

/**
 * Converts a tool's zod schema to JSON Schema the way SISU's OpenAI and
 * Anthropic adapters do: by zod 3's `_def.typeName`, knowing only objects,
 * strings, numbers, booleans, arrays and optionals. Anything else (enums,
 * effects, defaults, zod 4 schemas) degrades to `{ type: 'object' }`, which is
 * exactly what a model would then be sent, so tests should check it.
 *
 * @param {unknown} schema
 */
export function toJsonSchemaLikeSisu(schema) {
  const def = schema && typeof schema === 'object' ? schema._def : undefined;
  const typeName = def && typeof def === 'object' ? def.typeName : undefined;
  let out;
  switch (typeName) {
    case 'ZodObject': {
      const shape = typeof def.shape === 'function' ? def.shape() : (def.shape ?? {});
      const properties = {};
      const required = [];
      for (const [key, value] of Object.entries(shape)) {
        properties[key] = toJsonSchemaLikeSisu(value);
        if (value?._def?.typeName !== 'ZodOptional') required.push(key);
      }
      out = { type: 'object', properties, required, additionalProperties: false };
      break;
    }
    case 'ZodString':
      out = { type: 'string' };
      break;
    case 'ZodNumber':
      out = { type: 'number' };
      break;
    case 'ZodBoolean':
      out = { type: 'boolean' };
      break;
    case 'ZodArray':
      out = { type: 'array', items: toJsonSchemaLikeSisu(def.type) };
      break;
    case 'ZodOptional':
      out = { ...toJsonSchemaLikeSisu(def.innerType) };
      break;
    default:
      return { type: 'object' };
  }
  if (typeof def.description === 'string' && def.description !== '') out.description = def.description;
  return out;
}

/**
 * The tool list as an adapter sends it: name, description, parameters.
 *
 * @param {ReadonlyArray<{ name: string, description?: string, schema?: unknown }>} tools
 */
export function toolDefinitionsLikeSisu(tools) {
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description ?? '',
    parameters: toJsonSchemaLikeSisu(tool.schema),
  }));
}

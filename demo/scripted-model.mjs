/**
 * Scripted model servers on 127.0.0.1: one speaks OpenAI Chat Completions
 * (`POST /v1/chat/completions`), one Anthropic Messages (`POST /v1/messages`).
 * Point SISU's real adapters at `server.url` and the agent crosses the same
 * HTTP path a user's model does.
 *
 * Contract:
 * - A script is a list of steps (one per request, in order) or one function
 *   called for every request. A step is a reply or a function of the request
 *   giving a reply. A reply is text (a string) or `{ text?, toolCalls }`.
 * - Every request body is recorded in `requests`, with a provider-neutral view
 *   (system text, tools, messages) so one test reads both providers alike.
 * - Every request is checked against the provider's protocol first. A
 *   violation is recorded in `violations` and answered HTTP 400 with the
 *   provider's error body, so the adapter throws as it would against the real
 *   provider. A missing or failing script step is answered the same way.
 * - Bounded: at most `maxRequests` requests and 8 MB per body; `close()` stops
 *   the server and drops kept-alive connections. The server never calls out.
 */
/* global Buffer */
import http from 'node:http';

const MAX_BODY_BYTES = 8 * 1024 * 1024;
const DEFAULT_MAX_REQUESTS = 200;

// ---------------------------------------------------------------------------
// OpenAI Chat Completions

/** OpenAI rejects longer ids ("Expected a string with maximum length 40"). */
const OPENAI_ID = /^[A-Za-z0-9_-]{1,40}$/;
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

function checkOpenAI(body) {
  const problems = [];
  if (typeof body.model !== 'string' || body.model === '') problems.push('model: you must provide a model parameter');
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    problems.push('messages: expected a non-empty array');
    return problems;
  }
  // Tool calls of the latest assistant message not answered yet, and where they were made.
  let open = new Set();
  let openAt = -1;
  const unanswered = () =>
    `messages[${openAt}]: an assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. ` +
    `The following tool_call_ids did not have response messages: ${[...open].join(', ')}`;
  body.messages.forEach((message, i) => {
    const at = `messages[${i}]`;
    if (message?.role === 'tool') {
      if (!open.has(message.tool_call_id)) {
        problems.push(
          `${at}: messages with role 'tool' must be a response to a preceding message with 'tool_calls' ` +
            `(no open tool call has id ${JSON.stringify(message.tool_call_id)})`,
        );
      }
      open.delete(message.tool_call_id);
      return;
    }
    if (open.size > 0) problems.push(unanswered());
    open = new Set();
    if (!['system', 'developer', 'user', 'assistant'].includes(message?.role)) {
      problems.push(`${at}.role: invalid value ${JSON.stringify(message?.role)}`);
      return;
    }
    if (message.role !== 'assistant' || message.tool_calls === undefined) return;
    if (!Array.isArray(message.tool_calls) || message.tool_calls.length === 0) {
      problems.push(`${at}.tool_calls: expected an array with minimum length 1`);
      return;
    }
    openAt = i;
    message.tool_calls.forEach((call, j) => {
      const cat = `${at}.tool_calls[${j}]`;
      if (typeof call?.id !== 'string' || !OPENAI_ID.test(call.id)) {
        problems.push(`${cat}.id: ${JSON.stringify(call?.id)} is invalid: expected at most 40 characters of letters, digits, '_' and '-'`);
      }
      if (call?.type !== 'function') problems.push(`${cat}.type: expected 'function'`);
      if (typeof call?.function?.name !== 'string') problems.push(`${cat}.function.name: expected a string`);
      if (typeof call?.function?.arguments !== 'string') problems.push(`${cat}.function.arguments: expected a JSON string`);
      if (open.has(call?.id)) problems.push(`${cat}.id: duplicate tool call id ${JSON.stringify(call.id)}`);
      open.add(call?.id);
    });
  });
  if (open.size > 0) problems.push(unanswered());
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) problems.push('tools: expected an array');
    else checkTools(body.tools, problems, (tool) => (tool?.type === 'function' ? tool.function : undefined), 'parameters');
  }
  return problems;
}

function viewOpenAI(body) {
  const messages = [];
  let system = '';
  for (const message of Array.isArray(body.messages) ? body.messages : []) {
    if (message?.role === 'system' || message?.role === 'developer') {
      system += (system ? '\n' : '') + textOf(message.content);
    } else if (message?.role === 'tool') {
      messages.push({ role: 'tool', toolCallId: message.tool_call_id, content: textOf(message.content) });
    } else if (message?.role === 'assistant') {
      const toolCalls = (message.tool_calls ?? []).map((call) => ({
        id: call?.id,
        name: call?.function?.name,
        arguments: parseJson(call?.function?.arguments),
      }));
      messages.push({ role: 'assistant', text: textOf(message.content), toolCalls });
    } else {
      messages.push({ role: 'user', text: textOf(message?.content) });
    }
  }
  const tools = (Array.isArray(body.tools) ? body.tools : []).map((tool) => ({
    name: tool?.function?.name,
    description: tool?.function?.description ?? '',
    parameters: tool?.function?.parameters,
  }));
  return { system, tools, messages };
}

function answerOpenAI(reply, id, model) {
  const toolCalls = reply.toolCalls.map((call) => ({
    id: call.id ?? id('call'),
    type: 'function',
    function: { name: call.name, arguments: JSON.stringify(call.arguments ?? {}) },
  }));
  const message = { role: 'assistant', content: toolCalls.length && !reply.text ? null : reply.text, refusal: null };
  if (toolCalls.length) message.tool_calls = toolCalls;
  return {
    id: id('chatcmpl'),
    object: 'chat.completion',
    created: 0,
    model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: toolCalls.length ? 'tool_calls' : 'stop' }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };
}

const openAI = {
  name: 'openai',
  path: '/v1/chat/completions',
  authorized: (headers) => /^Bearer \S+/.test(headers.authorization ?? ''),
  check: checkOpenAI,
  view: viewOpenAI,
  answer: answerOpenAI,
  error: (message, type = 'invalid_request_error') => ({ error: { message, type, param: null, code: null } }),
};

// ---------------------------------------------------------------------------
// Anthropic Messages

const ANTHROPIC_ID = /^[a-zA-Z0-9_-]+$/;

function blocksOf(content) {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}

function checkAnthropic(body) {
  const problems = [];
  if (typeof body.model !== 'string' || body.model === '') problems.push('model: Field required');
  if (typeof body.max_tokens !== 'number') problems.push('max_tokens: Field required');
  if (body.system !== undefined && typeof body.system !== 'string' && !Array.isArray(body.system)) {
    problems.push('system: Input should be a valid string or a list of text blocks');
  }
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    problems.push('messages: at least one message is required');
    return problems;
  }
  // tool_use ids of the previous (assistant) message: the next message must answer them all.
  let pending = [];
  body.messages.forEach((message, i) => {
    const at = `messages.${i}`;
    const role = message?.role;
    if (role !== 'user' && role !== 'assistant') {
      problems.push(`${at}.role: Input should be 'user' or 'assistant' (a system prompt goes in the top-level \`system\` parameter)`);
    }
    if (i === 0 && role !== 'user') problems.push('messages: first message must use the "user" role');
    if (i > 0 && role === body.messages[i - 1]?.role) {
      problems.push(
        `messages: roles must alternate between "user" and "assistant", but found multiple "${role}" roles in a row (at ${at})`,
      );
    }
    const blocks = blocksOf(message?.content);
    const isFinalAssistant = role === 'assistant' && i === body.messages.length - 1;
    if (!Array.isArray(blocks) || (blocks.length === 0 && !isFinalAssistant)) {
      problems.push(`${at}: all messages must have non-empty content except for the optional final assistant message`);
    }
    const answered = new Set();
    const uses = [];
    let sawOther = false;
    (Array.isArray(blocks) ? blocks : []).forEach((block, j) => {
      const bat = `${at}.content.${j}`;
      if (block?.type === 'text') {
        if (typeof block.text !== 'string' || block.text === '') problems.push(`${bat}: text content blocks must be non-empty`);
        sawOther = true;
      } else if (block?.type === 'tool_use') {
        if (role !== 'assistant') problems.push(`${bat}: tool_use blocks may only appear in assistant messages`);
        if (typeof block.id !== 'string' || !ANTHROPIC_ID.test(block.id)) {
          problems.push(`${bat}.id: String should match pattern '^[a-zA-Z0-9_-]+$' (got ${JSON.stringify(block.id)})`);
        }
        if (typeof block.name !== 'string' || !TOOL_NAME.test(block.name)) problems.push(`${bat}.name: invalid tool name`);
        if (!block.input || typeof block.input !== 'object' || Array.isArray(block.input)) {
          problems.push(`${bat}.input: Input should be a valid dictionary`);
        }
        uses.push(block.id);
      } else if (block?.type === 'tool_result') {
        if (role !== 'user') problems.push(`${bat}: tool_result blocks may only appear in user messages`);
        if (!pending.includes(block.tool_use_id)) {
          problems.push(
            `${bat}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${block.tool_use_id}. ` +
              'Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
          );
        }
        if (sawOther) problems.push(`${bat}: tool_result blocks must come first in the user message, before any text`);
        answered.add(block.tool_use_id);
      } else {
        sawOther = true;
      }
    });
    const missing = pending.filter((id) => !answered.has(id));
    if (missing.length > 0) {
      problems.push(`${at}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}`);
    }
    pending = role === 'assistant' ? uses : [];
  });
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) problems.push('tools: Input should be a valid list');
    else checkTools(body.tools, problems, (tool) => tool, 'input_schema');
  }
  return problems;
}

function viewAnthropic(body) {
  const system = typeof body.system === 'string' ? body.system : (body.system ?? []).map((b) => b?.text ?? '').join('\n');
  const messages = [];
  for (const message of Array.isArray(body.messages) ? body.messages : []) {
    const blocks = blocksOf(message?.content) ?? [];
    const text = blocks
      .filter((b) => b?.type === 'text')
      .map((b) => b.text)
      .join('');
    if (message?.role === 'assistant') {
      const toolCalls = blocks.filter((b) => b?.type === 'tool_use').map((b) => ({ id: b.id, name: b.name, arguments: b.input }));
      messages.push({ role: 'assistant', text, toolCalls });
      continue;
    }
    // One neutral tool message per tool_result block, so both providers read alike.
    for (const block of blocks.filter((b) => b?.type === 'tool_result')) {
      messages.push({ role: 'tool', toolCallId: block.tool_use_id, content: textOf(block.content) });
    }
    if (text !== '' || !blocks.some((b) => b?.type === 'tool_result')) messages.push({ role: 'user', text });
  }
  const tools = (Array.isArray(body.tools) ? body.tools : []).map((tool) => ({
    name: tool?.name,
    description: tool?.description ?? '',
    parameters: tool?.input_schema,
  }));
  return { system, tools, messages };
}

function answerAnthropic(reply, id, model) {
  const content = [];
  if (reply.text) content.push({ type: 'text', text: reply.text });
  for (const call of reply.toolCalls) {
    content.push({ type: 'tool_use', id: call.id ?? id('toolu'), name: call.name, input: call.arguments ?? {} });
  }
  return {
    id: id('msg'),
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: reply.toolCalls.length ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  };
}

const anthropic = {
  name: 'anthropic',
  path: '/v1/messages',
  authorized: (headers) => typeof headers['x-api-key'] === 'string' && typeof headers['anthropic-version'] === 'string',
  check: checkAnthropic,
  view: viewAnthropic,
  answer: answerAnthropic,
  error: (message, type = 'invalid_request_error') => ({ type: 'error', error: { type, message } }),
};

// ---------------------------------------------------------------------------
// Shared

function checkTools(tools, problems, definitionOf, schemaKey) {
  const names = new Set();
  tools.forEach((tool, i) => {
    const definition = definitionOf(tool);
    const at = `tools[${i}]`;
    if (!definition) {
      problems.push(`${at}: expected { type: 'function', function: { name, parameters } }`);
      return;
    }
    if (typeof definition.name !== 'string' || !TOOL_NAME.test(definition.name)) problems.push(`${at}.name: invalid tool name`);
    if (names.has(definition.name)) problems.push(`${at}.name: tool names must be unique (${definition.name})`);
    names.add(definition.name);
    if (definition[schemaKey]?.type !== 'object') {
      problems.push(`${at}.${schemaKey}.type: expected 'object', got ${JSON.stringify(definition[schemaKey]?.type)}`);
    }
  });
}

function textOf(content) {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => (typeof part === 'string' ? part : (part?.text ?? ''))).join('');
  return '';
}

function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function normalizeReply(reply) {
  if (typeof reply === 'string') return { text: reply, toolCalls: [] };
  if (reply && typeof reply === 'object' && Array.isArray(reply.toolCalls)) {
    return { text: typeof reply.text === 'string' ? reply.text : '', toolCalls: reply.toolCalls };
  }
  throw new TypeError('a scripted reply is a string or { text?, toolCalls: [{ name, arguments, id? }] }');
}

function send(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error(`request body over ${MAX_BODY_BYTES} bytes`));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

async function startServer(provider, script, options = {}) {
  if (typeof script !== 'function' && !Array.isArray(script)) {
    throw new TypeError('a script is an array of steps or a function of the request');
  }
  const steps = Array.isArray(script) ? [...script] : undefined;
  const maxRequests = options.maxRequests ?? DEFAULT_MAX_REQUESTS;
  const model = options.model ?? 'scripted-model';
  const requests = [];
  const violations = [];
  let counter = 0;
  const id = (prefix) => `${prefix}_${++counter}`;

  async function handle(req, res) {
    const fail = (status, message, type) => send(res, status, provider.error(message, type));
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'POST' || path !== provider.path) return fail(404, `no route for ${req.method} ${path}`, 'not_found_error');
    if (!provider.authorized(req.headers)) return fail(401, 'missing authentication headers', 'authentication_error');
    let text;
    try {
      text = await readBody(req);
    } catch (error) {
      return fail(413, error.message, 'request_too_large');
    }
    if (requests.length >= maxRequests) {
      violations.push(`more than ${maxRequests} requests: is the agent looping?`);
      return fail(400, `the scripted model takes at most ${maxRequests} requests`);
    }
    const body = parseJson(text);
    if (!body || typeof body !== 'object') return fail(400, 'the request body is not JSON');
    const request = { index: requests.length, body, ...provider.view(body) };
    requests.push(request);
    const problems = provider.check(body);
    if (problems.length > 0) {
      for (const problem of problems) violations.push(`request ${request.index + 1}: ${problem}`);
      return fail(400, problems.join('; '));
    }
    const step = steps ? steps[request.index] : script;
    if (step === undefined) {
      violations.push(`request ${request.index + 1}: no scripted reply (the script has ${steps.length})`);
      return fail(400, `scripted model: no reply for request ${request.index + 1}`);
    }
    let reply;
    try {
      reply = normalizeReply(typeof step === 'function' ? await step(request) : step);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      violations.push(`request ${request.index + 1}: the script failed: ${message}`);
      return fail(400, `scripted model: ${message}`);
    }
    return send(res, 200, provider.answer(reply, id, model));
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((error) => send(res, 400, provider.error(String(error))));
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address();
  return {
    provider: provider.name,
    url: `http://127.0.0.1:${port}`,
    requests,
    violations,
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** An OpenAI Chat Completions server; give its `url` to `openAIAdapter({ baseUrl })`. */
export function startOpenAIServer(script, options) {
  return startServer(openAI, script, options);
}

/** An Anthropic Messages server; give its `url` to `anthropicAdapter({ baseUrl, maxRetries: 0 })`. */
export function startAnthropicServer(script, options) {
  return startServer(anthropic, script, options);
}

/** The protocol checks alone, for tests of the checks themselves: a list of problems, empty when the body is valid. */
export const checkRequest = { openai: checkOpenAI, anthropic: checkAnthropic };

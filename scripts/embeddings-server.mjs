/**
 * An OpenAI-compatible embeddings server on 127.0.0.1 (`POST /v1/embeddings`,
 * as OpenAI documents it): point SISU's real `createEmbeddingsClient` (or
 * `openAIEmbeddings({ baseUrl })`) at `server.url` and the vectors cross the
 * same HTTP path a user's embedder does. The vectors come from `embed(texts,
 * model)`: a test's deterministic model, or real word vectors
 * (scripts/embeddings-recall.mjs).
 *
 * Every request is checked against the protocol first (a bearer key, JSON,
 * `model` a non-empty string, `input` a non-empty string or list of at most
 * 2,048 non-empty strings, `encoding_format` "float" when given); a violation
 * is recorded in `violations` and answered 400 with OpenAI's error body.
 * `fault(request)` may answer instead: `{ status, message }` for an error,
 * 'hang' for no answer until `close()`. Every request is recorded in `requests`.
 */
/* global Buffer */
import http from 'node:http';

const MAX_BODY_BYTES = 16 * 1024 * 1024;
const MAX_INPUTS = 2048;

function checkRequest(headers, body) {
  const problems = [];
  if (!/^Bearer \S+/.test(headers.authorization ?? '')) problems.push('You did not provide an API key (Authorization: Bearer).');
  if (!String(headers['content-type'] ?? '').startsWith('application/json')) problems.push('Content-Type must be application/json');
  if (typeof body.model !== 'string' || body.model === '') problems.push('model: you must provide a model parameter');
  const input = typeof body.input === 'string' ? [body.input] : body.input;
  if (!Array.isArray(input) || input.length === 0) problems.push('input: expected a string or a non-empty array of strings');
  else if (input.length > MAX_INPUTS) problems.push(`input: at most ${MAX_INPUTS} inputs per request`);
  else if (input.some((text) => typeof text !== 'string' || text === '')) problems.push('input: every input must be a non-empty string');
  if (body.encoding_format !== undefined && body.encoding_format !== 'float') problems.push('encoding_format: only "float" is served here');
  return { problems, input: Array.isArray(input) ? input : [] };
}

function send(response, status, value) {
  const text = JSON.stringify(value);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

function openAIError(message, type = 'invalid_request_error') {
  return { error: { message, type, param: null, code: null } };
}

/** One request's answer: the protocol checked, then a fault, the vectors, or an error body. */
async function answer(state, embed, options, { request, response, text, size }) {
  const { requests, violations, hanging } = state;
  if (request.method !== 'POST' || request.url !== '/v1/embeddings')
    return send(response, 404, openAIError(`no route ${request.method} ${request.url}`));
  if (size > MAX_BODY_BYTES) return send(response, 413, openAIError('request too large'));
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    violations.push('body is not JSON');
    return send(response, 400, openAIError('We could not parse the JSON body of your request.'));
  }
  const { problems, input } = checkRequest(request.headers, body ?? {});
  const recorded = { model: body?.model, input, headers: request.headers };
  requests.push(recorded);
  if (problems.length > 0) {
    violations.push(...problems);
    return send(response, problems[0].startsWith('You did not') ? 401 : 400, openAIError(problems.join('; ')));
  }
  const fault = options.fault?.(recorded, requests.length);
  if (fault === 'hang') {
    hanging.add(response);
    return undefined;
  }
  if (fault) return send(response, fault.status, openAIError(fault.message, 'server_error'));
  try {
    const vectors = await embed(input, body.model);
    const tokens = input.reduce((sum, t) => sum + t.split(/\s+/).length, 0);
    return send(response, 200, {
      object: 'list',
      data: vectors.map((embedding, index) => ({ object: 'embedding', embedding, index })),
      model: body.model,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    });
  } catch (error) {
    return send(response, 500, openAIError(error instanceof Error ? error.message : String(error), 'server_error'));
  }
}

/**
 * Starts the server. `embed(texts, model)` gives one vector (a number list)
 * per text; `options.fault(request)` may answer a request instead.
 */
export function startEmbeddingsServer(embed, options = {}) {
  const state = { requests: [], violations: [], hanging: new Set() };
  const server = http.createServer((request, response) => {
    const chunks = [];
    let size = 0;
    request.on('data', (chunk) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    request.on('end', () => void answer(state, embed, options, { request, response, text: Buffer.concat(chunks).toString('utf8'), size }));
  });
  const { requests, violations, hanging } = state;
  // Longer than any pause between a client's calls: a kept-alive socket the server closed under a
  // client's next request fails that request ("fetch failed"), which is the client's race, not the protocol's.
  server.keepAliveTimeout = 60_000;
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({
        url: `http://127.0.0.1:${port}`,
        requests,
        violations,
        close() {
          for (const response of hanging) response.destroy();
          hanging.clear();
          server.closeAllConnections?.();
          return new Promise((done) => server.close(() => done()));
        },
      });
    });
  });
}

// The bench's requests and the per-request measurements that issue 29's rows
// take (bench/run.mjs): the same texts, the same loops, for any build of the
// package, so `npm run bench -- --requests-only --base=<build>` measures two
// builds by turns in one run exactly as the full bench measures one.
import { performance } from 'node:perf_hooks';
import { setImmediate } from 'node:timers';
import { plainContext, recordingLogger } from './plain-ctx.mjs';
import { median, timeAsync } from './stats.mjs';

/** Each is sent with a number after it, so no two requests are alike. */
export const REQUESTS = [
  'review my pull request before I merge it',
  'deploy the docker images to production',
  'summarize these meeting notes',
  'the data pipelines keep failing, debug them',
  'draft release notes for version 2',
  'validate our api schemas',
  'convert this spreadsheet to a chart',
  'audit contracts for compliance',
  'write unit tests for the parser',
  'optimize slow sql queries in the monorepo',
];
export const requestText = (i) => `${REQUESTS[i % REQUESTS.length]} (${i})`;

/** A plain request ctx (bench/plain-ctx.mjs) whose logger keeps its entries: discovery time is read from them. */
export function createContext({ messages = [] } = {}) {
  return plainContext(messages, recordingLogger());
}

/** The i-th request: a system prompt and one user message. */
export function ctxFor(i) {
  return createContext({
    messages: [
      { role: 'system', content: 'You are a careful assistant.' },
      { role: 'user', content: requestText(i) },
    ],
  });
}

export const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

/** `requests` timings of `handle` (ms each), after 200 requests of warm-up (JIT and caches). */
export async function sampleRequests(handle, requests) {
  for (let i = 0; i < 200; i++) await handle(ctxFor(i));
  const samples = [];
  for (let i = 0; i < requests; i++) {
    const ctx = ctxFor(i + 200);
    const { ms } = await timeAsync(() => handle(ctx));
    samples.push(ms);
  }
  return samples;
}

/**
 * Requests while the middleware of `lib` reads the instructions for ranking
 * (issue 23): after a first request, the reading is started at once (instead
 * of a second later) and requests arrive one after another, each on its own
 * turn of the event loop, as a server's would, until it is done. A request's
 * latency runs from its arrival to its answer, so it includes waiting for
 * whatever the reading does on the main thread meanwhile. Then as many
 * requests once it is done.
 */
export async function duringBodyIndexing(lib, root) {
  const middleware = lib.skillsMiddleware({ directories: [root] });
  await middleware(ctxFor(0), async () => {});
  for (let i = 0; i < 200; i++) await middleware(ctxFor(i), async () => {}); // warm-up: the ranker is built
  const arrive = () => new Promise((resolve) => setImmediate(resolve));
  const timed = async (i) => {
    const start = performance.now();
    await arrive();
    await middleware(ctxFor(i), async () => {});
    return performance.now() - start;
  };
  let done = false;
  const started = performance.now();
  const indexing = middleware.instructionsRanked().then(() => {
    done = true;
  });
  const during = [];
  while (!done) during.push(await timed(during.length + 200));
  await indexing;
  const indexingMs = performance.now() - started;
  const after = [];
  for (let i = 0; i < during.length; i++) after.push(await timed(i + 200));
  const sortedDuring = [...during].sort((a, b) => a - b);
  const sortedAfter = [...after].sort((a, b) => a - b);
  return {
    indexingMs,
    requests: during.length,
    medianMs: median(during),
    p99Ms: percentile(sortedDuring, 0.99),
    maxMs: sortedDuring.at(-1),
    afterMedianMs: median(after),
    afterP99Ms: percentile(sortedAfter, 0.99),
  };
}

// CPU profile of the middleware's request at 2,000 real-shaped skills, in
// process, once ranking reads the instructions (issue 29: where a request's
// 0.4-0.7 ms go beyond rank()), or while they are read:
//   npx tsup --silent && node bench/profile-request.mjs [ranked|during] [requests=3000] [top=30] [--build=dist/index.js]
// Writes the library to a temporary folder, makes one middleware, answers
// the bench's requests (bench/run.mjs's texts) under the inspector's CPU
// profiler and prints the self time by function and by src/ module.
import { mkdtemp, rm } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setImmediate } from 'node:timers';
import { pathToFileURL } from 'node:url';
import { fileKey, functionKey, printTotals, selfTimes } from './profile-summary.mjs';
import { loadCorpus, writeRealWorkload } from './realshape.mjs';
import { median } from './stats.mjs';
import { ctxFor } from './requests.mjs';

const args = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
const [phase = 'ranked', count = '3000', top = '30'] = args;
const build = process.argv.find((arg) => arg.startsWith('--build='))?.slice('--build='.length) ?? 'dist/index.js';
const api = await import(pathToFileURL(resolve(build)).href);

const corpus = await loadCorpus();
if (!corpus) {
  console.log('skipped: ../shared/corpus not found');
  process.exit(0);
}
const temp = await mkdtemp(join(tmpdir(), 'mw-skills-profile-request-'));
try {
  const { root } = await writeRealWorkload(join(temp, 'real-2000'), 2000, corpus);
  const middleware = api.skillsMiddleware({ directories: [root] });
  await middleware(ctxFor(0), async () => {});
  for (let i = 0; i < 300; i++) await middleware(ctxFor(i), async () => {});
  if (phase === 'ranked') await middleware.instructionsRanked();
  for (let i = 0; i < 300; i++) await middleware(ctxFor(i), async () => {});
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
  const times = [];
  let done = false;
  const reading = phase === 'during' ? middleware.instructionsRanked().then(() => (done = true)) : undefined;
  for (let i = 0; phase === 'during' ? !done : i < Number(count); i++) {
    const start = performance.now();
    await new Promise((next) => setImmediate(next));
    await middleware(ctxFor(1000 + i), async () => {});
    times.push(performance.now() - start);
  }
  await reading;
  const { profile } = await session.post('Profiler.stop');
  session.disconnect();
  const sorted = [...times].sort((a, b) => a - b);
  console.log(
    `${phase}: ${times.length} requests, median ${median(times).toFixed(3)} ms, p99 ${sorted[Math.floor(sorted.length * 0.99)].toFixed(2)} ms`,
  );
  const byFunction = new Map();
  const byFile = new Map();
  selfTimes(profile, functionKey, byFunction);
  selfTimes(profile, fileKey, byFile);
  printTotals('self time by function', byFunction, Number(top));
  printTotals('self time by module', byFile, 20);
} finally {
  await rm(temp, { recursive: true, force: true });
}

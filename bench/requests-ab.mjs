// `npm run bench -- --requests-only [--base=<build's index.js>] [--rounds=N]`: issue 29's per-request rows at
// 2,000 real-shaped skills alone (bench/requests.mjs: the ranked catalog's median, requests while the
// instructions are read), written to bench-results/requests-only.json. With --base, that build (e.g. main's,
// built into bench-results/ab/base/) is measured too, the two by turns in each round, so the before/after
// ratios come from one run under one load.
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadCorpus, writeRealWorkload } from './realshape.mjs';
import { ctxFor, duringBodyIndexing, sampleRequests } from './requests.mjs';
import { median } from './stats.mjs';

const FIGURES = ['rankedMedianMs', 'p99Ms', 'maxMs', 'afterMedianMs', 'afterP99Ms'];

/** One round of one build: the ranked catalog's median over `requests` (as bench/run.mjs's row), then the reading. */
async function measure(lib, root, requests) {
  const middleware = lib.skillsMiddleware({ directories: [root] });
  await middleware(ctxFor(0), async () => {});
  const samples = await sampleRequests((ctx) => middleware(ctx, async () => {}), requests);
  const during = await duringBodyIndexing(lib, root);
  return { rankedMedianMs: median(samples), ...during };
}

export async function benchRequestsAB({ temp, row, results, log, requests, base, rounds }) {
  const corpus = await loadCorpus();
  if (!corpus) {
    row('requests', 'skipped: ../shared/corpus not found', 0, '', '(skipped)');
    return;
  }
  log('[bench] writing 2000 real-shaped skills...');
  const { root } = await writeRealWorkload(join(temp, 'real-2000'), 2000, corpus);
  const builds = [{ label: 'this build', lib: await import('../dist/index.js') }];
  if (base) builds.unshift({ label: `base ${base}`, lib: await import(pathToFileURL(resolve(base)).href) });
  const runs = builds.map(() => []);
  results.requestsOnly = { rounds, requests, loadAverages: [] };
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < builds.length; k++) {
      const b = (round + k) % builds.length;
      results.requestsOnly.loadAverages.push(loadavg()[0]);
      log(`[bench] round ${round + 1}/${rounds}: ${builds[b].label} (load ${loadavg()[0].toFixed(1)})`);
      runs[b].push(await measure(builds[b].lib, root, requests));
    }
  }
  const section = `real-shaped 2000 per request, ${rounds} rounds by turns`;
  const medians = runs.map((list) => Object.fromEntries(FIGURES.map((key) => [key, median(list.map((run) => run[key]))])));
  builds.forEach((build, b) => {
    results.requestsOnly[build.label] = { runs: runs[b], medians: medians[b] };
    const m = medians[b];
    const own = b === builds.length - 1;
    row(
      section,
      `${build.label}: ranked catalog, median`,
      m.rankedMedianMs,
      'ms',
      own ? '< 0.5' : '',
      own ? m.rankedMedianMs < 0.5 : undefined,
    );
    row(section, `${build.label}: while the instructions are read, p99`, m.p99Ms, 'ms', own ? '< 5' : '', own ? m.p99Ms < 5 : undefined);
    row(section, `${build.label}: same, max`, m.maxMs, 'ms');
    row(section, `${build.label}: once they are ranked, median / p99`, m.afterMedianMs, 'ms', `p99 ${m.afterP99Ms.toFixed(2)} ms`);
  });
  if (builds.length === 2) {
    for (const key of FIGURES) row(section, `this build / base: ${key}`, medians[1][key] / medians[0][key], 'x', '(info)');
  }
}

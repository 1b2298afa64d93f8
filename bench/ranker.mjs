// What ranking costs a first request, and what building the ranker's whole index costs,
// over a library's catalog entries (issue 20: "building the ranker from a scan"):
//   node bench/ranker.mjs <root> first   a fresh ranker's first query, "convert a pdf to
//                                        markdown" with the ranked catalog's limit: what a
//                                        first request pays (no whole index: its own)
//   node bench/ranker.mjs <root> build   building the whole index (indexStep to the end),
//                                        as the background does after the first request
//   node bench/ranker.mjs <root> warm    the build again and again in one process: the
//                                        median of 7 after 3 to warm up
// Each prints { ms, skills } as JSON. The skills are found first by a first request
// that matches none ("hello": the index as the middleware keeps it, instructions not
// loaded; not timed); a fresh process per figure is a cold start, as a first request is.
import { performance } from 'node:perf_hooks';
import { catalogEntries, createRanker, getSkills, skillsMiddleware } from '../dist/index.js';
import { userContext } from './plain-ctx.mjs';
import { median } from './stats.mjs';

const [root, mode] = process.argv.slice(2);
const TASK = 'convert a pdf to markdown';
/** What a ranked catalog asks for (src/catalog/catalog.ts, rankedListed). */
const CATALOG_LIMIT = 250;

const ctx = userContext('hello');
await skillsMiddleware({ directories: [root], rankInstructions: false })(ctx, async () => {});
const entries = catalogEntries(getSkills(ctx)?.skills ?? []);

function build() {
  const ranker = createRanker(entries);
  const started = performance.now();
  while (!ranker.indexStep());
  return performance.now() - started;
}

let ms;
if (mode === 'first') {
  const ranker = createRanker(entries);
  const started = performance.now();
  const found = ranker.rank(TASK, CATALOG_LIMIT);
  ms = performance.now() - started;
  if (found.length === 0 || ranker.indexed) throw new Error(`the first query was not answered by its own index (${found.length} found)`);
} else if (mode === 'build') {
  ms = build();
} else if (mode === 'warm') {
  for (let i = 0; i < 3; i++) build();
  ms = median(Array.from({ length: 7 }, build));
} else {
  throw new Error(`usage: node bench/ranker.mjs <root> first|build|warm (got ${mode})`);
}
process.stdout.write(JSON.stringify({ mode, ms, skills: entries.length }));

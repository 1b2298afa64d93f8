// What ranking costs over a library's catalog entries (issue 20: "building the ranker from a scan"):
//   node bench/ranker.mjs <root> build   building a ranker: what it does before any query (each
//                                        field's length; no word is tokenised up front)
//   node bench/ranker.mjs <root> warm    the build again and again in one process: the
//                                        median of 7 after 3 to warm up
//   node bench/ranker.mjs <root> first   a built ranker's first query, "convert a pdf to
//                                        markdown" with the ranked catalog's limit: what a first
//                                        request pays for ranking (its terms' postings found)
//   node bench/ranker.mjs <root> later   after that first query, LATER requests with words it
//                                        has not met (their postings found): the median of them
//   node bench/ranker.mjs <root> known   after that first query, the same query again (its
//                                        terms' postings known): the median of 7
//   node bench/ranker.mjs <root> whole   after that first query, LATER and MORE (12 requests with
//                                        new words): the slowest, the one that builds the whole
//                                        index (after SCANS_BEFORE_WHOLE_INDEX scans, src/catalog/rank/term-scan.ts)
// Each prints { mode, ms, skills } as JSON. The skills are found first by a first request
// that matches none ("hello": the index as the middleware keeps it, instructions not
// loaded; not timed); a fresh process per figure is a cold start, as a first request is.
import { performance } from 'node:perf_hooks';
import { getSkills, skillsMiddleware } from '../dist/index.js';
import { catalogEntries, createRanker } from '../dist/internals.js';
import { userContext } from './plain-ctx.mjs';
import { median } from './stats.mjs';

const [root, mode] = process.argv.slice(2);
const TASK = 'convert a pdf to markdown';
/** Requests after the first, each with words the first has not. */
const LATER = [
  'review my pull request for security issues',
  'deploy the app to kubernetes',
  'write unit tests for the parser',
  'make a slide deck about sales',
  'analyze this csv data and plot it',
];
/** More requests with words none before has: with LATER, more than the scans before the whole index is built. */
const MORE = [
  'translate this document to french',
  'set up a github actions workflow',
  'optimize my sql query',
  'draw an architecture diagram',
  'summarize this research paper',
  'scrape a website for prices',
  'generate an invoice for a client',
];
/** What a ranked catalog asks for (src/catalog/catalog.ts, rankedListed). */
const CATALOG_LIMIT = 250;

const ctx = userContext('hello');
await skillsMiddleware({ directories: [root], rankInstructions: false })(ctx, async () => {});
const entries = catalogEntries(getSkills(ctx)?.skills ?? []);

/** Milliseconds `work` takes. */
function timed(work) {
  const started = performance.now();
  work();
  return performance.now() - started;
}

/** Ranks `query` as a ranked catalog does; throws when nothing matches (the workload must match). */
function rankOrThrow(ranker, query) {
  if (ranker.rank(query, CATALOG_LIMIT).length === 0) throw new Error(`"${query}" matched no skill`);
}

let ms;
if (mode === 'build') {
  ms = timed(() => createRanker(entries));
} else if (mode === 'warm') {
  for (let i = 0; i < 3; i++) createRanker(entries);
  ms = median(Array.from({ length: 7 }, () => timed(() => createRanker(entries))));
} else if (mode === 'first' || mode === 'later' || mode === 'known' || mode === 'whole') {
  const ranker = createRanker(entries);
  const first = timed(() => rankOrThrow(ranker, TASK));
  if (mode === 'first') ms = first;
  else if (mode === 'later') ms = median(LATER.map((query) => timed(() => rankOrThrow(ranker, query))));
  else if (mode === 'known') ms = median(Array.from({ length: 7 }, () => timed(() => rankOrThrow(ranker, TASK))));
  else ms = Math.max(...[...LATER, ...MORE].map((query) => timed(() => rankOrThrow(ranker, query))));
} else {
  throw new Error(`usage: node bench/ranker.mjs <root> build|warm|first|later|known|whole (got ${mode})`);
}
process.stdout.write(JSON.stringify({ mode, ms, skills: entries.length }));

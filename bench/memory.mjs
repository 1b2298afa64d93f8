// Run in a child process so the heap holds nothing else: prints the heap kept by one skill index as JSON.
//   node --expose-gc bench/memory.mjs <root> <what> [--warm <root>] [--bundle <index.js>] [--index <file>]
//   what = middleware:    what the middleware keeps after a first request ('hello') and
//                         one that matches skills: the index, its catalog and the ranker
//                         (a first request that matches no skill does not build the ranker)
//   what = middleware-instructions: the same once ranking reads the instructions too
//                         (their terms read in the background, rankInstructions; issue 23)
//   what = first-request: what it keeps after one first request that matches skills
//                         ("convert a pdf to markdown", issue 20); with --index, from that
//                         prebuilt index; with --second, after a second request with
//                         other words too (the ranker keeps the postings it found)
//   what = discover:      the result of the public discoverSkills (eager)
// --bundle measures another build (bench/ab.mjs's copies), --warm warms up on another library first.
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { gc } from './stats.mjs';
import { userContext } from './plain-ctx.mjs';

const [root, what, ...rest] = process.argv.slice(2);
const flag = (name) => {
  const at = rest.indexOf(`--${name}`);
  return at === -1 ? undefined : rest[at + 1];
};
const warmRoot = flag('warm');
const bundle = flag('bundle');
const indexFile = flag('index');
const second = rest.includes('--second');
const { discoverSkills, skillsMiddleware } = await import(bundle ? pathToFileURL(resolve(bundle)).href : '../dist/index.js');
const heap = () => process.memoryUsage().heapUsed;
const external = () => process.memoryUsage().arrayBuffers;

async function build(directory, index) {
  if (what === 'middleware' || what === 'middleware-instructions') {
    // Without the instructions: the figure before issue 23 (a middleware that never reads them).
    const middleware = skillsMiddleware({ directories: [directory], rankInstructions: what === 'middleware-instructions' });
    // The request's context (with its catalog) is dropped: only what the middleware keeps counts.
    await middleware(userContext('hello'), async () => {});
    await middleware(userContext('review pull requests and deploy docker images'), async () => {});
    await middleware.instructionsRanked();
    await middleware(userContext('review pull requests and deploy docker images'), async () => {});
    return middleware;
  }
  if (what === 'first-request') {
    const middleware = skillsMiddleware({ directories: [directory], ...(index ? { index } : {}) });
    const ctx = userContext('convert a pdf to markdown');
    const warnings = [];
    ctx.log.warn = (...args) => warnings.push(args);
    await middleware(ctx, async () => {});
    if (index && JSON.stringify(warnings).includes('INDEX_UNUSABLE')) throw new Error('the prebuilt index was not used');
    if (second) await middleware(userContext('merge two pdf files into one'), async () => {});
    return middleware;
  }
  return discoverSkills({ directories: [directory] });
}

// Warm-up on another, smaller library (over the catalog budget too, so the same code runs),
// dropped before measuring: code V8 compiles on first use is the library's, not the index's,
// and would otherwise count (about 1-2 MB, whatever the size). Inside a function, so nothing
// of it stays in this module's frame: held there at `before` and dropped by `after`, the
// warm-up's 2.4 MB (2,000 skills) came off the figure (before issue 20's 15.9 MB, which is
// 17.8 MB measured this way; see HEAP_BEFORE_ISSUE_20 in bench/real.mjs).
async function warmUp(directory) {
  const warm = await build(directory);
  // Its reading of the instructions in the background would land in the measurement.
  await warm.close?.();
}
if (warmRoot) await warmUp(warmRoot);
gc();
const before = heap();
const externalBefore = external();
const kept = await build(root, indexFile);
gc();
const after = heap();
process.stdout.write(
  JSON.stringify({
    what,
    heapDelta: after - before,
    // Typed arrays' contents (the ranker's postings) live outside the JS heap.
    arrayBuffersDelta: external() - externalBefore,
    // Reading `kept` here keeps it reachable through the measurement.
    kept: typeof kept,
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
  }),
);

// Run in a child process (node --expose-gc bench/memory.mjs <root> <what> [warm-up root]) so
// the heap holds nothing else: prints the heap kept by one skill index as JSON.
//   what = middleware: what the middleware keeps after a first request ('hello') and
//                      one that matches skills: the index, its catalog and the ranker
//                      (a first request that matches no skill does not build the ranker)
//   what = middleware-instructions: the same once ranking reads the instructions too
//                      (the body terms indexed in the background, rankInstructions; issue 23)
//   what = discover:   the result of the public discoverSkills (eager)
import { discoverSkills, skillsMiddleware } from '../dist/index.js';
import { gc } from './stats.mjs';
import { userContext } from './plain-ctx.mjs';

const [root, what, warmRoot] = process.argv.slice(2);
const heap = () => process.memoryUsage().heapUsed;

async function build(directory) {
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
  return discoverSkills({ directories: [directory] });
}

// Warm-up on another, smaller library (over the catalog budget too, so the same code runs),
// dropped before measuring: code V8 compiles on first use is the library's, not the index's,
// and would otherwise count (about 1-2 MB, whatever the size).
if (warmRoot) await build(warmRoot);
gc();
const before = heap();
const kept = await build(root);
gc();
const after = heap();
process.stdout.write(
  JSON.stringify({
    what,
    heapDelta: after - before,
    // Reading `kept` here keeps it reachable through the measurement.
    kept: typeof kept,
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
  }),
);

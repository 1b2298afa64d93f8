// Run in a child process (node --expose-gc bench/memory.mjs <root> <what>) so
// the heap holds nothing else: prints the heap kept by one skill index as JSON.
//   what = middleware: the middleware's cached index after its first request
//   what = discover:   the result of the public discoverSkills (eager)
import { createContext } from '../demo/mini-sisu.mjs';
import { discoverSkills, skillsMiddleware } from '../dist/index.js';
import { gc } from './stats.mjs';

const [root, what] = process.argv.slice(2);
const heap = () => process.memoryUsage().heapUsed;

async function build() {
  if (what === 'middleware') {
    const middleware = skillsMiddleware({ directories: [root] });
    // The request's context (with its catalog) is dropped: only what the middleware keeps counts.
    await middleware(createContext({ messages: [{ role: 'user', content: 'hello' }] }), async () => {});
    return middleware;
  }
  return discoverSkills({ directories: [root] });
}

gc();
const before = heap();
const kept = await build();
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

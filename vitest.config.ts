import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
    // vitest's default for `run` is one worker per core less one: a single worker on a 2-core machine. Test
    // files wait often: profiled one by one, watch.test.ts idles 10 of its 12 s (real fs events and timers),
    // the real-SISU eval suite 10 of 17 (timeouts), the CLI suites on their child processes. One worker more
    // than there are cores keeps the cores busy while one of them waits.
    maxWorkers: availableParallelism() + 1,
    // Test files in a worker share its module cache (src, zod, SISU's packages) instead of importing them
    // afresh for each file: per-file imports were a third of the suite's time. Sound because no test leaves
    // module state behind: state lives in objects, spies are restored and process.env edits undone.
    isolate: false,
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      exclude: ['src/**/*.d.ts'],
      reporter: ['text-summary', 'text'],
      thresholds: {
        lines: 90,
        branches: 90,
      },
    },
  },
});

import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
    // vitest's default for `run` is one worker per core less one: a single worker on a 2-core machine. Test
    // files wait on timers, sockets and child processes often enough that two keep both cores busy.
    maxWorkers: Math.max(2, availableParallelism() - 1),
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

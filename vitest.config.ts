import { accessSync, constants, statfsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { relative } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Seconds each long test file took in `npm test` (the whole suite, coverage on, 2-core machine, 2026-11-26). Vitest orders
 * files by their last run's durations, which a fresh clone (CI's, a new contributor's) does not have: it falls back to
 * the largest files first, and the longest files, which are not the largest, started last and set the suite's end.
 * A stale entry costs only wall time, never a result.
 */
const LONG_FILES: Record<string, number> = {
  'test/real-sisu/tenants.test.ts': 13.5,
  'test/prebuilt-ranker.test.ts': 13.5,
  'test/cli.test.ts': 9.8,
  'test/watch.test.ts': 9.7,
  'test/s3-faults.test.ts': 9.2,
  'test/real-sisu/trigger-eval.test.ts': 8.1,
  'test/s3-refresh.test.ts': 7.9,
  'test/types/real-sisu.test.ts': 6.8,
  'test/cli-commands.test.ts': 6.5,
  'test/term-scan.test.ts': 6.4,
  'test/real-sisu/resume.test.ts': 5.7,
  'test/cli-init.test.ts': 5.6,
  'test/s3-index.test.ts': 5.4,
};

/** Vitest's order (the last run's durations, when this clone has run the suite), else the long files first. */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const path = (file: TestSpecification): string => relative(this.ctx.config.root, file.moduleId);
    if (sorted.every((file) => this.ctx.cache.getFileTestResults(`${file.project.name}:${path(file)}`))) return sorted;
    return [...sorted].sort((a, b) => (LONG_FILES[path(b)] ?? 0) - (LONG_FILES[path(a)] ?? 0));
  }
}

/**
 * Where the tests keep their scratch files: in memory (/dev/shm) on Linux when it has 1 GB free and TMPDIR is not set,
 * else the system's temp folder. On the 2-core CI VM a file made on disk cost about 1.3 ms and in /dev/shm 0.02 ms
 * (2,000 skill folders of two files: 7.7 s against 0.13 s), and the suite makes tens of thousands (trees, watched
 * folders, s3rver's objects). Set TMPDIR to choose another place.
 */
function scratchDirectory(): string | undefined {
  if (process.env.TMPDIR !== undefined || process.platform !== 'linux') return undefined;
  try {
    accessSync('/dev/shm', constants.W_OK);
    const { bavail, bsize } = statfsSync('/dev/shm');
    return bavail * bsize >= 1024 ** 3 ? '/dev/shm' : undefined;
  } catch {
    // No /dev/shm, or not writable here: the system's temp folder serves.
    return undefined;
  }
}
const scratch = scratchDirectory();

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    env: scratch === undefined ? {} : { TMPDIR: scratch },
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
    sequence: { sequencer: LongestFirst },
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

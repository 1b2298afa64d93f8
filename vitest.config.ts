import { accessSync, constants, statfsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { PlannedOrder } from './test/helpers/file-order.js';
import { missingShared } from './test/helpers/shared.js';

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

/**
 * The suites that need ../shared (SISU's packages, the corpus) skip in a clone without it: the thresholds hold for
 * the whole suite, so they apply only when it can all run, as in CI. A run that skipped part prints its coverage and,
 * last (test/helpers/run-summary.ts), what it skipped, that the thresholds were not applied, and how to run the rest.
 */
const wholeSuite = missingShared().length === 0;

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    env: {
      ...(scratch === undefined ? {} : { TMPDIR: scratch }),
      // On Node 20 the AWS SDK warns once per process that its 2027 releases need Node 22: once per test worker and
      // per process a test starts. The run's closing lines say it once instead (test/helpers/run-summary.ts).
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
    testTimeout: 20_000,
    // Suites start their storage servers (s3rver, Azurite: a child process each, once per worker) in beforeAll: under
    // the whole suite on a 2-core machine shared by other work (load average 24) Azurite took longer than the default 10 s.
    hookTimeout: 60_000,
    // vitest's default for `run` is one worker per core less one: a single worker on a 2-core machine. Test
    // files wait often: profiled one by one, watch.test.ts idles 10 of its 12 s (real fs events and timers),
    // the real-SISU eval suite 10 of 17 (timeouts), the CLI suites on their child processes. One worker more
    // than there are cores keeps the cores busy while one of them waits; the order keeps it to one at a time.
    // One more still (4 on 2 cores) was no faster in fresh clones (74.4 s against 71.4 s, two runs each).
    maxWorkers: availableParallelism() + 1,
    // Test files in a worker share its module cache (src, zod, SISU's packages) instead of importing them
    // afresh for each file: per-file imports were a third of the suite's time. Sound because no test leaves
    // module state behind: state lives in objects, spies are restored and process.env edits undone.
    isolate: false,
    // Busy files longest first, the files that mostly wait taking turns beside them (test/helpers/file-order.ts).
    sequence: { sequencer: PlannedOrder },
    // Set MW_SKILLS_FILE_COSTS to a file to measure each test file's CPU and wall time into it, for that order's table.
    setupFiles: process.env.MW_SKILLS_FILE_COSTS ? ['test/helpers/file-costs.ts'] : [],
    // Its teardown runs after the coverage report: the run's last lines.
    globalSetup: ['test/helpers/run-summary.ts'],
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      exclude: ['src/**/*.d.ts'],
      reporter: ['text-summary', 'text'],
      thresholds: wholeSuite ? { lines: 90, branches: 90 } : {},
    },
  },
});

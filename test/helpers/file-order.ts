/**
 * The order the suite's test files start in (vitest.config.ts's sequencer).
 *
 * The suite is CPU-bound on the 2-core machines it runs on, with one worker
 * more than there are cores so that a file which waits (timers, fs events,
 * child processes, deliberately slow servers) leaves its core to the others.
 * That only works while at most one worker waits. Started longest first, the
 * files that wait most (watch, s3-faults, trigger-eval: 6 to 12 s each, a
 * fifth of it CPU or less) ran side by side in a fresh clone, and for about
 * 7 s the two cores did half their work or less. Here the waiting files take
 * turns in one lane, each started when the one before would end, while the
 * busy files go longest first around them. Between a run's first and last
 * 5 s, the cores lost 7.6 to 9.8 CPU-seconds before (five fresh clones), 2.1
 * to 3.7 after (four), sampled from /proc/stat each second.
 */
import { availableParallelism } from 'node:os';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** A test file's cost in seconds: CPU (its children's included) and wall time. */
export type FileCost = readonly [cpu: number, wall: number];

/**
 * The files of 2 s or more, the mean of two `npm test` runs (coverage on,
 * 2-core machine, 2026-11-27) with MW_SKILLS_FILE_COSTS set (test/helpers/file-costs.ts).
 * The storage-* files run on two engines (issue 43): their figures are from one
 * run of those files alone in one worker (load average 18-20), wall doubled as
 * they are. A missing or stale entry costs only wall time, never a result; the rest of
 * the files start after these, in vitest's own order.
 */
export const FILE_COSTS: Readonly<Record<string, FileCost>> = {
  'test/storage-refresh.test.ts': [4.0, 21.6],
  'test/storage-faults.test.ts': [1.2, 21.3],
  'test/real-sisu/tenants.test.ts': [15.0, 18.6],
  'test/prebuilt-ranker.test.ts': [9.7, 13.2],
  'test/watch.test.ts': [0.7, 9.3],
  'test/storage-index.test.ts': [0.6, 9.1],
  'test/cli.test.ts': [4.2, 7.3],
  'test/relevance/body-set.test.ts': [4.0, 6.8],
  'test/term-scan.test.ts': [5.9, 6.7],
  'test/real-sisu/trigger-eval.test.ts': [1.2, 6.4],
  'test/cli-commands.test.ts': [3.8, 6.0],
  'test/types/real-sisu.test.ts': [6.5, 6.0],
  'test/cli-init.test.ts': [3.0, 5.8],
  'test/catalog-budget.test.ts': [3.8, 5.4],
  'test/real-sisu/visibility-property.test.ts': [2.6, 4.7],
  'test/storage-edge.test.ts': [0.2, 4.7],
  'test/real-sisu/resume.test.ts': [3.1, 3.9],
  'test/cli-embeddings.test.ts': [0.1, 3.7],
  'test/frontmatter/property.test.ts': [3.0, 3.5],
  'test/discover/scale.test.ts': [2.3, 2.8],
  'test/watch-faults.test.ts': [0.7, 2.8],
  'test/real-sisu/embeddings.test.ts': [2.1, 2.6],
  'test/storage-trust-cli.test.ts': [0.5, 2.4],
  'test/s3-harness.test.ts': [1.0, 2.3],
  'test/storage-source.test.ts': [0.6, 2.3],
  'test/security/read-resource.security.test.ts': [1.6, 2.3],
};

/** A file whose wall time is mostly waiting: it leaves its core to the others. */
export function waits([cpu, wall]: FileCost): boolean {
  return cpu < 0.4 * wall;
}

/**
 * `files` (each with a cost) in the order to start them on `cores` cores:
 * the busy files by CPU, longest first; a waiting file (longest first) placed
 * wherever the busy files before it add up to the time the last waiting file
 * needs, as the busy files' CPU shared over the cores.
 */
export function plannedOrder(files: readonly string[], costs: Readonly<Record<string, FileCost>>, cores: number): string[] {
  const cost = (file: string): FileCost => costs[file] ?? [0, 0];
  const waiting = files.filter((file) => waits(cost(file))).sort((a, b) => cost(b)[1] - cost(a)[1]);
  const busy = files.filter((file) => !waits(cost(file))).sort((a, b) => cost(b)[0] - cost(a)[0]);
  const order: string[] = [];
  let elapsed = 0;
  let laneFreeAt = 0;
  for (const file of busy) {
    for (let next = waiting[0]; next !== undefined && elapsed >= laneFreeAt; next = waiting[0]) {
      order.push(next);
      waiting.shift();
      laneFreeAt = elapsed + cost(next)[1];
    }
    order.push(file);
    elapsed += cost(file)[0] / cores;
  }
  return [...order, ...waiting];
}

/** The measured files in plannedOrder, then the rest in vitest's order (its last run's durations, else file size). */
export class PlannedOrder extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const byPath = new Map(sorted.map((file) => [relative(this.ctx.config.root, file.moduleId), file]));
    const measured = [...byPath.keys()].filter((path) => FILE_COSTS[path] !== undefined);
    const planned = plannedOrder(measured, FILE_COSTS, availableParallelism()).map((path) => byPath.get(path) as TestSpecification);
    return [...planned, ...sorted.filter((file) => !planned.includes(file))];
  }
}

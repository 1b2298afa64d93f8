/**
 * The CLI's progress lines (src/cli/progress.ts): a line when a phase starts,
 * at each tenth of it and at its end; counts without a total at most once a
 * second; nothing at all without `io.progress` (stderr not a terminal).
 */
import { describe, expect, it } from 'vitest';
import { PROGRESS_INTERVAL_MS, progressReporter } from '../src/cli/progress.js';

function watched(least?: number): { lines: string[]; clock: { now: number }; report: NonNullable<ReturnType<typeof progressReporter>> } {
  const lines: string[] = [];
  const clock = { now: 0 };
  const io = { out: () => undefined, err: () => undefined, cwd: '/', progress: (line: string) => lines.push(line) };
  const report = progressReporter(io, 'index', { now: () => clock.now, ...(least === undefined ? {} : { least }) });
  if (!report) throw new Error('a reporter was expected with io.progress');
  return { lines, clock, report };
}

describe('progressReporter', () => {
  it('is undefined without io.progress: nothing to show in CI logs, pipes and tests', () => {
    expect(progressReporter({ out: () => undefined, err: () => undefined, cwd: '/' }, 'index')).toBeUndefined();
  });

  it('a phase with a total: its start, each tenth and its end, once each, with the counts', () => {
    const { lines, report } = watched();
    for (let done = 0; done <= 21_092; done++) report('reading the instructions', done, 21_092);
    expect(lines).toHaveLength(11);
    expect(lines[0]).toBe('sisu-skills index: reading the instructions, 0 of 21,092');
    expect(lines[1]).toBe('sisu-skills index: reading the instructions, 2,110 of 21,092');
    expect(lines.at(-1)).toBe('sisu-skills index: reading the instructions, 21,092 of 21,092');
    // Done again (a caller reporting twice): not shown again.
    report('reading the instructions', 21_092, 21_092);
    expect(lines).toHaveLength(11);
  });

  it('a phase without a total: its start, then its count at most once a second; a new phase shows at once', () => {
    const { lines, clock, report } = watched();
    report('finding skills', 0);
    for (let done = 1; done <= 5000; done++) {
      clock.now = done;
      report('finding skills', done);
    }
    expect(lines).toEqual([
      'sisu-skills index: finding skills',
      'sisu-skills index: finding skills, 1,000',
      'sisu-skills index: finding skills, 2,000',
      'sisu-skills index: finding skills, 3,000',
      'sisu-skills index: finding skills, 4,000',
      'sisu-skills index: finding skills, 5,000',
    ]);
    expect(PROGRESS_INTERVAL_MS).toBe(1000);
    report('building the ranker', 0);
    expect(lines.at(-1)).toBe('sisu-skills index: building the ranker');
  });

  it('phases of fewer items than `least` show nothing: they end before anyone reads them', () => {
    const { lines, report } = watched(100);
    for (let done = 0; done <= 99; done++) report('hashing', done, 99);
    expect(lines).toEqual([]);
    report('hashing', 0, 100);
    expect(lines).toEqual(['sisu-skills index: hashing, 0 of 100']);
  });
});

/**
 * The run's closing lines (test/helpers/run-summary.ts): what was skipped for
 * want of ../shared, counted once per test, by part and file; whether the
 * thresholds were applied; how to run the rest; the AWS SDK's note on Node 20.
 */
import { describe, expect, it } from 'vitest';
import { awsSdkNote, summaryLines, type ModuleResults } from './run-summary.js';
import { skipNote } from './shared.js';

const module = (relativeModuleId: string, ...names: string[]): ModuleResults => ({
  relativeModuleId,
  children: { allTests: () => names.map((fullName) => ({ fullName })) },
});

describe('the closing lines of a run that skipped suites', () => {
  const modules = [
    module('test/b.test.ts', `real host ${skipNote('sisu')} > one`, `real host ${skipNote('sisu')} > two`),
    // Inside a suite skipped for SISU, a test that also needs the corpus counts once, for SISU.
    module('test/a.test.ts', `real host ${skipNote('sisu')} > corpus skill ${skipNote('corpus')}`, `x > y ${skipNote('corpus')}`),
    // Skipped for another reason (a platform): not ours to explain.
    module('test/c.test.ts', 'links on win32 > a cycle'),
  ];

  it('counts each test once, under the part that skipped it, files sorted; then the thresholds and how to run them, last', () => {
    const lines = summaryLines(['sisu', 'corpus'], modules, true);
    expect(lines[0]).toMatch(/^Skipped 4 tests: they need parts of \.\.\/shared \(.+\) that are not there\.$/);
    expect(lines.slice(1, 5)).toEqual([
      expect.stringMatching(/^ {2}\.\.\/shared\/sisu \(.+\): 3 tests in 2 files:$/),
      '    test/a.test.ts (1), test/b.test.ts (2)',
      expect.stringMatching(/^ {2}\.\.\/shared\/corpus \(.+\): 1 test in 1 file:$/),
      '    test/a.test.ts (1)',
    ]);
    expect(lines[5]).toMatch(/^Coverage thresholds not applied: they hold for the whole suite/);
    expect(lines.at(-1)).toMatch(/^To run them: .*\.\.\/shared\/sisu.*\.\.\/shared\/corpus.*npm test/);
    expect(lines).toHaveLength(7);
  });

  it('says nothing of thresholds without coverage, and names a missing part that skipped nothing', () => {
    const lines = summaryLines(['sisu-skills'], modules, false);
    expect(lines[1]).toMatch(/^ {2}\.\.\/shared\/sisu\/skills \(.+\): 0 tests in 0 files$/);
    expect(lines.join('\n')).not.toContain('thresholds not applied');
  });

  it('wraps a long list of files at 120 characters, a comma ending each line but the last', () => {
    const many = Array.from({ length: 40 }, (_, i) => module(`test/file-${String(i).padStart(2, '0')}.test.ts`, `s ${skipNote('corpus')}`));
    const listed = summaryLines(['corpus'], many, true).filter((line) => line.startsWith('    '));
    expect(listed.length).toBeGreaterThan(1);
    for (const line of listed) expect(line.length).toBeLessThanOrEqual(120);
    expect(listed.slice(0, -1).every((line) => line.endsWith(','))).toBe(true);
    expect(listed.join(' ').match(/\.test\.ts \(1\)/g)).toHaveLength(40);
  });
});

describe("the AWS SDK's note", () => {
  it('is one line below Node 22 and nothing from 22 on', () => {
    expect(awsSdkNote('20.19.2')).toEqual([expect.stringMatching(/^Node 20\.19\.2: .* require Node 22 .*docs\/fleet\.md\)\.$/)]);
    expect(awsSdkNote('22.0.0')).toEqual([]);
    expect(awsSdkNote('24.3.1')).toEqual([]);
  });
});

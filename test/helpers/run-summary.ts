/**
 * The run's closing lines (vitest.config.ts's globalSetup): its teardown runs
 * after the coverage report, so what it prints is the last thing a run says.
 *
 * - Which tests were skipped for want of a part of ../shared (shared.ts), by
 *   part and file, why, and how to run them; and that the coverage thresholds
 *   were not applied, since they hold for the whole suite. Nothing when every
 *   part is here.
 * - On Node below 22, once, what the AWS SDK's NodeVersionSupportWarning says:
 *   the config keeps that warning out of each test worker (and the processes
 *   they start), where it repeated once per process and buried failures.
 *
 * Reads the run's results from `vitest.state` (experimental API; vitest is
 * pinned by the lock file). Reporters would be the public way, but a
 * `--reporter` on the command line replaces the config's, and CI passes two.
 */
import type { TestProject } from 'vitest/node';
import { missingShared, SHARED_PARTS, SHARED_ROOT, skipNote, type SharedPart } from './shared.js';

/** The Node major the AWS SDK's releases after the first week of January 2027 require. */
export const AWS_SDK_NODE_FLOOR = 22;

export default function setup(project: TestProject): () => void {
  return () => {
    const lines = [...awsSdkNote(process.versions.node), ...skippedSummary(project)];
    if (lines.length > 0) console.log(`\n${lines.join('\n')}`);
  };
}

export function awsSdkNote(nodeVersion: string): string[] {
  if (Number(nodeVersion.split('.')[0]) >= AWS_SDK_NODE_FLOOR) return [];
  return [
    `Node ${nodeVersion}: AWS SDK for JavaScript v3 releases published after the first week of January 2027 require ` +
      `Node ${AWS_SDK_NODE_FLOOR} (the SDK's NodeVersionSupportWarning, kept out of the test workers; docs/fleet.md).`,
  ];
}

function skippedSummary(project: TestProject): string[] {
  const missing = missingShared();
  if (missing.length === 0) return [];
  return summaryLines(missing, project.vitest.state.getTestModules(), project.vitest.config.coverage.enabled);
}

/** What the summary reads of a test file's results (vitest's TestModule has it). */
export interface ModuleResults {
  relativeModuleId: string;
  children: { allTests(state: 'skipped'): Iterable<{ fullName: string }> };
}

/** Lines wrap here, or at the longest file name. */
const WIDTH = 120;

/** Per missing part: how many tests it skipped in which files; then the thresholds, then how to run them. */
export function summaryLines(missing: readonly SharedPart[], modules: Iterable<ModuleResults>, coverage: boolean): string[] {
  const skipped = skippedByPart(missing, modules);
  const total = [...skipped.values()].reduce((sum, files) => sum + [...files.values()].reduce((a, n) => a + n, 0), 0);
  const lines = [`Skipped ${count(total, 'test')}: they need parts of ../shared (${SHARED_ROOT}) that are not there.`];
  for (const part of missing) {
    const files = skipped.get(part) ?? new Map<string, number>();
    const tests = [...files.values()].reduce((sum, n) => sum + n, 0);
    const { shown, what } = SHARED_PARTS[part];
    lines.push(`  ${shown} (${what}): ${count(tests, 'test')} in ${count(files.size, 'file')}${files.size > 0 ? ':' : ''}`);
    lines.push(
      ...wrapped(
        [...files].sort(([a], [b]) => a.localeCompare(b)).map(([file, n]) => `${file} (${n})`),
        '    ',
      ),
    );
  }
  if (coverage) {
    lines.push('Coverage thresholds not applied: they hold for the whole suite, and this run skipped part of it (docs/development.md).');
  }
  lines.push(
    "To run them: put SISU's compiled packages at ../shared/sisu and the corpus at ../shared/corpus beside the clone, as CI " +
      'does, and run npm test again: every test runs and the coverage thresholds apply.',
  );
  return lines;
}

/**
 * Per part, the test files with tests skipped for want of it, and how many. A test counts once, for the part whose
 * note comes first in its full name (the outermost suite that skipped it).
 */
function skippedByPart(missing: readonly SharedPart[], modules: Iterable<ModuleResults>): Map<SharedPart, Map<string, number>> {
  const byPart = new Map<SharedPart, Map<string, number>>();
  for (const module of modules) {
    for (const test of module.children.allTests('skipped')) {
      const part = firstNoted(missing, test.fullName);
      if (part === undefined) continue;
      const files = byPart.get(part) ?? new Map<string, number>();
      files.set(module.relativeModuleId, (files.get(module.relativeModuleId) ?? 0) + 1);
      byPart.set(part, files);
    }
  }
  return byPart;
}

function firstNoted(parts: readonly SharedPart[], name: string): SharedPart | undefined {
  let first: { part: SharedPart; at: number } | undefined;
  for (const part of parts) {
    const at = name.indexOf(skipNote(part));
    if (at >= 0 && (first === undefined || at < first.at)) first = { part, at };
  }
  return first?.part;
}

/** `items` joined with commas into lines of at most WIDTH characters, each starting with `indent`. */
function wrapped(items: readonly string[], indent: string): string[] {
  const lines: string[] = [];
  let line = '';
  for (const item of items) {
    if (line !== '' && indent.length + line.length + item.length + 2 > WIDTH) {
      lines.push(`${indent}${line},`);
      line = '';
    }
    line = line === '' ? item : `${line}, ${item}`;
  }
  if (line !== '') lines.push(indent + line);
  return lines;
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

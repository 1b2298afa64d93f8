/**
 * Progress of a long command, for a person watching it: a line on stderr
 * when a phase starts, at each tenth of what it works through, and at its
 * end ("sisu-skills index: reading the instructions, 12,000 of 21,092"); a
 * phase whose total is not known yet (skills found while folders are walked)
 * shows its count at most once a second. Only when the CLI was given
 * `io.progress` (stderr is a terminal): CI logs, pipes and tests get
 * nothing, and stdout (`--json`) is never written. Every command that works
 * through many skills or files uses it: `index`, `sign`, `verify`.
 */
import type { CliIO } from './io.js';

/** What a command reports: its phase, and how far it is, of how many when that is known. */
export type ReportProgress = (phase: string, done: number, total?: number) => void;

/** A phase without a total shows its count at most this often. */
export const PROGRESS_INTERVAL_MS = 1000;

/**
 * A reporter whose lines start with `sisu-skills <command>:`, or undefined
 * when nothing is to be shown. Phases of fewer than `least` items show
 * nothing (they end before anyone reads them). `now`: the clock, for tests.
 */
export function progressReporter(
  io: CliIO,
  command: string,
  { least = 100, now = Date.now }: { least?: number; now?: () => number } = {},
): ReportProgress | undefined {
  const show = io.progress?.bind(io);
  if (!show) return undefined;
  let phase: string | undefined;
  let step = -1;
  let shownAt = 0;
  return (next, done, total) => {
    if (total !== undefined && total < least) return;
    const at = now();
    const started = next !== phase;
    const tenth = total === undefined ? -1 : Math.floor((Math.min(done, total) * 10) / Math.max(total, 1));
    const due = total === undefined ? at - shownAt >= PROGRESS_INTERVAL_MS : tenth !== step;
    if (!started && !due) return;
    phase = next;
    step = tenth;
    shownAt = at;
    const count = total === undefined ? (done > 0 ? `, ${number(done)}` : '') : `, ${number(done)} of ${number(total)}`;
    show(`sisu-skills ${command}: ${next}${count}`);
  };
}

const number = (n: number): string => n.toLocaleString('en-US');

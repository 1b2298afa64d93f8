/**
 * Live reload: watch the configured skill directories and report each burst
 * of changes once. This module is the public entry: it checks a direct
 * caller's options, then starts the watcher (src/watch/).
 *
 * Every folder discovery may read (all but dot-folders and node_modules; a
 * linked folder once per real folder) gets a watch of its own, never one per file:
 * a folder's watch already reports its files being created, edited, renamed
 * and deleted, so an editor's atomic save (write a temporary file, rename it
 * over SKILL.md) and every later edit are seen. Node's recursive watcher is not
 * used: on Linux it holds a handle per file, walks the tree synchronously,
 * keeps watching a file's old inode after it is replaced, and emits 'error'
 * events that no caller can handle, which ends the process.
 *
 * What is reported: SKILL.md edits, anything created, deleted or renamed, and
 * a folder becoming readable or not. Edits to a bundled file's content are
 * not: the resource reader checks each file when it reads it.
 *
 * Nothing here throws or rejects after start. A folder that cannot be watched
 * or read is reported once through onError (a WatchProblem with a kind),
 * retried on a timer, and everything else keeps running; `mode` says whether
 * every folder is watched.
 *
 * How it is built, in the order events flow: folder-watch (one watch per
 * folder, either form) → tree-watcher (the per-folder visit loop, applying
 * each listing to the tree via listing and tree, visits queued by walk-queue)
 * → bursts (the debouncer that calls onChange); health (trouble, mode and
 * problem reports) and retry-timer on the side.
 */
import { describeValue, failOption } from '../config/errors.js';
import { startWatching } from './start.js';
import { type SkillsWatcher, type WatchOptions } from './types.js';
import { WATCH_DEFAULTS } from '../config/defaults.js';

export { WatchProblem } from './problem.js';
export { WATCH_DEFAULTS } from '../config/defaults.js';
export type { FolderWatching, SkillsWatcher, WatchChange, WatchMode, WatchOptions, WatchProblemKind } from './types.js';

export function watchSkillDirectories(directories: readonly string[], options: WatchOptions): SkillsWatcher {
  checkOptions(options);
  return startWatching(directories, options);
}

/**
 * A direct caller's options, checked at construction. The middleware's
 * options were checked by options.ts, which is why startWatching does not
 * check them again.
 */
function checkOptions(options: WatchOptions): void {
  const { fs } = options;
  if (typeof fs.watch !== 'function' && typeof fs.watchFolder !== 'function') {
    failOption(
      'fs',
      'needs a watch() or watchFolder() method to watch folders.',
      'Pass node:fs/promises, or add one of them to the fs you pass.',
    );
  }
  checkDelay('debounceMs', options.debounceMs, `${WATCH_DEFAULTS.debounceMs}`);
  checkDelay('maxWaitMs', options.maxWaitMs, '10 × debounceMs');
  checkDelay('retryMs', options.retryMs, `${WATCH_DEFAULTS.retryMs}`);
}

function checkDelay(option: 'debounceMs' | 'maxWaitMs' | 'retryMs', value: unknown, fallback: string): void {
  if (value === undefined || (typeof value === 'number' && Number.isFinite(value) && value >= 0)) return;
  failOption(
    option,
    `must be a number of milliseconds, 0 or more, got ${describeValue(value)}.`,
    `Leave it out for the default (${fallback}).`,
  );
}

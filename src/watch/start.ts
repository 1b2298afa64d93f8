/**
 * Start a watcher from options already checked: defaults applied, onError
 * contained, the debouncer and the tree watcher wired, the abort signal
 * hooked up. The middleware (whose options.ts checked its own options) may
 * call this directly; `watchSkillDirectories` checks first.
 */
import { Bursts } from './bursts.js';
import { TreeWatcher } from './tree-watcher.js';
import { type SkillsWatcher, type WatchOptions } from './types.js';
import { WATCH_DEFAULTS } from '../config/defaults.js';

export function startWatching(directories: readonly string[], options: WatchOptions): SkillsWatcher {
  const { fs, onChange, onError, onModeChange, signal } = options;
  const debounceMs = options.debounceMs ?? WATCH_DEFAULTS.debounceMs;
  const maxWaitMs = options.maxWaitMs ?? debounceMs * 10;
  const retryMs = options.retryMs ?? WATCH_DEFAULTS.retryMs;
  const order = [...new Set(directories)];

  // onError must never break the watcher.
  const report = (error: unknown): void => {
    try {
      onError?.(error);
    } catch {
      // The caller's logger failed; there is nobody left to tell.
    }
  };
  const bursts = new Bursts({ order, debounceMs, maxWaitMs, onChange, report });
  const tree = new TreeWatcher(order, { fs, retryMs, report, onModeChange }, bursts);
  return closedBy(tree, signal);
}

/** The watcher as callers see it, closed when `signal` aborts. */
function closedBy(tree: TreeWatcher, signal: AbortSignal | undefined): SkillsWatcher {
  const onAbort = (): void => void tree.close();
  if (signal?.aborted) void tree.close();
  else signal?.addEventListener('abort', onAbort, { once: true });
  return {
    ready: tree.ready,
    get mode() {
      return tree.mode;
    },
    get watchedFolders() {
      return tree.watchedFolders;
    },
    close: () => {
      signal?.removeEventListener('abort', onAbort);
      return tree.close();
    },
  };
}

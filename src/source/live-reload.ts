/**
 * The `watch` option as a source of change: the watcher over the local
 * folders (buckets are polled instead, bucket-source.ts), what it reported
 * between requests (problems, mode changes) until the next request logs
 * them, and how long an index may be kept while some folder cannot be
 * watched. A change seen on disk, and the first walk's end (a discovery that
 * ran during it may have missed a change in a folder not yet watched), are
 * reported to the feed it was made with.
 */
import type { HostLogger } from '../base/host.js';
import { isObjectUrl } from '../base/object-url.js';
import type { ResolvedOptions } from '../config/options.js';
import { startWatching } from '../watch/start.js';
import { WatchProblem, type SkillsWatcher, type WatchMode } from '../watch/watch.js';
import type { ChangeFeed, ChangeSource } from './changes.js';

/** How long an index is kept while the watcher cannot see every folder (cacheTtl, if shorter, wins). */
export const UNWATCHED_TTL = 60_000;

export class LiveReload implements ChangeSource {
  private readonly watcher: SkillsWatcher;
  private readonly problems: unknown[] = [];
  private modeChange: WatchMode | undefined;

  constructor(
    private readonly options: Pick<ResolvedOptions, 'directories' | 'fs' | 'cacheTtl'> & { watch: { debounceMs: number } },
    changes: ChangeFeed,
  ) {
    // Options already checked by config/: no second check. The owner of freshness stops it when `signal` aborts.
    this.watcher = startWatching(
      options.directories.filter((directory) => !isObjectUrl(directory)),
      {
        fs: options.fs,
        debounceMs: options.watch.debounceMs,
        onChange: () => changes.report('disk'),
        onError: (error) => this.problems.push(error),
        onModeChange: (mode) => {
          this.modeChange = mode;
        },
      },
    );
    void this.watcher.ready.then(() => changes.report('unseen'));
  }

  /** While changes can only be found by rescanning, an index is kept at most UNWATCHED_TTL. */
  maxAge(): number | undefined {
    return this.watcher.mode === 'watching' ? undefined : UNWATCHED_TTL;
  }

  /** Log what happened since the last request: each problem, and a changed mode. */
  report(log: HostLogger): void {
    for (const problem of this.problems.splice(0)) {
      const where = problem instanceof WatchProblem ? { kind: problem.kind, folder: problem.folder } : {};
      log.warn('[skills] watch', { ...where, error: problem instanceof Error ? problem.message : String(problem) });
    }
    const mode = this.modeChange;
    if (mode === undefined) return;
    this.modeChange = undefined;
    if (mode === 'watching') log.info('[skills] watch mode', { mode });
    else log.warn('[skills] watch mode', { mode, rescanEveryMs: Math.min(this.options.cacheTtl, UNWATCHED_TTL) });
  }

  close(): Promise<void> {
    return this.watcher.close();
  }
}

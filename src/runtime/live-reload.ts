/**
 * The `watch` option as the middleware uses it: the watcher, what it reported
 * between requests (problems, mode changes) until the next request logs them,
 * and how long an index may be kept while some folder cannot be watched.
 */
import type { IndexCache } from '../index/index-cache.js';
import type { ResolvedOptions } from '../config/options.js';
import type { HostLogger } from '../base/host.js';
import { WatchProblem, type SkillsWatcher, type WatchMode } from '../watch/watch.js';
import { startWatching } from '../watch/start.js';
import { isS3Url } from '../base/s3-url.js';

/** How long an index is kept while the watcher cannot see every folder (cacheTtl, if shorter, wins). */
export const UNWATCHED_TTL = 60_000;

export class LiveReload {
  private readonly watcher: SkillsWatcher;
  private readonly problems: unknown[] = [];
  private modeChange: WatchMode | undefined;

  /**
   * @param onChange called when skills changed on disk (before the cache is invalidated).
   */
  constructor(
    private readonly options: ResolvedOptions & { watch: { debounceMs: number } },
    cache: Pick<IndexCache<unknown>, 'invalidate' | 'peek'>,
    onChange: () => void,
  ) {
    // Options already checked by options.ts: no second check.
    // Buckets are checked by the refresh loop (source/bucket-source.ts), not watched.
    this.watcher = startWatching(
      options.directories.filter((directory) => !isS3Url(directory)),
      {
        fs: options.fs,
        debounceMs: options.watch.debounceMs,
        signal: options.signal,
        onChange: () => {
          onChange();
          cache.invalidate();
        },
        onError: (error) => this.problems.push(error),
        onModeChange: (mode) => {
          this.modeChange = mode;
        },
      },
    );
    // A discovery that ran during the start walk may have missed a change in a folder not yet watched.
    void this.watcher.ready.then(() => {
      if (cache.peek()) cache.invalidate();
    });
  }

  /** How long the index may be kept now: shorter while changes can only be found by rescanning. */
  ttl(): number {
    return this.watcher.mode === 'watching' ? this.options.cacheTtl : Math.min(this.options.cacheTtl, UNWATCHED_TTL);
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

/**
 * Live reload: watch the configured skill directories through the fs edge
 * and report each burst of changes once. A directory that is missing, gets
 * deleted or cannot be watched is reported through onError and retried on a
 * timer; the others keep running. Nothing here throws or rejects after start.
 */
import { basename } from 'node:path';
import { SkillsConfigError, SkillsWatchError } from './errors.js';
import { errorCode, errorReason, type SkillsFileSystem } from './fs.js';

export interface WatchChange {
  /** The configured directories that changed in this burst, in configuration order. */
  directories: string[];
  /** How many raw events the burst held. */
  events: number;
}

export interface WatchOptions {
  /** Must implement `watch` (node:fs/promises does). */
  fs: SkillsFileSystem;
  /** Quiet time that ends a burst, in milliseconds. Default 200. */
  debounceMs?: number;
  /** Longest a burst is held before it is reported anyway, in milliseconds. Default 10 × debounceMs. */
  maxWaitMs?: number;
  /** How often a directory that cannot be watched is tried again, in milliseconds. Default 1000. */
  retryMs?: number;
  /** Called once per burst, never concurrently with itself; a rejection goes to onError. */
  onChange: (change: WatchChange) => void | Promise<void>;
  /** Called with a SkillsWatchError when a directory cannot be watched (once until it recovers), or with what onChange threw. */
  onError?: (error: unknown) => void;
  /** Aborting it closes the watcher. */
  signal?: AbortSignal;
}

export interface SkillsWatcher {
  /** Stop watching; resolves when every watch has ended and a running onChange has finished. Idempotent. */
  close(): Promise<void>;
}

export const WATCH_DEFAULTS = { debounceMs: 200, retryMs: 1000 } as const;

/** Resolve after `ms`, or at once when `signal` aborts. Never rejects. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

function checkDelay(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0) {
    throw new SkillsConfigError(`[skills] watch \`${name}\` must be a number of milliseconds, 0 or more, got ${String(value)}.`);
  }
  return value;
}

/** An event about the watched directory itself: Linux reports '' (recursive) or its own name. */
function isSelfEvent(event: { eventType: string; filename: string | null }, directory: string): boolean {
  if (event.eventType !== 'rename') return false;
  return event.filename === null || event.filename === '' || event.filename === basename(directory);
}

export function watchSkillDirectories(directories: readonly string[], options: WatchOptions): SkillsWatcher {
  const { fs, onChange, onError, signal } = options;
  if (typeof fs.watch !== 'function') {
    throw new SkillsConfigError('[skills] `watch: true` needs an `fs` with a watch() method, like node:fs/promises. Pass one, or turn watch off.');
  }
  const watch = fs.watch.bind(fs);
  const debounceMs = checkDelay('debounceMs', options.debounceMs ?? WATCH_DEFAULTS.debounceMs);
  const maxWaitMs = checkDelay('maxWaitMs', options.maxWaitMs ?? debounceMs * 10);
  const retryMs = checkDelay('retryMs', options.retryMs ?? WATCH_DEFAULTS.retryMs);
  const unique = [...new Set(directories)];

  const stop = new AbortController();
  let closing: Promise<void> | undefined;

  // --- reporting: onError must never break the watcher
  const report = (error: unknown): void => {
    try {
      onError?.(error);
    } catch {
      // The caller's logger failed; there is nobody left to tell.
    }
  };

  // --- bursts: one timer for all directories
  const changed = new Set<string>();
  let events = 0;
  let burstStart = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> | undefined;
  let rerun = false;

  function schedule(directory: string): void {
    if (stop.signal.aborted) return;
    changed.add(directory);
    events++;
    const now = Date.now();
    if (timer === undefined) burstStart = now;
    else clearTimeout(timer);
    // Trailing debounce, capped so a directory that never goes quiet is still reported.
    const wait = Math.max(0, Math.min(debounceMs, burstStart + maxWaitMs - now));
    timer = setTimeout(flush, wait);
  }

  function flush(): void {
    timer = undefined;
    if (stop.signal.aborted || changed.size === 0) return;
    if (running) {
      // onChange is still busy with the last burst: report this one when it is done.
      rerun = true;
      return;
    }
    const change: WatchChange = { directories: unique.filter((d) => changed.has(d)), events };
    changed.clear();
    events = 0;
    running = (async () => {
      try {
        await onChange(change);
      } catch (error) {
        report(error);
      }
    })().finally(() => {
      running = undefined;
      if (rerun) {
        rerun = false;
        flush();
      }
    });
  }

  // --- one loop per directory: watch, and when that fails, wait and try again
  async function watchDirectory(directory: string): Promise<void> {
    let failure: string | undefined;
    const fail = (error: unknown): void => {
      const key = errorCode(error) ?? 'UNKNOWN';
      // Once per kind of trouble, not once per retry.
      if (failure === key) return;
      failure = key;
      report(
        new SkillsWatchError(
          directory,
          `[skills] cannot watch ${directory}: ${errorReason(error)}. Retrying every ${retryMs} ms; the other directories are still watched.`,
          { cause: error },
        ),
      );
    };

    // Set after a restart: once the watch is back, report a change, since events may have been missed.
    let resync = false;
    while (!stop.signal.aborted) {
      const attempt = new AbortController();
      const endAttempt = (): void => attempt.abort();
      stop.signal.addEventListener('abort', endAttempt, { once: true });
      let restart = false;
      try {
        const stats = await fs.stat(directory);
        if (!stats.isDirectory()) throw Object.assign(new Error(`${directory} is not a directory`), { code: 'ENOTDIR' });
        const events = watch(directory, { recursive: true, signal: attempt.signal });
        if (resync || failure !== undefined) {
          failure = undefined;
          resync = false;
          schedule(directory);
        }
        for await (const event of events) {
          schedule(directory);
          // The directory itself was removed, renamed or replaced: this watch is dead.
          if (isSelfEvent(event, directory)) {
            restart = true;
            attempt.abort();
          }
        }
        // The stream ended by itself (the platform dropped it): treat it like a failure.
        if (!attempt.signal.aborted) fail(Object.assign(new Error('the watch ended'), { code: 'WATCH_ENDED' }));
      } catch (error) {
        if (stop.signal.aborted) break;
        if (!restart) fail(error);
      } finally {
        stop.signal.removeEventListener('abort', endAttempt);
        attempt.abort();
      }
      if (restart) {
        // Straight back: the stat above tells a deleted directory from a replaced one.
        resync = true;
        continue;
      }
      await pause(retryMs, stop.signal);
    }
  }

  const loops = unique.map((directory) => watchDirectory(directory).catch(report));

  function close(): Promise<void> {
    closing ??= (async () => {
      stop.abort();
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      changed.clear();
      signal?.removeEventListener('abort', onAbort);
      await Promise.all(loops);
      await running;
    })();
    return closing;
  }
  const onAbort = (): void => void close();
  if (signal?.aborted) void close();
  else signal?.addEventListener('abort', onAbort, { once: true });

  return { close };
}

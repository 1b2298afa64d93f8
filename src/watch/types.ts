/**
 * The watcher's public shapes: what it is given, what it reports and what it
 * hands back. No code but the defaults, so every other watch module can
 * import from here without a cycle.
 */
import type { SkillsFileSystem } from '../base/fs.js';

export interface WatchChange {
  /** The configured directories that changed in this burst, in configuration order. */
  directories: string[];
  /** How many raw events the burst held (0 when a watch was put back and a change may have been missed). */
  events: number;
}

/**
 * `watching`: every folder is watched. `degraded`: some readable folders are
 * not (out of watch handles, or a watch failed), so changes there are seen
 * only by a rescan. `polling`: no folder is watched at all.
 */
export type WatchMode = 'watching' | 'degraded' | 'polling';

/**
 * `missing`: a configured directory does not exist (or is not a folder).
 * `unreadable`: a folder may not be read (permission denied); its skills cannot be loaded either.
 * `limit`: the system's limit on watches is reached (ENOSPC, EMFILE).
 * `failed`: a watch failed or ended for another reason.
 * `polling`: nothing can be watched; say the index now relies on rescans.
 */
export type WatchProblemKind = 'missing' | 'unreadable' | 'limit' | 'failed' | 'polling';

/** An fs that has the callback form of a folder watch (see `SkillsFileSystem.watchFolder`). */
export interface FolderWatching {
  watchFolder: NonNullable<SkillsFileSystem['watchFolder']>;
}

export interface WatchOptions {
  /**
   * Must implement `watchFolder` or `watch` (node:fs/promises has `watch`;
   * `nodeFileSystem` has both). `watch` is called without `recursive`, once
   * per folder; `watchFolder` is preferred when present.
   */
  fs: SkillsFileSystem;
  /**
   * Quiet time that ends a burst, in milliseconds.
   * @default 200 (WATCH_DEFAULTS.debounceMs)
   */
  debounceMs?: number;
  /**
   * Longest a burst is held before it is reported anyway, in milliseconds.
   * @default 10 × debounceMs
   */
  maxWaitMs?: number;
  /**
   * How often a folder that cannot be watched or read is tried again, in milliseconds.
   * @default 1000 (WATCH_DEFAULTS.retryMs)
   */
  retryMs?: number;
  /** Called once per burst, never concurrently with itself; a rejection goes to onError. */
  onChange: (change: WatchChange) => void | Promise<void>;
  /** Called with a WatchProblem (once until it clears), or with what onChange threw. */
  onError?: (error: unknown) => void;
  /** Called when `mode` changes. */
  onModeChange?: (mode: WatchMode) => void;
  /** Aborting it closes the watcher. */
  signal?: AbortSignal;
}

export interface SkillsWatcher {
  /** Resolves once the start walk has put a watch on every folder it could (trouble goes to onError). Never rejects. */
  readonly ready: Promise<void>;
  /** Whether every folder is watched, as of the last time the walk settled; see WatchMode. */
  readonly mode: WatchMode;
  /** How many folders are watched now: one handle each. */
  readonly watchedFolders: number;
  /** Stop watching; resolves when every watch has ended and a running onChange has finished. Idempotent. */
  close(): Promise<void>;
}

/**
 * How well the tree is watched: which folders are in trouble, how many are
 * watched, the mode that follows, and the reports that go with each (a
 * problem once until it clears; running out of watches once until every
 * folder is watched again; "polling" when nothing is).
 *
 * The mode settles only once no walk step is running: a folder put back is
 * listed before its sub-folders are tried, and the mode must not say
 * "watching" in between.
 */
import { errorCode } from '../base/fs.js';
import { directoryProblem, folderProblem, isGone, pollingProblem, troubleOf } from './problem.js';
import type { Folder, Root } from './tree.js';
import type { WatchMode } from './types.js';

export interface HealthSettings {
  roots: readonly Root[];
  retryMs: number;
  report: (error: unknown) => void;
  onModeChange: ((mode: WatchMode) => void) | undefined;
  /** Whether a walk step is running (the mode waits for it to finish). */
  walking: () => boolean;
}

export class Health {
  /** Folders with trouble, in the order it began: what a retry looks at. */
  readonly troubled = new Set<Folder>();
  private watched = 0;
  /** Troubled folders that are readable but not watched (limit, failed), and those out of watches. */
  private impaired = 0;
  private limited = 0;
  private lastMode: WatchMode = 'watching';
  private dirty = false;
  private limitReported = false;
  private closed = false;

  constructor(private readonly settings: HealthSettings) {}

  /** The mode as of the last time the walk settled: never a passing state in the middle of one. */
  get mode(): WatchMode {
    return this.lastMode;
  }

  get watchedFolders(): number {
    return this.watched;
  }

  /** Whether anything is left for a retry to try. */
  get needsRetry(): boolean {
    return this.troubled.size > 0 || this.settings.roots.some((root) => root.trouble !== undefined);
  }

  watchAdded(): void {
    this.watched++;
    this.update();
  }

  watchRemoved(): void {
    this.watched--;
    this.update();
  }

  /** `folder` cannot be watched or read: record it, and report it unless it was reported with the same code. */
  folderTrouble(folder: Folder, error: unknown): void {
    const code = errorCode(error) ?? 'UNKNOWN';
    const kind = troubleOf(code);
    const before = folder.trouble;
    this.mark(folder, { kind, code });
    const where = { directory: folder.root.path, folder: folder.path };
    if (kind === 'limit') {
      if (!this.limitReported) this.settings.report(folderProblem(where, kind, error, this.settings.retryMs));
      this.limitReported = true;
    } else if (before?.code !== code) {
      this.settings.report(folderProblem(where, kind, error, this.settings.retryMs));
    }
    this.update();
  }

  /** Forget the folder's trouble; true when it had some (a change may have been missed meanwhile). */
  clear(folder: Folder): boolean {
    if (folder.trouble === undefined) return false;
    this.mark(folder, undefined);
    this.update();
    return true;
  }

  /** Set or clear a folder's trouble and the counts that follow from it; the caller updates the mode. */
  mark(folder: Folder, trouble: Folder['trouble']): void {
    const before = folder.trouble;
    if (before) {
      this.troubled.delete(folder);
      if (before.kind !== 'unreadable') this.impaired--;
      if (before.kind === 'limit') this.limited--;
    }
    folder.trouble = trouble;
    if (trouble) {
      this.troubled.add(folder);
      if (trouble.kind !== 'unreadable') this.impaired++;
      if (trouble.kind === 'limit') this.limited++;
    }
  }

  /** A configured directory cannot be started on: record it, and report it unless it was reported with the same code. */
  rootTrouble(root: Root, error: unknown): void {
    const code = errorCode(error) ?? 'UNKNOWN';
    const kind = isGone(code) ? 'missing' : troubleOf(code);
    if (root.trouble?.code !== code) this.settings.report(directoryProblem(root.path, kind, error, this.settings.retryMs));
    root.trouble = { kind, code };
    this.update();
  }

  /** Note that the mode may have changed; it settles now unless a walk step is running. */
  update(): void {
    this.dirty = true;
    if (!this.settings.walking()) this.settle();
  }

  /** The walk has finished its last step: settle the mode if it may have changed meanwhile. */
  walkSettled(): void {
    if (this.dirty) this.settle();
  }

  /** Nothing is reported after this. */
  close(): void {
    this.closed = true;
  }

  private settle(): void {
    this.dirty = false;
    if (this.closed) return;
    // Out of watches again after every folder was watched is news again.
    if (this.limited === 0) this.limitReported = false;
    const mode = this.currentMode();
    if (mode === this.lastMode) return;
    this.lastMode = mode;
    const first = this.settings.roots[0]?.path ?? '';
    if (mode === 'polling') this.settings.report(pollingProblem(first, this.settings.retryMs));
    try {
      this.settings.onModeChange?.(mode);
    } catch (error) {
      this.settings.report(error);
    }
  }

  private currentMode(): WatchMode {
    // Unreadable or missing folders miss nothing discovery could see, and are retried; only these do.
    const impaired =
      this.impaired > 0 || this.settings.roots.some((root) => root.trouble?.kind === 'limit' || root.trouble?.kind === 'failed');
    if (!impaired) return 'watching';
    return this.watched === 0 ? 'polling' : 'degraded';
  }
}

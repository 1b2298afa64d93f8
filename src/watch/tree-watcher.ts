/**
 * The per-folder watch loop. Each folder is visited (watch first, then list:
 * whatever changes after the listing is an event), its listing applied to the
 * tree, and visited again when an event names it; visits of one folder are
 * serial, at most WALK_CONCURRENCY run at once. A folder that cannot be
 * watched or read is recorded as trouble and retried on one timer.
 *
 * The pieces it drives: FolderTree (what is watched), WalkQueue (the visits),
 * Health (trouble and mode), RetryTimer, and Bursts (what onChange hears).
 */
import { errorCode, type DirEntry, type FolderWatchHandle, type SkillsFileSystem } from '../base/fs.js';
import { childPath } from '../base/paths.js';
import { isSkippedName, MANIFEST_FILE, SKILL_FILE } from '../base/skill-file.js';
import type { Bursts } from './bursts.js';
import { codedError, nextTurn, openFolderWatch } from './folder-watch.js';
import { Health } from './health.js';
import { goneEntries, planListing } from './listing.js';
import { isGone } from './problem.js';
import { RetryTimer } from './retry-timer.js';
import { entryReach, FolderTree, rootReach, type Folder, type Reach, type Root } from './tree.js';
import type { SkillsWatcher, WatchMode } from './types.js';
import { WalkQueue } from './walk-queue.js';

/** Folders listed and watched at once during a walk: enough to keep the disk busy, few enough to leave the loop free. */
const WALK_CONCURRENCY = 16;
/** Sub-folders of one folder adopted between two turns of the event loop. */
const YIELD_EVERY = 128;

export interface TreeWatcherSettings {
  fs: SkillsFileSystem;
  retryMs: number;
  /** Never throws (the caller's onError, contained). */
  report: (error: unknown) => void;
  onModeChange: ((mode: WatchMode) => void) | undefined;
}

/** The real folder `path` names; rejects with ENOTDIR when it is something else. */
async function realFolder(fs: SkillsFileSystem, path: string): Promise<string> {
  const stats = await fs.stat(path);
  if (!stats.isDirectory()) throw codedError('ENOTDIR', `${path} is not a directory`);
  return fs.realpath(path);
}

export class TreeWatcher implements SkillsWatcher {
  readonly ready: Promise<void>;
  private readonly tree: FolderTree;
  private readonly queue: WalkQueue<Folder>;
  private readonly health: Health;
  private readonly retries: RetryTimer;
  private closed = false;
  private closing: Promise<void> | undefined;

  constructor(
    directories: readonly string[],
    private readonly settings: TreeWatcherSettings,
    private readonly bursts: Bursts,
  ) {
    const { report } = settings;
    this.tree = new FolderTree(directories, { dropped: (folder) => this.drop(folder), orphaned: (reach) => this.adopt(reach, true) });
    this.queue = new WalkQueue({
      concurrency: WALK_CONCURRENCY,
      run: (folder) => this.visits(folder),
      settled: () => this.health.walkSettled(),
      report,
    });
    this.health = new Health({
      roots: this.tree.roots,
      retryMs: settings.retryMs,
      report,
      onModeChange: settings.onModeChange,
      walking: () => this.queue.busy,
    });
    this.retries = new RetryTimer({ everyMs: settings.retryMs, run: () => this.retry(), again: () => this.health.needsRetry, report });
    for (const root of this.tree.roots) {
      this.queue.begin();
      this.startRoot(root, false)
        .catch(report)
        .finally(() => this.queue.end());
    }
    this.ready = this.queue.idle();
  }

  get mode(): WatchMode {
    return this.health.mode;
  }

  get watchedFolders(): number {
    return this.health.watchedFolders;
  }

  close(): Promise<void> {
    this.closed = true;
    this.closing ??= this.shutDown();
    return this.closing;
  }

  private async shutDown(): Promise<void> {
    this.health.close();
    this.retries.stop();
    for (const folder of this.tree.folders()) this.unwatch(folder);
    await this.queue.idle();
    await this.retries.finished();
    await this.bursts.close();
  }

  /** The folder left the tree, or the watcher is closing: nothing more to do for it. */
  private stopped(folder: Folder): boolean {
    return folder.removed || this.closed;
  }

  // --- configured directories

  private async startRoot(root: Root, resync: boolean): Promise<void> {
    let realPath: string;
    try {
      realPath = await realFolder(this.settings.fs, root.path);
    } catch (error) {
      if (!this.closed) this.rootTrouble(root, error);
      return;
    }
    if (this.closed) return;
    root.realPath = realPath;
    root.trouble = undefined;
    this.adopt(rootReach(root, realPath), resync);
    this.health.update();
  }

  private rootTrouble(root: Root, error: unknown): void {
    this.health.rootTrouble(root, error);
    this.retries.schedule();
  }

  // --- folders: adopt, visit, forget

  private adopt(reach: Reach, resync: boolean): void {
    const folder = this.tree.add(reach);
    if (folder) this.request(folder, 'all', resync);
  }

  /** Look at `folder` again (all of it, or the entries named), after the visit running now. */
  private request(folder: Folder, what: string | 'all', resync: boolean): void {
    if (this.stopped(folder)) return;
    if (what === 'all' || folder.pending === 'all') folder.pending = 'all';
    else if (folder.pending === undefined) folder.pending = new Set([what]);
    else folder.pending.add(what);
    if (resync) folder.resync = true;
    if (folder.queued) return;
    folder.queued = true;
    this.queue.push(folder);
  }

  /** Visit the folder until nothing more is asked of it. */
  private async visits(folder: Folder): Promise<void> {
    try {
      while (folder.pending !== undefined && !this.stopped(folder)) {
        const pending = folder.pending;
        const resync = folder.resync;
        folder.pending = undefined;
        folder.resync = false;
        await this.visit(folder, pending, resync);
      }
    } finally {
      folder.queued = false;
    }
  }

  /** Watch first, then list: whatever changes after the listing is an event. */
  private async visit(folder: Folder, pending: Set<string> | 'all', resync: boolean): Promise<void> {
    if (this.stopped(folder)) return;
    const attached = folder.watch === undefined;
    if (attached) {
      const error = await this.attach(folder);
      if (this.stopped(folder)) return;
      if (error !== undefined) return this.troubleWith(folder, error);
    }
    let entries: DirEntry[];
    try {
      entries = await this.settings.fs.readdir(folder.path, { withFileTypes: true });
    } catch (error) {
      if (this.stopped(folder)) return;
      return this.troubleWith(folder, error);
    }
    if (this.stopped(folder)) return;
    const recovered = this.health.clear(folder);
    await this.reconcile(folder, entries, pending, resync);
    if ((attached && resync) || recovered) this.bursts.add(this.tree.rootsOf(folder), 0);
  }

  /** Match the folder's sub-folders to its listing: adopt new ones, forget gone or re-pointed ones. */
  private async reconcile(folder: Folder, entries: readonly DirEntry[], pending: Set<string> | 'all', resync: boolean): Promise<void> {
    const plan = planListing(folder, entries, pending);
    await this.adoptFolders(folder, plan.folders, resync);
    if (this.stopped(folder)) return;
    await this.relink(folder, plan.links, resync);
    if (this.stopped(folder)) return;
    for (const name of goneEntries(folder, plan)) this.forget(folder, name);
  }

  /** Adopt sub-folders, letting the loop run between batches: a folder of thousands must not hold it. */
  private async adoptFolders(folder: Folder, names: readonly string[], resync: boolean): Promise<void> {
    for (let i = 0; i < names.length; i++) {
      if (i > 0 && i % YIELD_EVERY === 0) {
        await nextTurn();
        if (this.stopped(folder)) return;
      }
      const name = names[i] as string;
      this.forget(folder, name);
      this.adopt(entryReach(folder, name, undefined), resync);
    }
  }

  /** Hold each named link as what it leads to now; a link that leads to no folder is dropped (discovery reports those). */
  private async relink(folder: Folder, names: readonly string[], resync: boolean): Promise<void> {
    const targets = await Promise.all(names.map((name) => this.resolveLink(childPath(folder.path, name))));
    if (this.stopped(folder)) return;
    names.forEach((name, i) => {
      const realPath = targets[i];
      const known = folder.entry(name);
      if (known !== undefined && known.link && known.realPath === realPath) return;
      this.forget(folder, name);
      if (realPath !== undefined) this.adopt(entryReach(folder, name, { realPath }), resync);
    });
  }

  /** The real folder a link leads to; undefined for a link to a file, a broken link or a loop. */
  private async resolveLink(path: string): Promise<string | undefined> {
    try {
      return await realFolder(this.settings.fs, path);
    } catch {
      return undefined;
    }
  }

  private forget(folder: Folder, name: string): void {
    if (this.tree.forget(folder, name)) this.health.update();
  }

  /** The tree let go of `folder`: close its watch and drop its trouble. */
  private drop(folder: Folder): void {
    this.unwatch(folder);
    this.health.mark(folder, undefined);
  }

  /** The folder is gone: forget it, and look at what holds it (a configured directory is reported and retried). */
  private vanish(folder: Folder, error: unknown): void {
    this.tree.remove(folder);
    this.health.update();
    if (folder.parent) this.request(folder.parent, folder.name, true);
    else this.rootTrouble(folder.root, error);
  }

  // --- watches

  /** Start watching `folder`; undefined once the watch is in place, else why it could not be. */
  private async attach(folder: Folder): Promise<unknown> {
    let handle: FolderWatchHandle | undefined;
    let failedEarly: { error: unknown } | undefined;
    // Events of a watch still starting count; those of a watch since replaced or closed are stale.
    const onEvent = (eventType: string, filename: string | null): void => {
      if (handle === undefined ? !this.stopped(folder) : folder.watch === handle) this.onEvent(folder, eventType, filename);
    };
    const onError = (error: unknown): void => {
      if (handle === undefined) failedEarly = { error };
      else if (folder.watch === handle) this.lost(folder, error);
    };
    try {
      handle = await openFolderWatch(this.settings.fs, folder.path, onEvent, onError);
    } catch (error) {
      return error;
    }
    if (failedEarly !== undefined || this.stopped(folder)) {
      handle.close();
      return failedEarly?.error ?? codedError('WATCH_CLOSED', 'the watcher closed');
    }
    folder.watch = handle;
    this.health.watchAdded();
    return undefined;
  }

  /** The folder's watch failed after it started. */
  private lost(folder: Folder, error: unknown): void {
    this.unwatch(folder);
    if (isGone(errorCode(error))) this.request(folder, 'all', true);
    else this.setTrouble(folder, error);
  }

  private unwatch(folder: Folder): void {
    if (folder.watch === undefined) return;
    const handle = folder.watch;
    folder.watch = undefined;
    try {
      handle.close();
    } catch (error) {
      this.settings.report(error);
    }
    this.health.watchRemoved();
  }

  private onEvent(folder: Folder, eventType: string, filename: string | null): void {
    const roots = this.tree.rootsOf(folder);
    if (!filename) {
      this.request(folder, 'all', true);
    } else if (filename === folder.name) {
      // About the folder itself (Linux names it so), or an entry of the same name: check it again,
      // through a new watch when it may have been deleted, moved or replaced.
      if (eventType === 'rename') this.unwatch(folder);
      this.request(folder, 'all', true);
    } else if (isSkippedName(filename)) {
      return;
    } else if (eventType === 'rename') {
      this.request(folder, filename, true);
    } else if (filename !== SKILL_FILE && filename !== MANIFEST_FILE) {
      const child = folder.children?.get(filename);
      // A sub-folder's permissions changed; anything else is a bundled file's content, read fresh when read.
      if (!child) return;
      this.request(child, 'all', true);
    }
    this.bursts.add(roots, 1);
  }

  // --- trouble and retries

  private troubleWith(folder: Folder, error: unknown): void {
    if (isGone(errorCode(error))) this.vanish(folder, error);
    else this.setTrouble(folder, error);
  }

  private setTrouble(folder: Folder, error: unknown): void {
    this.health.folderTrouble(folder, error);
    this.retries.schedule();
  }

  private async retry(): Promise<void> {
    const roots = this.tree.roots.filter((root) => root.trouble !== undefined).map((root) => this.startRoot(root, true));
    const troubled = [...this.health.troubled];
    for (const folder of troubled) if (folder.trouble?.kind !== 'limit') this.request(folder, 'all', true);
    await Promise.all(roots);
    await this.queue.idle();
    await this.retryOutOfWatches(troubled);
  }

  /** Out of watches: one folder at a time (with what it leads to), and stop at the first that still fails. */
  private async retryOutOfWatches(troubled: readonly Folder[]): Promise<void> {
    for (const folder of troubled) {
      if (folder.trouble?.kind !== 'limit' || this.stopped(folder)) continue;
      this.request(folder, 'all', true);
      await this.queue.idle();
      if (folder.trouble?.kind === 'limit') break;
    }
  }
}

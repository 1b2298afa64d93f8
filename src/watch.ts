/**
 * Live reload: watch the configured skill directories and report each burst
 * of changes once.
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
 */
import { basename } from 'node:path';
import { childPath, isSameOrInside, isSkippedName, SKILL_FILE } from './discover/scan.js';
import { SkillsConfigError, SkillsWatchError } from './errors.js';
import { errorCode, errorReason, type DirEntry, type SkillsFileSystem } from './fs.js';

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

/** What the watcher hands onError about its own trouble. Reported once until it clears; never thrown. */
export class WatchProblem extends SkillsWatchError {
  readonly kind: WatchProblemKind;
  /** The folder the problem is about: the configured directory or a folder inside it. */
  readonly folder: string;

  constructor(kind: WatchProblemKind, directory: string, folder: string, message: string, options?: { cause?: unknown }) {
    super(directory, message, options);
    this.name = 'WatchProblem';
    this.kind = kind;
    this.folder = folder;
  }
}

/**
 * The callback form of a folder watch, as node:fs `watch` gives it: lighter
 * than the async iterable (measured on node 20: 0.6 KB of heap per folder
 * instead of 2.7 KB, which an AbortController per folder mostly makes). Used
 * when the fs has it. It throws when the folder cannot be watched at all, and
 * calls `onError` when a watch fails later.
 */
export interface FolderWatching {
  watchFolder(path: string, onEvent: (eventType: string, filename: string | null) => void, onError: (error: unknown) => void): { close(): void };
}

export interface WatchOptions {
  /**
   * Must implement `watch` (node:fs/promises does), called without
   * `recursive`, once per folder; or `watchFolder` (see FolderWatching),
   * which is preferred when present.
   */
  fs: SkillsFileSystem & Partial<FolderWatching>;
  /** Quiet time that ends a burst, in milliseconds. Default 200. */
  debounceMs?: number;
  /** Longest a burst is held before it is reported anyway, in milliseconds. Default 10 × debounceMs. */
  maxWaitMs?: number;
  /** How often a folder that cannot be watched or read is tried again, in milliseconds. Default 1000. */
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

export const WATCH_DEFAULTS = { debounceMs: 200, retryMs: 1000 } as const;

/** Folders listed and watched at once during a walk: enough to keep the disk busy, few enough to leave the loop free. */
const WALK_CONCURRENCY = 16;
/** Entries of one folder handled between two turns of the event loop. */
const YIELD_EVERY = 128;

function checkDelay(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0) {
    throw new SkillsConfigError(`[skills] watch \`${name}\` must be a number of milliseconds, 0 or more, got ${String(value)}.`);
  }
  return value;
}

function codedError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

/** One turn of the event loop: lets a watch that fails at once say so, and other work run during a long walk. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

type WatchEvent = { eventType: string; filename: string | null };
type IterableWatch = NonNullable<SkillsFileSystem['watch']>;

interface FolderWatch {
  close(): void;
}

/** Watch one folder through either form; rejects when it cannot be watched at all. */
async function openFolderWatch(
  fs: SkillsFileSystem & Partial<FolderWatching>,
  path: string,
  onEvent: (eventType: string, filename: string | null) => void,
  onError: (error: unknown) => void,
): Promise<FolderWatch> {
  if (typeof fs.watchFolder === 'function') return fs.watchFolder(path, onEvent, onError);
  if (typeof fs.watch !== 'function') throw codedError('ENOSYS', 'the fs has no watch()');
  return iterableWatch(fs.watch.bind(fs), path, onEvent, onError);
}

async function iterableWatch(watch: IterableWatch, path: string, onEvent: (eventType: string, filename: string | null) => void, onError: (error: unknown) => void): Promise<FolderWatch> {
  const controller = new AbortController();
  const iterator = watch(path, { recursive: false, signal: controller.signal })[Symbol.asyncIterator]();
  // Node starts the watch on the first next(); a folder it cannot watch rejects it at once.
  const first = iterator.next();
  const early = await Promise.race([first.then(() => undefined, (error: unknown) => ({ error })), nextTurn()]);
  if (early !== undefined) {
    controller.abort();
    throw early.error;
  }
  void (async () => {
    try {
      for (let next = first; ; next = iterator.next()) {
        const result: IteratorResult<WatchEvent> = await next;
        if (controller.signal.aborted) return;
        if (result.done) throw codedError('WATCH_ENDED', 'the watch ended');
        onEvent(result.value.eventType, result.value.filename);
      }
    } catch (error) {
      // Aborted by close(): not a failure.
      if (!controller.signal.aborted) onError(error);
    }
  })();
  return { close: () => controller.abort() };
}

type FolderTrouble = 'unreadable' | 'limit' | 'failed';

function troubleOf(code: string | undefined): FolderTrouble {
  if (code === 'EACCES' || code === 'EPERM') return 'unreadable';
  if (code === 'ENOSPC' || code === 'EMFILE' || code === 'ENFILE') return 'limit';
  return 'failed';
}

/** Gone: the folder (or the link to it) no longer exists, which is a change, not trouble. */
function isGone(code: string | undefined): boolean {
  return code === 'ENOENT' || code === 'ENOTDIR';
}

// ---------------------------------------------------------------------------
// Bursts: one debounce timer for every folder, onChange never concurrent.

class Bursts {
  private readonly changed = new Set<string>();
  private events = 0;
  private startedAt = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> | undefined;
  private rerun = false;
  private closed = false;

  constructor(
    private readonly order: readonly string[],
    private readonly debounceMs: number,
    private readonly maxWaitMs: number,
    private readonly onChange: WatchOptions['onChange'],
    private readonly report: (error: unknown) => void,
  ) {}

  add(directories: readonly string[], events: number): void {
    if (this.closed) return;
    for (const directory of directories) this.changed.add(directory);
    this.events += events;
    const now = Date.now();
    if (this.timer === undefined) this.startedAt = now;
    else clearTimeout(this.timer);
    // Trailing debounce, capped so a folder that never goes quiet is still reported.
    const wait = Math.max(0, Math.min(this.debounceMs, this.startedAt + this.maxWaitMs - now));
    this.timer = setTimeout(() => this.flush(), wait);
  }

  private flush(): void {
    this.timer = undefined;
    if (this.closed || this.changed.size === 0) return;
    if (this.running) {
      // onChange is still busy with the last burst: report this one when it is done.
      this.rerun = true;
      return;
    }
    const change: WatchChange = { directories: this.order.filter((d) => this.changed.has(d)), events: this.events };
    this.changed.clear();
    this.events = 0;
    this.running = (async () => {
      try {
        await this.onChange(change);
      } catch (error) {
        this.report(error);
      }
    })().finally(() => {
      this.running = undefined;
      if (this.rerun) {
        this.rerun = false;
        this.flush();
      }
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.changed.clear();
    await this.running;
  }
}

// ---------------------------------------------------------------------------
// The tree: one Folder per real folder, reached by one path; other paths to it are aliases.

class Root {
  /** The configured directory's real path, once known: which roots a folder belongs to. */
  realPath: string | undefined;
  folder: Folder | undefined;
  /** Why the directory itself cannot be watched, while it cannot (the code it was reported with). */
  trouble: { kind: 'missing' | FolderTrouble; code: string } | undefined;

  constructor(readonly path: string) {}
}

/** One way to reach a real folder: a configured directory, or an entry of a folder. */
interface Reach {
  root: Root;
  parent: Folder | undefined;
  name: string;
  path: string;
  realPath: string;
  link: boolean;
}

class Folder {
  readonly root: Root;
  readonly parent: Folder | undefined;
  readonly name: string;
  readonly path: string;
  readonly realPath: string;
  readonly link: boolean;
  /** Sub-folders this folder owns, by entry name; made on first use (most folders are leaves). */
  children: Map<string, Folder> | undefined;
  /** Entries that reach a folder owned elsewhere (a second link to it, a link back up). */
  aliases: Map<string, Reach> | undefined;
  /** The running watch; undefined while there is none. */
  watch: FolderWatch | undefined;
  trouble: { kind: FolderTrouble; code: string } | undefined;
  removed = false;
  /** Queued or being visited (visits are serial per folder), and what the next visit must look at. */
  queued = false;
  pending: Set<string> | 'all' | undefined;
  /** Report a change once the next visit has put a watch on it (a change may have been missed meanwhile). */
  resync = false;

  constructor(reach: Reach) {
    this.root = reach.root;
    this.parent = reach.parent;
    this.name = reach.name;
    this.path = reach.path;
    this.realPath = reach.realPath;
    this.link = reach.link;
  }
}

interface Settings {
  fs: SkillsFileSystem & Partial<FolderWatching>;
  retryMs: number;
  report: (error: unknown) => void;
  onModeChange: ((mode: WatchMode) => void) | undefined;
}

class TreeWatcher implements SkillsWatcher {
  readonly ready: Promise<void>;
  private readonly roots: Root[];
  private readonly owners = new Map<string, Folder>();
  private readonly aliases = new Set<Reach>();
  private readonly troubled = new Set<Folder>();
  /** Folders waiting for a visit, in order; `head` is the next (shift() is O(n), and a walk may queue 100,000). */
  private queue: Folder[] = [];
  private head = 0;
  private visiting = 0;
  /** Walk steps not finished (roots starting, folders queued or visited): `ready` and close() wait for none. */
  private steps = 0;
  private idleWaiters: Array<() => void> = [];
  private retrying: Promise<void> | undefined;
  private watched = 0;
  /** Troubled folders that are readable but not watched (limit, failed), and those out of watches. */
  private impaired = 0;
  private limited = 0;
  private lastMode: WatchMode = 'watching';
  private modeDirty = false;
  private limitReported = false;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;
  private closing: Promise<void> | undefined;

  constructor(
    directories: readonly string[],
    private readonly settings: Settings,
    private readonly bursts: Bursts,
  ) {
    this.roots = directories.map((path) => new Root(path));
    for (const root of this.roots) {
      this.begin();
      this.startRoot(root, false)
        .catch((error: unknown) => this.settings.report(error))
        .finally(() => this.end());
    }
    this.ready = this.idle();
  }

  /** The mode as of the last time the walk settled: never a passing state in the middle of one. */
  get mode(): WatchMode {
    return this.lastMode;
  }

  private currentMode(): WatchMode {
    // Unreadable or missing folders miss nothing discovery could see, and are retried; only these do.
    const impaired = this.impaired > 0 || this.roots.some((root) => root.trouble?.kind === 'limit' || root.trouble?.kind === 'failed');
    if (!impaired) return 'watching';
    return this.watched === 0 ? 'polling' : 'degraded';
  }

  get watchedFolders(): number {
    return this.watched;
  }

  close(): Promise<void> {
    this.closed = true;
    this.closing ??= (async () => {
      if (this.retryTimer !== undefined) clearTimeout(this.retryTimer);
      this.retryTimer = undefined;
      for (const folder of this.owners.values()) this.unwatch(folder);
      await this.idle();
      await this.retrying;
      await this.bursts.close();
    })();
    return this.closing;
  }

  // --- bookkeeping

  private begin(): void {
    this.steps++;
  }

  private end(): void {
    this.steps--;
    if (this.steps > 0) return;
    if (this.modeDirty) this.settleMode();
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  /** Resolves once no walk step is left, including those started meanwhile. */
  private idle(): Promise<void> {
    return this.steps === 0 ? Promise.resolve() : new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private rootsOf(folder: Folder): string[] {
    const roots = [folder.root.path];
    for (const root of this.roots) {
      if (root !== folder.root && root.realPath !== undefined && isSameOrInside(folder.realPath, root.realPath)) roots.push(root.path);
    }
    return roots;
  }

  // --- roots

  private async startRoot(root: Root, resync: boolean): Promise<void> {
    let realPath: string;
    try {
      const stats = await this.settings.fs.stat(root.path);
      if (!stats.isDirectory()) throw codedError('ENOTDIR', `${root.path} is not a directory`);
      realPath = await this.settings.fs.realpath(root.path);
    } catch (error) {
      if (!this.closed) this.rootTrouble(root, error);
      return;
    }
    if (this.closed) return;
    root.realPath = realPath;
    root.trouble = undefined;
    this.adopt({ root, parent: undefined, name: basename(root.path), path: root.path, realPath, link: false }, resync);
    this.updateMode();
  }

  private rootTrouble(root: Root, error: unknown): void {
    const code = errorCode(error) ?? 'UNKNOWN';
    const kind = isGone(code) ? 'missing' : troubleOf(code);
    if (root.trouble?.code !== code) {
      this.settings.report(
        new WatchProblem(
          kind,
          root.path,
          root.path,
          `[skills] cannot watch ${root.path}: ${errorReason(error)}. Retrying every ${this.settings.retryMs} ms; the other directories are still watched.`,
          { cause: error },
        ),
      );
    }
    root.trouble = { kind, code };
    this.updateMode();
    this.scheduleRetry();
  }

  // --- folders: adopt, visit, forget

  private adopt(reach: Reach, resync: boolean): void {
    // A second path to a watched folder, or a link back up the tree: remember it, walk nothing.
    if (this.owners.has(reach.realPath) || (reach.parent !== undefined && isSameOrInside(reach.parent.realPath, reach.realPath))) {
      this.aliases.add(reach);
      if (reach.parent) (reach.parent.aliases ??= new Map()).set(reach.name, reach);
      return;
    }
    const folder = new Folder(reach);
    this.owners.set(folder.realPath, folder);
    if (reach.parent) (reach.parent.children ??= new Map()).set(reach.name, folder);
    else reach.root.folder = folder;
    this.request(folder, 'all', resync);
  }

  /** Look at `folder` again (all of it, or the entries named), after the visit running now. */
  private request(folder: Folder, what: string | 'all', resync: boolean): void {
    if (folder.removed || this.closed) return;
    if (what === 'all' || folder.pending === 'all') folder.pending = 'all';
    else if (folder.pending === undefined) folder.pending = new Set([what]);
    else folder.pending.add(what);
    if (resync) folder.resync = true;
    if (folder.queued) return;
    folder.queued = true;
    this.begin();
    this.queue.push(folder);
    this.pump();
  }

  /** Start queued visits while fewer than WALK_CONCURRENCY run. */
  private pump(): void {
    while (this.visiting < WALK_CONCURRENCY && this.head < this.queue.length) {
      const folder = this.queue[this.head++] as Folder;
      if (this.head >= 1024 && this.head * 2 >= this.queue.length) {
        this.queue = this.queue.slice(this.head);
        this.head = 0;
      }
      this.visiting++;
      void this.visits(folder);
    }
  }

  private async visits(folder: Folder): Promise<void> {
    try {
      while (folder.pending !== undefined && !folder.removed && !this.closed) {
        const pending = folder.pending;
        const resync = folder.resync;
        folder.pending = undefined;
        folder.resync = false;
        await this.visit(folder, pending, resync);
      }
    } catch (error) {
      this.settings.report(error);
    } finally {
      folder.queued = false;
      this.visiting--;
      this.end();
      this.pump();
    }
  }

  /** Watch first, then list: whatever changes after the listing is an event. */
  private async visit(folder: Folder, pending: Set<string> | 'all', resync: boolean): Promise<void> {
    if (folder.removed || this.closed) return;
    const attached = folder.watch === undefined;
    if (attached) {
      const error = await this.attach(folder);
      if (folder.removed || this.closed) return;
      if (error !== undefined) return this.troubleWith(folder, error);
    }
    let entries: DirEntry[];
    try {
      entries = await this.settings.fs.readdir(folder.path, { withFileTypes: true });
    } catch (error) {
      if (folder.removed || this.closed) return;
      return this.troubleWith(folder, error);
    }
    if (folder.removed || this.closed) return;
    const recovered = this.clearTrouble(folder);
    await this.reconcile(folder, entries, pending, resync);
    if ((attached && resync) || recovered) this.bursts.add(this.rootsOf(folder), 0);
  }

  /** Match the folder's sub-folders to its listing: adopt new ones, forget gone or re-pointed ones. */
  private async reconcile(folder: Folder, entries: readonly DirEntry[], pending: Set<string> | 'all', resync: boolean): Promise<void> {
    const present = new Set<string>();
    const links: string[] = [];
    for (let i = 0; i < entries.length; i++) {
      // A folder of thousands of entries must not hold the loop while they are adopted.
      if (i > 0 && i % YIELD_EVERY === 0) {
        await nextTurn();
        if (folder.removed || this.closed) return;
      }
      const entry = entries[i] as DirEntry;
      const name = entry.name;
      if (isSkippedName(name)) continue;
      if (entry.isDirectory()) {
        present.add(name);
        if (folder.children?.get(name)?.link === false || folder.aliases?.get(name)?.link === false) continue;
        this.forget(folder, name);
        this.adopt({ root: folder.root, parent: folder, name, path: childPath(folder.path, name), realPath: childPath(folder.realPath, name), link: false }, resync);
      } else if (entry.isSymbolicLink()) {
        present.add(name);
        const known = folder.children?.get(name) ?? folder.aliases?.get(name);
        // A link seen before is resolved again only when an event named it.
        if (known === undefined || pending === 'all' || pending.has(name)) links.push(name);
      }
    }
    const targets = await Promise.all(links.map((name) => this.resolveLink(childPath(folder.path, name))));
    if (folder.removed || this.closed) return;
    links.forEach((name, i) => {
      const realPath = targets[i];
      const known = folder.children?.get(name) ?? folder.aliases?.get(name);
      if (known !== undefined && known.link && known.realPath === realPath) return;
      this.forget(folder, name);
      if (realPath === undefined) return;
      this.adopt({ root: folder.root, parent: folder, name, path: childPath(folder.path, name), realPath, link: true }, resync);
    });
    for (const name of [...(folder.children?.keys() ?? []), ...(folder.aliases?.keys() ?? [])]) {
      if (!present.has(name)) this.forget(folder, name);
    }
  }

  /** The real folder a link leads to; undefined for a link to a file, a broken link or a loop (discovery reports those). */
  private async resolveLink(path: string): Promise<string | undefined> {
    try {
      if (!(await this.settings.fs.stat(path)).isDirectory()) return undefined;
      return await this.settings.fs.realpath(path);
    } catch {
      return undefined;
    }
  }

  /** Drop whatever `folder` holds under `name`: a sub-folder with its subtree, or an alias. */
  private forget(folder: Folder, name: string): void {
    const child = folder.children?.get(name);
    if (child) this.remove(child);
    const alias = folder.aliases?.get(name);
    if (alias) {
      folder.aliases?.delete(name);
      this.aliases.delete(alias);
    }
  }

  private remove(folder: Folder): void {
    const stack = [folder];
    for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
      next.removed = true;
      this.unwatch(next);
      if (this.owners.get(next.realPath) === next) this.owners.delete(next.realPath);
      this.markTrouble(next, undefined);
      for (const alias of next.aliases?.values() ?? []) this.aliases.delete(alias);
      if (next.children) stack.push(...next.children.values());
    }
    if (folder.parent?.children?.get(folder.name) === folder) folder.parent.children.delete(folder.name);
    if (folder.root.folder === folder) folder.root.folder = undefined;
    // A folder reached by more than one path is watched again through one still there.
    for (const alias of [...this.aliases]) {
      if (this.owners.has(alias.realPath)) continue;
      this.aliases.delete(alias);
      alias.parent?.aliases?.delete(alias.name);
      if (!alias.parent?.removed) this.adopt(alias, true);
    }
    this.updateMode();
  }

  /** The folder is gone: forget it, and look at what holds it (a configured directory is reported and retried). */
  private vanish(folder: Folder, error: unknown): void {
    this.remove(folder);
    if (folder.parent) this.request(folder.parent, folder.name, true);
    else this.rootTrouble(folder.root, error);
  }

  // --- watches

  /** Start watching `folder`; undefined once the watch is in place, else why it could not be. */
  private async attach(folder: Folder): Promise<unknown> {
    let handle: FolderWatch | undefined;
    let failedEarly: { error: unknown } | undefined;
    // Events of a watch still starting count; those of a watch since replaced or closed are stale.
    const onEvent = (eventType: string, filename: string | null): void => {
      if (handle === undefined ? !folder.removed && !this.closed : folder.watch === handle) this.onEvent(folder, eventType, filename);
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
    if (failedEarly !== undefined || folder.removed || this.closed) {
      handle.close();
      return failedEarly?.error ?? codedError('WATCH_CLOSED', 'the watcher closed');
    }
    folder.watch = handle;
    this.watched++;
    this.updateMode();
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
    this.watched--;
    this.updateMode();
  }

  private onEvent(folder: Folder, eventType: string, filename: string | null): void {
    const roots = this.rootsOf(folder);
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
    } else if (filename !== SKILL_FILE) {
      const child = folder.children?.get(filename);
      // A sub-folder's permissions changed; anything else is a bundled file's content, read fresh when read.
      if (!child) return;
      this.request(child, 'all', true);
    }
    this.bursts.add(roots, 1);
  }

  // --- trouble, retries and mode

  private troubleWith(folder: Folder, error: unknown): void {
    if (isGone(errorCode(error))) this.vanish(folder, error);
    else this.setTrouble(folder, error);
  }

  private setTrouble(folder: Folder, error: unknown): void {
    const code = errorCode(error) ?? 'UNKNOWN';
    const kind = troubleOf(code);
    const before = folder.trouble;
    this.markTrouble(folder, { kind, code });
    if (kind === 'limit') {
      if (!this.limitReported) this.settings.report(this.problem(folder, kind, error));
      this.limitReported = true;
    } else if (before?.code !== code) {
      this.settings.report(this.problem(folder, kind, error));
    }
    this.updateMode();
    this.scheduleRetry();
  }

  /** Forget the folder's trouble; true when it had some (a change may have been missed meanwhile). */
  private clearTrouble(folder: Folder): boolean {
    if (folder.trouble === undefined) return false;
    this.markTrouble(folder, undefined);
    this.updateMode();
    return true;
  }

  private markTrouble(folder: Folder, trouble: Folder['trouble']): void {
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

  private problem(folder: Folder, kind: FolderTrouble, error: unknown): WatchProblem {
    const retry = `retrying every ${this.settings.retryMs} ms`;
    const rescans = 'changes there are seen only when the index is rescanned (every `cacheTtl`)';
    const message =
      kind === 'unreadable'
        ? `[skills] cannot watch ${folder.path}: ${errorReason(error)}. Its skills cannot be loaded until this process may read it; ${retry}, and the other folders are still watched.`
        : kind === 'limit'
          ? `[skills] cannot watch ${folder.path} and folders not yet watched: the system's limit on watches is reached (${errorCode(error) ?? 'limit'}). Until it is raised (Linux: sysctl fs.inotify.max_user_watches) or fewer folders are configured, ${rescans}; ${retry}.`
          : `[skills] cannot watch ${folder.path}: ${errorReason(error)}. Until it can, ${rescans}; ${retry}, and the other folders are still watched.`;
    return new WatchProblem(kind, folder.root.path, folder.path, message, { cause: error });
  }

  private scheduleRetry(): void {
    // A retry running schedules the next itself when it is done.
    if (this.retryTimer !== undefined || this.retrying !== undefined || this.closed) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.retrying = this.retry()
        .catch((error: unknown) => this.settings.report(error))
        .finally(() => {
          this.retrying = undefined;
          if (this.troubled.size > 0 || this.roots.some((root) => root.trouble !== undefined)) this.scheduleRetry();
        });
    }, this.settings.retryMs);
  }

  private async retry(): Promise<void> {
    const roots = this.roots.filter((root) => root.trouble !== undefined).map((root) => this.startRoot(root, true));
    const troubled = [...this.troubled];
    for (const folder of troubled) if (folder.trouble?.kind !== 'limit') this.request(folder, 'all', true);
    await Promise.all(roots);
    await this.idle();
    // Out of watches: one folder at a time (with what it leads to), and stop at the first that still fails.
    for (const folder of troubled) {
      if (folder.trouble?.kind !== 'limit' || folder.removed || this.closed) continue;
      this.request(folder, 'all', true);
      await this.idle();
      if (folder.trouble?.kind === 'limit') break;
    }
  }

  /**
   * Note that the mode may have changed. It is settled once no walk is running:
   * a folder put back is listed before its sub-folders are tried, and the mode
   * must not say "watching" in between.
   */
  private updateMode(): void {
    this.modeDirty = true;
    if (this.steps === 0) this.settleMode();
  }

  private settleMode(): void {
    this.modeDirty = false;
    if (this.closed) return;
    // Out of watches again after every folder was watched is news again.
    if (this.limited === 0) this.limitReported = false;
    const mode = this.currentMode();
    if (mode === this.lastMode) return;
    this.lastMode = mode;
    if (mode === 'polling') {
      this.settings.report(
        new WatchProblem(
          'polling',
          this.roots[0]?.path ?? '',
          this.roots[0]?.path ?? '',
          `[skills] no skills folder can be watched, so changes are seen only when the index is rescanned (every \`cacheTtl\`); watching is retried every ${this.settings.retryMs} ms.`,
        ),
      );
    }
    try {
      this.settings.onModeChange?.(mode);
    } catch (error) {
      this.settings.report(error);
    }
  }
}

export function watchSkillDirectories(directories: readonly string[], options: WatchOptions): SkillsWatcher {
  const { fs, onChange, onError, onModeChange, signal } = options;
  if (typeof fs.watch !== 'function' && typeof fs.watchFolder !== 'function') {
    throw new SkillsConfigError('[skills] `watch: true` needs an `fs` with a watch() method, like node:fs/promises. Pass one, or turn watch off.');
  }
  const debounceMs = checkDelay('debounceMs', options.debounceMs ?? WATCH_DEFAULTS.debounceMs);
  const maxWaitMs = checkDelay('maxWaitMs', options.maxWaitMs ?? debounceMs * 10);
  const retryMs = checkDelay('retryMs', options.retryMs ?? WATCH_DEFAULTS.retryMs);
  const unique = [...new Set(directories)];

  // onError must never break the watcher.
  const report = (error: unknown): void => {
    try {
      onError?.(error);
    } catch {
      // The caller's logger failed; there is nobody left to tell.
    }
  };
  const bursts = new Bursts(unique, debounceMs, maxWaitMs, onChange, report);
  const tree = new TreeWatcher(unique, { fs, retryMs, report, onModeChange }, bursts);

  const onAbort = (): void => void tree.close();
  const close = (): Promise<void> => {
    signal?.removeEventListener('abort', onAbort);
    return tree.close();
  };
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
    close,
  };
}

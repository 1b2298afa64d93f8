/**
 * The watcher against real temp folders (node's fs.watch, one per folder),
 * and against a scripted in-memory tree for what real folders can't do on
 * demand (run out of watches, refuse a listing, end a watch).
 *
 * Deterministic under load: tests wait for `ready` instead of sleeping, and
 * assert on what onChange saw on disk (the last change reported after an edit
 * shows the edit), never on how many bursts a sequence of writes made.
 * Burst counting is tested on the scripted tree, where events pushed in one
 * tick are one burst by construction. The only fixed waits are quiet periods
 * that prove nothing more happened; under load they can only pass more easily.
 */
import { mkdir, mkdtemp, readdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SkillsConfigError, SkillsWatchError } from '../src/config/errors.js';
import { nodeFileSystem, type DirEntry, type FileStats, type SkillsFileSystem } from '../src/base/fs.js';
import {
  watchSkillDirectories,
  WatchProblem,
  type FolderWatching,
  type SkillsWatcher,
  type WatchChange,
  type WatchMode,
  type WatchOptions,
} from '../src/watch/watch.js';

/** Every real-folder test runs with both forms of watch: nodeFileSystem has both and prefers the callback form. */
const FORMS = [
  ['iterable (fs.promises.watch)', { ...nodeFileSystem, watchFolder: undefined }],
  ['callback (fs.watch, the default fs)', nodeFileSystem],
] as const;

const DEBOUNCE = 50;
const RETRY = 50;

async function waitFor(condition: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const quiet = (ms = DEBOUNCE * 4): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface Recorder {
  changes: WatchChange[];
  errors: unknown[];
  modes: WatchMode[];
  options: Pick<WatchOptions, 'onChange' | 'onError' | 'onModeChange'>;
}

function recorder(): Recorder {
  const changes: WatchChange[] = [];
  const errors: unknown[] = [];
  const modes: WatchMode[] = [];
  return {
    changes,
    errors,
    modes,
    options: {
      onChange: (change) => void changes.push(change),
      onError: (error) => void errors.push(error),
      onModeChange: (mode) => void modes.push(mode),
    },
  };
}

const problems = (r: Recorder): Array<[string, string]> =>
  r.errors.map((e) => (e instanceof WatchProblem ? [e.kind, e.folder] : ['not a WatchProblem', String(e)]));

let temp: string;
const watchers: SkillsWatcher[] = [];
function track(watcher: SkillsWatcher): SkillsWatcher {
  watchers.push(watcher);
  return watcher;
}

beforeAll(async () => {
  temp = await mkdtemp(join(tmpdir(), 'mw-skills-watch-'));
});
afterEach(async () => {
  await Promise.all(watchers.splice(0).map((w) => w.close()));
});
afterAll(async () => {
  await rm(temp, { recursive: true, force: true });
});

async function writeSkill(root: string, name: string, description = 'A skill.'): Promise<void> {
  await mkdir(join(root, name), { recursive: true });
  await writeFile(join(root, name, 'SKILL.md'), `---\nname: ${name}\ndescription: ${description}\n---\nBody.\n`);
}

/** `folder:description` for each SKILL.md under `root` (links not followed), sorted: what a rebuild would see now. */
async function snapshot(root: string, folder = ''): Promise<string> {
  const found: string[] = [];
  for (const entry of await readdir(join(root, folder), { withFileTypes: true }).catch(() => [])) {
    const path = folder ? `${folder}/${entry.name}` : entry.name;
    if (entry.isDirectory()) found.push(await snapshot(root, path));
    else if (entry.name === 'SKILL.md')
      found.push(`${folder}:${/description: (.*)/.exec(await readFile(join(root, path), 'utf8').catch(() => ''))?.[1] ?? ''}`);
  }
  return found
    .filter((s) => s !== '')
    .sort()
    .join(' ');
}

describe.each(FORMS)('watchSkillDirectories (real folders, %s)', (_form, fs) => {
  /** A watcher whose onChange records what a rebuild would see at that moment. */
  function watchSnapshots(
    root: string,
    options: Partial<WatchOptions> = {},
  ): { seen: string[]; errors: unknown[]; watcher: SkillsWatcher } {
    const seen: string[] = [];
    const errors: unknown[] = [];
    const watcher = track(
      watchSkillDirectories([root], {
        fs,
        debounceMs: DEBOUNCE,
        onChange: async () => void seen.push(await snapshot(root)),
        onError: (error) => void errors.push(error),
        ...options,
      }),
    );
    return { seen, errors, watcher };
  }

  it('sees a skill added, edited and removed: the change after each shows it', async () => {
    const root = await mkdtemp(join(temp, 'skills-'));
    const { seen, errors, watcher } = watchSnapshots(root);
    await watcher.ready;
    expect(watcher.mode).toBe('watching');

    await writeSkill(root, 'alpha');
    await writeFile(join(root, 'alpha', 'notes.md'), 'a resource');
    await waitFor(() => seen.at(-1) === 'alpha:A skill.', 'the add');

    await writeSkill(root, 'alpha', 'Edited.');
    await waitFor(() => seen.at(-1) === 'alpha:Edited.', 'the edit');

    // A skill nested in a new folder, written at once: the folder's watch starts after the write.
    await mkdir(join(root, 'group', 'beta'), { recursive: true });
    await writeFile(join(root, 'group', 'beta', 'SKILL.md'), 'description: X.\n');
    await waitFor(() => seen.at(-1) === 'alpha:Edited. group/beta:X.', 'the nested add');
    await writeFile(join(root, 'group', 'beta', 'SKILL.md'), 'description: Y.\n');
    await waitFor(() => seen.at(-1) === 'alpha:Edited. group/beta:Y.', 'an edit in the new nested folder');

    await rm(join(root, 'alpha'), { recursive: true });
    await waitFor(() => seen.at(-1) === 'group/beta:Y.', 'the removal');
    expect(errors).toEqual([]);
  });

  it('sees every in-place edit after an atomic save: 10 of 10', async () => {
    const root = await mkdtemp(join(temp, 'atomic-'));
    await writeSkill(root, 'alpha', 'Start.');
    const { seen, errors, watcher } = watchSnapshots(root);
    await watcher.ready;
    const file = join(root, 'alpha', 'SKILL.md');
    let detected = 0;
    for (let i = 0; i < 10; i++) {
      // What editors do: write a temporary file beside it, then rename it over the original.
      await writeFile(join(root, 'alpha', `.SKILL.md.${i}.tmp`), `---\nname: alpha\ndescription: Atomic ${i}.\n---\n`);
      await rename(join(root, 'alpha', `.SKILL.md.${i}.tmp`), file);
      await waitFor(() => seen.at(-1) === `alpha:Atomic ${i}.`, `atomic save ${i}`);
      await writeFile(file, `---\nname: alpha\ndescription: Edit ${i}.\n---\n`);
      await waitFor(() => seen.at(-1) === `alpha:Edit ${i}.`, `in-place edit ${i} after an atomic save`);
      detected++;
    }
    expect(detected).toBe(10);
    expect(errors).toEqual([]);
  }, 120_000);

  it('a symbolic link loop present at start does not hide the folders after it', async () => {
    const root = await mkdtemp(join(temp, 'loop-'));
    await mkdir(join(root, 'aaa'));
    await symlink(join(root, 'aaa', 'y'), join(root, 'aaa', 'x'));
    await symlink(join(root, 'aaa', 'x'), join(root, 'aaa', 'y'));
    await symlink(root, join(root, 'aaa', 'up'));
    await writeSkill(root, 'zeta', 'Before.');
    const { seen, errors, watcher } = watchSnapshots(root);
    await watcher.ready;
    await writeSkill(root, 'zeta', 'After.');
    await waitFor(() => seen.at(-1) === 'zeta:After.', 'an edit past the loop');
    // A loop that appears later is skipped the same way, and the watch goes on.
    await symlink(join(root, 'zeta', 'q'), join(root, 'zeta', 'p'));
    await symlink(join(root, 'zeta', 'p'), join(root, 'zeta', 'q'));
    await writeSkill(root, 'zeta', 'Later.');
    await waitFor(() => seen.at(-1) === 'zeta:Later.', 'an edit after a new loop');
    expect(errors).toEqual([]);
    expect(watcher.mode).toBe('watching');
  });

  it('watches folders, never files: one handle per real folder, none for dot-folders or node_modules', async () => {
    const root = await mkdtemp(join(temp, 'handles-'));
    const elsewhere = await mkdtemp(join(temp, 'linked-'));
    await writeSkill(elsewhere, 'shared');
    for (const name of ['one', 'two']) {
      await writeSkill(root, name);
      await mkdir(join(root, name, 'scripts'));
      for (let i = 0; i < 5; i++) await writeFile(join(root, name, 'scripts', `${i}.sh`), 'echo');
      await mkdir(join(root, name, '.git', 'objects'), { recursive: true });
      await mkdir(join(root, name, 'node_modules', 'x'), { recursive: true });
    }
    // Ten links to one folder outside: it is watched once.
    for (let i = 0; i < 10; i++) await symlink(elsewhere, join(root, `link-${i}`));
    const watched: string[] = [];
    const inner = fs.watchFolder;
    const counting: SkillsFileSystem & Partial<FolderWatching> = {
      ...fs,
      watch(path, options) {
        watched.push(path);
        const watch = nodeFileSystem.watch;
        if (!watch) throw new Error('node has watch()');
        return watch(path, options);
      },
      watchFolder: inner
        ? (path, onEvent, onError) => {
            watched.push(path);
            return inner(path, onEvent, onError);
          }
        : undefined,
    };
    const { seen, watcher } = watchSnapshots(root, { fs: counting });
    await watcher.ready;
    const names = watched.map((path) => path.slice(root.length + 1).replace(/^link-\d/, 'link-N')).sort();
    expect(names).toEqual(['', 'link-N', 'link-N/shared', 'one', 'one/scripts', 'two', 'two/scripts']);
    expect(watcher.watchedFolders).toBe(7);
    expect(watched.every((path) => !path.endsWith('.sh'))).toBe(true);
    // An edit in the linked folder is seen through the one watch.
    await writeSkill(elsewhere, 'shared', 'Linked edit.');
    await waitFor(() => seen.length > 0, 'the linked edit');
  });

  it('reports a change in one directory without the others', async () => {
    const first = await mkdtemp(join(temp, 'first-'));
    const second = await mkdtemp(join(temp, 'second-'));
    const r = recorder();
    const watcher = track(watchSkillDirectories([first, second, first], { fs, debounceMs: DEBOUNCE, ...r.options }));
    await watcher.ready;
    await writeSkill(second, 'beta');
    await waitFor(() => r.changes.length > 0, 'the change');
    expect(r.changes.every((c) => c.directories.length === 1 && c.directories[0] === second)).toBe(true);
  });

  it('survives a watched directory being deleted, keeps the others, and picks it up again', async () => {
    const doomed = await mkdtemp(join(temp, 'doomed-'));
    const other = await mkdtemp(join(temp, 'other-'));
    await writeSkill(doomed, 'gamma');
    const r = recorder();
    const watcher = track(watchSkillDirectories([doomed, other], { fs, debounceMs: DEBOUNCE, retryMs: RETRY, ...r.options }));
    await watcher.ready;

    await rm(doomed, { recursive: true });
    await waitFor(() => r.errors.length === 1, 'the error');
    const error = r.errors[0] as WatchProblem;
    expect(error).toBeInstanceOf(SkillsWatchError);
    expect(error).toMatchObject({ code: 'SKILLS_WATCH', directory: doomed, kind: 'missing' });
    expect(error.message).toContain(`cannot watch ${doomed}: it does not exist`);
    await waitFor(() => r.changes.some((c) => c.directories.includes(doomed)), 'the deletion as a change');

    // Reported once, not once per retry.
    await quiet(RETRY * 5);
    expect(r.errors).toHaveLength(1);
    // A missing directory misses nothing discovery could see: still "watching".
    expect(watcher.mode).toBe('watching');

    const before = r.changes.length;
    await writeSkill(other, 'delta');
    await waitFor(() => r.changes.slice(before).some((c) => c.directories.includes(other)), 'the other directory');

    // Recreated: the watcher notices on its next retry and reports a change once it watches it again.
    const recreated = r.changes.length;
    await mkdir(doomed);
    await waitFor(() => r.changes.slice(recreated).some((c) => c.directories.includes(doomed)), 'the directory coming back');
    const back = r.changes.length;
    await writeSkill(doomed, 'epsilon');
    await waitFor(() => r.changes.slice(back).some((c) => c.directories.includes(doomed)), 'a skill in the recreated directory');
  });

  it('waits for a directory that does not exist yet', async () => {
    const later = join(await mkdtemp(join(temp, 'later-')), 'later');
    const r = recorder();
    const watcher = track(watchSkillDirectories([later], { fs, debounceMs: DEBOUNCE, retryMs: RETRY, ...r.options }));
    await watcher.ready;
    await waitFor(() => r.errors.length === 1, 'the missing-directory error');
    await quiet(RETRY * 5);
    expect(r.errors).toHaveLength(1);
    expect(r.changes).toEqual([]);

    await mkdir(later);
    await waitFor(() => r.changes.length === 1, 'the directory appearing');
    await writeSkill(later, 'zeta');
    await waitFor(() => r.changes.length >= 2, 'a skill in it');
  });

  it('close() stops events and is idempotent', async () => {
    const root = await mkdtemp(join(temp, 'closed-'));
    const r = recorder();
    const watcher = watchSkillDirectories([root], { fs, debounceMs: DEBOUNCE, ...r.options });
    await watcher.ready;
    await writeSkill(root, 'eta');
    await waitFor(() => r.changes.length > 0, 'a change before close');
    await Promise.all([watcher.close(), watcher.close()]);
    const count = r.changes.length;
    expect(watcher.watchedFolders).toBe(0);
    await writeSkill(root, 'theta');
    await quiet();
    expect(r.changes).toHaveLength(count);
  });

  it('close() drops a burst still waiting for its quiet time', async () => {
    const root = await mkdtemp(join(temp, 'pending-'));
    const r = recorder();
    const watcher = watchSkillDirectories([root], { fs, debounceMs: 60_000, ...r.options });
    await watcher.ready;
    await writeSkill(root, 'iota');
    await quiet(DEBOUNCE);
    await watcher.close();
    await quiet();
    expect(r.changes).toEqual([]);
  });

  it('an aborted signal closes the watcher', async () => {
    const root = await mkdtemp(join(temp, 'signal-'));
    const r = recorder();
    const controller = new AbortController();
    const watcher = watchSkillDirectories([root], { fs, debounceMs: DEBOUNCE, signal: controller.signal, ...r.options });
    await watcher.ready;
    controller.abort();
    await watcher.close();
    await writeSkill(root, 'kappa');
    await quiet();
    expect(r.changes).toEqual([]);
    // Already aborted: never starts.
    const closed = watchSkillDirectories([root], { fs, signal: controller.signal, ...r.options });
    await closed.close();
    expect(closed.watchedFolders).toBe(0);
  });
});

// ---------------------------------------------------------------------------
// A scripted in-memory tree: each folder watch gets a channel the test pushes events into,
// through the async-iterable form (watch) or the callback form (watchFolder).

type Form = 'iterable' | 'callback';
type WatchEvent = { eventType: string; filename: string | null };

interface Channel {
  path: string;
  push(event: WatchEvent): void;
  end(): void;
  fail(error: unknown): void;
  readonly signal: AbortSignal;
}

const fail = (code: string): Error => Object.assign(new Error(code), { code });

class ScriptedTree implements SkillsFileSystem, Partial<FolderWatching> {
  readonly folders = new Set<string>(['/']);
  readonly files = new Set<string>();
  readonly channels: Channel[] = [];
  /** Return an error to make watch() fail for that path, as node does: on the first next(). */
  watchFault: (path: string) => Error | undefined = () => undefined;
  readdirFault: (path: string) => Error | undefined = () => undefined;

  readonly watchFolder: FolderWatching['watchFolder'] | undefined;

  constructor(paths: string[], form: Form = 'iterable') {
    for (const path of paths) this.add(path);
    this.watchFolder = form === 'callback' ? (path, onEvent, onError) => this.callbackWatch(path, onEvent, onError) : undefined;
  }

  /** Like node:fs watch: throws when the folder cannot be watched, reports later failures to onError. */
  private callbackWatch(
    path: string,
    onEvent: (eventType: string, filename: string | null) => void,
    onError: (error: unknown) => void,
  ): { close(): void } {
    const fault = this.watchFault(path) ?? (this.folders.has(path) ? undefined : fail('ENOENT'));
    if (fault) throw fault;
    const controller = new AbortController();
    const { signal } = controller;
    const live = (then: () => void): void => {
      if (!signal.aborted) then();
    };
    this.channels.push({
      path,
      push: (value) => live(() => onEvent(value.eventType, value.filename)),
      // The callback form has no end: a watch that stops is an error.
      end: () => live(() => onError(fail('WATCH_ENDED'))),
      fail: (error) => live(() => onError(error)),
      signal,
    });
    return { close: () => controller.abort() };
  }

  /** A folder (`/a/b/`) or a file (`/a/b/SKILL.md`), with every folder above it. */
  add(path: string): void {
    const isFolder = path.endsWith('/');
    const clean = isFolder ? path.slice(0, -1) : path;
    for (let up = dirname(clean); up !== '/'; up = dirname(up)) this.folders.add(up);
    (isFolder ? this.folders : this.files).add(clean);
  }

  live(path: string): Channel[] {
    return this.channels.filter((c) => c.path === path && !c.signal.aborted);
  }

  emit(path: string, event: WatchEvent): void {
    for (const channel of this.live(path)) channel.push(event);
  }

  async readdir(path: string): Promise<DirEntry[]> {
    if (!this.folders.has(path)) throw fail(this.files.has(path) ? 'ENOTDIR' : 'ENOENT');
    const fault = this.readdirFault(path);
    if (fault) throw fault;
    const entries: DirEntry[] = [];
    for (const set of [this.folders, this.files]) {
      for (const item of set) {
        if (item !== '/' && dirname(item) === path) {
          const folder = set === this.folders;
          entries.push({ name: basename(item), isFile: () => !folder, isDirectory: () => folder, isSymbolicLink: () => false });
        }
      }
    }
    return entries;
  }

  async stat(path: string): Promise<FileStats> {
    const folder = this.folders.has(path);
    if (!folder && !this.files.has(path)) throw fail('ENOENT');
    return { size: 0, mtimeMs: 0, isFile: () => !folder, isDirectory: () => folder, isSymbolicLink: () => false };
  }

  lstat(path: string): Promise<FileStats> {
    return this.stat(path);
  }

  async realpath(path: string): Promise<string> {
    await this.stat(path);
    return path;
  }

  readFile(): Promise<string> {
    return Promise.reject(fail('ENOSYS'));
  }

  open(): never {
    throw fail('ENOSYS');
  }

  watch(path: string, { signal }: { recursive: boolean; signal: AbortSignal }): AsyncIterable<WatchEvent> {
    const queue: Array<IteratorResult<WatchEvent> | { error: unknown }> = [];
    let wake: (() => void) | undefined;
    const add = (item: IteratorResult<WatchEvent> | { error: unknown }): void => {
      queue.push(item);
      wake?.();
    };
    const fault = this.watchFault(path) ?? (this.folders.has(path) ? undefined : fail('ENOENT'));
    if (fault) {
      queue.push({ error: fault });
    } else {
      signal.addEventListener('abort', () => add({ error: Object.assign(new Error('aborted'), { name: 'AbortError' }) }));
      this.channels.push({
        path,
        push: (value) => add({ value, done: false }),
        end: () => add({ value: undefined, done: true }),
        fail: (error) => add({ error }),
        signal,
      });
    }
    return {
      [Symbol.asyncIterator]: () => ({
        async next(): Promise<IteratorResult<WatchEvent>> {
          while (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
          const item = queue.shift() as IteratorResult<WatchEvent> | { error: unknown };
          if ('error' in item) throw item.error;
          return item;
        },
      }),
    };
  }
}

const event = (eventType: string, filename: string | null): WatchEvent => ({ eventType, filename });

describe.each(['iterable', 'callback'] as const)('watchSkillDirectories (scripted tree, %s watches)', (form) => {
  const scripted = (paths: string[]): ScriptedTree => new ScriptedTree(paths, form);

  /** What watchSkillDirectories threw, as the fields a caller acts on. */
  function configError(options: Omit<WatchOptions, 'onChange'>): Pick<SkillsConfigError, 'option' | 'message'> {
    try {
      watchSkillDirectories(['/x'], { ...options, onChange: () => {} });
    } catch (error) {
      if (error instanceof SkillsConfigError) return { option: error.option, message: error.message };
      throw error;
    }
    throw new Error('did not throw');
  }

  it('refuses an fs without watch() or watchFolder(), and bad delays, at construction, naming the option', () => {
    const { watch: _watch, watchFolder: _watchFolder, ...noWatch } = nodeFileSystem;
    expect(configError({ fs: noWatch })).toEqual({
      option: 'fs',
      message:
        '`fs` needs a watch() or watchFolder() method to watch folders. Pass node:fs/promises, or add one of them to the fs you pass.',
    });
    // Either form alone is enough.
    expect(() =>
      track(watchSkillDirectories(['/x'], { fs: { ...noWatch, watchFolder: nodeFileSystem.watchFolder }, onChange: () => {} })),
    ).not.toThrow();
    expect(configError({ fs: scripted([]), debounceMs: -1 })).toEqual({
      option: 'debounceMs',
      message: '`debounceMs` must be a number of milliseconds, 0 or more, got number -1. Leave it out for the default (200).',
    });
    expect(configError({ fs: scripted([]), retryMs: Number.NaN }).option).toBe('retryMs');
    expect(configError({ fs: scripted([]), maxWaitMs: Infinity })).toEqual({
      option: 'maxWaitMs',
      message:
        '`maxWaitMs` must be a number of milliseconds, 0 or more, got number Infinity. Leave it out for the default (10 × debounceMs).',
    });
  });

  it('walks every folder at start, watching each once, and says when it is ready', async () => {
    const tree = scripted(['/s/a/SKILL.md', '/s/a/refs/x.md', '/s/group/b/SKILL.md', '/s/.git/objects/', '/s/a/node_modules/m/']);
    const watcher = track(watchSkillDirectories(['/s'], { fs: tree, onChange: () => {} }));
    await watcher.ready;
    expect(tree.channels.map((c) => c.path).sort()).toEqual(['/s', '/s/a', '/s/a/refs', '/s/group', '/s/group/b']);
    expect(watcher.watchedFolders).toBe(5);
    expect(watcher.mode).toBe('watching');
  });

  it('events in one tick are one burst; a later burst is another', async () => {
    const tree = scripted(['/s/a/SKILL.md', '/s/b/SKILL.md']);
    const r = recorder();
    const watcher = track(watchSkillDirectories(['/s'], { fs: tree, debounceMs: 10, ...r.options }));
    await watcher.ready;
    tree.emit('/s/a', event('change', 'SKILL.md'));
    tree.emit('/s/b', event('change', 'SKILL.md'));
    tree.emit('/s', event('rename', 'c'));
    await waitFor(() => r.changes.length === 1, 'the burst');
    expect(r.changes[0]).toEqual({ directories: ['/s'], events: 3 });
    tree.emit('/s/a', event('change', 'SKILL.md'));
    await waitFor(() => r.changes.length === 2, 'the second burst');
    expect(r.changes[1]).toEqual({ directories: ['/s'], events: 1 });
  });

  it("a bundled file's content edit is not a change; SKILL.md edits, creations and deletions are", async () => {
    const tree = scripted(['/s/a/SKILL.md', '/s/a/notes.md', '/s/a/refs/r.md']);
    const r = recorder();
    const watcher = track(watchSkillDirectories(['/s'], { fs: tree, debounceMs: 10, ...r.options }));
    await watcher.ready;
    // Resources are checked when they are read; editing them must not rebuild the index.
    tree.emit('/s/a', event('change', 'notes.md'));
    tree.emit('/s/a/refs', event('change', 'r.md'));
    tree.emit('/s/a', event('change', '.SKILL.md.swp'));
    tree.emit('/s/a', event('rename', '.SKILL.md.swp'));
    tree.emit('/s/a', event('change', 'SKILL.md'));
    await waitFor(() => r.changes.length === 1, 'the SKILL.md edit');
    expect(r.changes[0]?.events).toBe(1);
    // A file created or deleted changes the listing.
    tree.emit('/s/a/refs', event('rename', 'new.md'));
    await waitFor(() => r.changes.length === 2, 'a new bundled file');
    expect(r.changes[1]?.events).toBe(1);
  });

  it('caps a burst that never goes quiet at maxWaitMs', async () => {
    const tree = scripted(['/s/a/SKILL.md']);
    const r = recorder();
    // Without the cap, a burst fed every few milliseconds would wait a minute of quiet.
    const watcher = track(watchSkillDirectories(['/s'], { fs: tree, debounceMs: 60_000, maxWaitMs: 100, ...r.options }));
    await watcher.ready;
    while (r.changes.length === 0) {
      tree.emit('/s/a', event('change', 'SKILL.md'));
      await quiet(5);
    }
    expect(r.changes).toHaveLength(1);
  });

  it('never runs onChange concurrently: a burst during a slow onChange is reported after it', async () => {
    const tree = scripted(['/s/']);
    let active = 0;
    let maxActive = 0;
    const calls: number[] = [];
    let release: (() => void) | undefined;
    const watcher = track(
      watchSkillDirectories(['/s'], {
        fs: tree,
        debounceMs: 10,
        onChange: async (c) => {
          calls.push(c.events);
          active++;
          maxActive = Math.max(maxActive, active);
          if (calls.length === 1) await new Promise<void>((resolve) => (release = resolve));
          active--;
        },
      }),
    );
    await watcher.ready;
    tree.emit('/s', event('change', 'SKILL.md'));
    await waitFor(() => calls.length === 1, 'the first call');
    tree.emit('/s', event('change', 'SKILL.md'));
    tree.emit('/s', event('change', 'SKILL.md'));
    await quiet(100);
    expect(calls).toHaveLength(1);
    release?.();
    await waitFor(() => calls.length === 2, 'the second call');
    expect(calls).toEqual([1, 2]);
    expect(maxActive).toBe(1);
  });

  it('close() waits for a running onChange', async () => {
    const tree = scripted(['/s/']);
    let started = false;
    let finished = false;
    let release: (() => void) | undefined;
    const watcher = watchSkillDirectories(['/s'], {
      fs: tree,
      debounceMs: 0,
      onChange: async () => {
        started = true;
        await new Promise<void>((resolve) => (release = resolve));
        finished = true;
      },
    });
    await watcher.ready;
    tree.emit('/s', event('rename', 'x'));
    await waitFor(() => started, 'onChange to start');
    const closing = watcher.close();
    release?.();
    await closing;
    expect(finished).toBe(true);
    expect(tree.channels.every((c) => c.signal.aborted)).toBe(true);
  });

  it('hands what onChange throws to onError and keeps going; a throwing onError is contained', async () => {
    const tree = scripted(['/s/']);
    const errors: unknown[] = [];
    let calls = 0;
    const watcher = track(
      watchSkillDirectories(['/s'], {
        fs: tree,
        debounceMs: 0,
        onChange: () => {
          calls++;
          throw new Error(`rebuild failed ${calls}`);
        },
        onError: (error) => {
          errors.push(error);
          throw new Error('logger broke');
        },
      }),
    );
    await watcher.ready;
    tree.emit('/s', event('rename', 'x'));
    await waitFor(() => errors.length === 1, 'the first error');
    tree.emit('/s', event('rename', 'y'));
    await waitFor(() => errors.length === 2, 'the second error');
    expect(errors.map((e) => (e as Error).message)).toEqual(['rebuild failed 1', 'rebuild failed 2']);
  });

  it('a new folder is watched, and a change is reported once it is, for what was written before', async () => {
    const tree = scripted(['/s/']);
    const r = recorder();
    // Whether the new folder was watched when each change was reported.
    const watchedAtChange: boolean[] = [];
    const watcher = track(
      watchSkillDirectories(['/s'], {
        fs: tree,
        debounceMs: 0,
        ...r.options,
        onChange: (c) => void (r.changes.push(c), watchedAtChange.push(tree.live('/s/a').length === 1)),
      }),
    );
    await watcher.ready;
    tree.add('/s/a/SKILL.md');
    tree.emit('/s', event('rename', 'a'));
    await waitFor(() => watchedAtChange.includes(true), 'a change reported after the new folder is watched');
    const before = r.changes.length;
    tree.emit('/s/a', event('change', 'SKILL.md'));
    await waitFor(() => r.changes.length > before, 'an edit in the new folder');
    // Gone: its watch is closed.
    tree.folders.delete('/s/a');
    tree.files.delete('/s/a/SKILL.md');
    tree.emit('/s', event('rename', 'a'));
    await waitFor(() => tree.live('/s/a').length === 0, 'the watch to close');
    expect(watcher.watchedFolders).toBe(1);
    expect(r.errors).toEqual([]);
  });

  it('out of watches at start: reported once, "polling" said, and watching resumes when the limit allows', async () => {
    const tree = scripted(['/s/a/SKILL.md', '/s/b/SKILL.md']);
    let limit = 0;
    tree.watchFault = () => (tree.channels.filter((c) => !c.signal.aborted).length >= limit ? fail('ENOSPC') : undefined);
    const r = recorder();
    const watcher = track(watchSkillDirectories(['/s'], { fs: tree, debounceMs: 0, retryMs: RETRY, ...r.options }));
    await watcher.ready;
    expect(watcher.mode).toBe('polling');
    expect(problems(r)).toEqual([
      ['limit', '/s'],
      ['polling', '/s'],
    ]);
    expect((r.errors[0] as Error).message).toMatch(/limit on watches is reached \(ENOSPC\).*sysctl fs\.inotify\.max_user_watches/);
    expect((r.errors[1] as Error).message).toContain('changes are seen only when the index is rescanned');
    await quiet(RETRY * 4);
    expect(r.errors).toHaveLength(2);

    // Room for two: the root and one skill. Degraded, not reported again.
    limit = 2;
    await waitFor(() => watcher.mode === 'degraded', 'degraded');
    expect(watcher.watchedFolders).toBe(2);
    await quiet(RETRY * 4);
    expect(r.errors).toHaveLength(2);

    limit = 10;
    await waitFor(() => watcher.mode === 'watching', 'watching again');
    expect(watcher.watchedFolders).toBe(3);
    expect(r.modes).toEqual(['polling', 'degraded', 'watching']);
    // Changes were reported as the folders came back, since edits may have been missed meanwhile.
    expect(r.changes.length).toBeGreaterThan(0);
  });

  it('a folder that cannot be read is reported once and retried; the rest is still watched', async () => {
    const tree = scripted(['/s/a/SKILL.md', '/s/b/SKILL.md']);
    let locked = true;
    tree.readdirFault = (path) => (locked && path === '/s/a' ? fail('EACCES') : undefined);
    const r = recorder();
    const watcher = track(watchSkillDirectories(['/s'], { fs: tree, debounceMs: 0, retryMs: RETRY, ...r.options }));
    await watcher.ready;
    expect(problems(r)).toEqual([['unreadable', '/s/a']]);
    expect((r.errors[0] as Error).message).toBe(
      `cannot watch /s/a: permission denied. Its skills cannot be loaded until this process ` +
        `may read it; retrying every ${RETRY} ms, and the other folders are still watched.`,
    );
    // Discovery cannot read it either, so nothing is missed: still "watching".
    expect(watcher.mode).toBe('watching');
    tree.emit('/s/b', event('change', 'SKILL.md'));
    await waitFor(() => r.changes.length === 1, 'a change elsewhere');
    await quiet(RETRY * 4);
    expect(r.errors).toHaveLength(1);

    const before = r.changes.length;
    locked = false;
    await waitFor(() => r.changes.length > before, 'the folder readable again, as a change');
    expect(r.errors).toHaveLength(1);
  });

  it('a watch that fails or ends by itself is reported, retried, and a change reported when it is back', async () => {
    const tree = scripted(['/s/a/SKILL.md']);
    const r = recorder();
    const watcher = track(watchSkillDirectories(['/s'], { fs: tree, debounceMs: 0, retryMs: RETRY, ...r.options }));
    await watcher.ready;
    tree.live('/s/a')[0]?.fail(fail('EIO'));
    await waitFor(() => tree.live('/s/a').length === 1 && r.changes.length === 1, 'the rewatch and its change');
    expect(problems(r)).toEqual([['failed', '/s/a']]);
    expect((r.errors[0] as Error).message).toContain(
      'cannot watch /s/a: EIO. Until it can, changes there are seen only when the index is rescanned',
    );
    tree.live('/s/a')[0]?.end();
    await waitFor(() => r.errors.length === 2, 'the second report');
    expect(((r.errors[1] as Error).cause as { code?: string }).code).toBe('WATCH_ENDED');
    await waitFor(() => tree.live('/s/a').length === 1 && watcher.mode === 'watching', 'back again');
    expect(r.modes).toEqual(['degraded', 'watching', 'degraded', 'watching']);
  });

  it('a watch() that throws is contained like any other failure', async () => {
    const tree = scripted(['/s/a/SKILL.md']);
    const r = recorder();
    const throwing: SkillsFileSystem = {
      ...nodeFileSystem,
      readdir: (path) => tree.readdir(path),
      stat: (path) => tree.stat(path),
      realpath: (path) => tree.realpath(path),
      watchFolder: undefined,
      watch: () => {
        throw fail('ERR_FEATURE_UNAVAILABLE_ON_PLATFORM');
      },
    };
    const watcher = track(watchSkillDirectories(['/s'], { fs: throwing, retryMs: RETRY, ...r.options }));
    await watcher.ready;
    expect(watcher.mode).toBe('polling');
    expect(problems(r)).toEqual([
      ['failed', '/s'],
      ['polling', '/s'],
    ]);
  });

  it('a path that is not a directory is reported as such', async () => {
    const tree = scripted(['/file']);
    const r = recorder();
    const watcher = track(watchSkillDirectories(['/file'], { fs: tree, retryMs: RETRY, ...r.options }));
    await watcher.ready;
    expect(problems(r)).toEqual([['missing', '/file']]);
    expect((r.errors[0] as Error).message).toContain('cannot watch /file: it is not a directory');
  });

  it('an event about the folder itself watches it again, or reports it gone', async () => {
    const tree = scripted(['/root/skills/a/SKILL.md']);
    const r = recorder();
    const watcher = track(watchSkillDirectories(['/root/skills'], { fs: tree, debounceMs: 0, retryMs: RETRY, ...r.options }));
    await watcher.ready;
    const first = tree.live('/root/skills')[0];
    // Replaced in place (deleted and created again): watched afresh at once, no error.
    tree.emit('/root/skills', event('rename', 'skills'));
    await waitFor(() => first?.signal.aborted === true && tree.live('/root/skills').length === 1, 'the rewatch');
    expect(r.errors).toEqual([]);
    // Deleted for good: reported, then retried.
    for (const path of [...tree.folders]) if (path.startsWith('/root/skills')) tree.folders.delete(path);
    tree.emit('/root/skills', event('rename', 'skills'));
    await waitFor(() => r.errors.length === 1, 'the error');
    expect(problems(r)).toEqual([['missing', '/root/skills']]);
    expect(r.changes.length).toBeGreaterThan(0);
    expect(watcher.watchedFolders).toBe(0);
  });

  it('overlapping directories share watches, and a change names every directory it is in', async () => {
    const tree = scripted(['/s/inner/a/SKILL.md']);
    const r = recorder();
    const watcher = track(watchSkillDirectories(['/s', '/s/inner'], { fs: tree, debounceMs: 0, ...r.options }));
    await watcher.ready;
    expect(watcher.watchedFolders).toBe(3);
    tree.emit('/s/inner/a', event('change', 'SKILL.md'));
    await waitFor(() => r.changes.length === 1, 'the change');
    expect(r.changes[0]?.directories).toEqual(['/s', '/s/inner']);
  });
});

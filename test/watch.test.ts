/**
 * The watcher against real temp folders (node's fs.watch, recursive), and
 * against a scripted fs for the paths real folders can't reach on demand.
 * Waits poll for a condition with a generous timeout; the only fixed waits
 * are the quiet periods that prove nothing more happened.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SkillsConfigError, SkillsWatchError, type SkillsError } from '../src/errors.js';
import { nodeFileSystem, type FileStats, type SkillsFileSystem } from '../src/fs.js';
import { watchSkillDirectories, type SkillsWatcher, type WatchChange, type WatchOptions } from '../src/watch.js';

const DEBOUNCE = 150;
const RETRY = 100;

async function waitFor(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const quiet = (ms = DEBOUNCE * 4): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface Recorder {
  changes: WatchChange[];
  errors: unknown[];
  options: Pick<WatchOptions, 'onChange' | 'onError'>;
}

function recorder(): Recorder {
  const changes: WatchChange[] = [];
  const errors: unknown[] = [];
  return { changes, errors, options: { onChange: (change) => void changes.push(change), onError: (error) => void errors.push(error) } };
}

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

/** Let the watch start before the test changes files (node attaches its inotify watches asynchronously). */
async function settled(): Promise<void> {
  await quiet(DEBOUNCE);
}

describe('watchSkillDirectories (real folders)', () => {
  it('reports adding, editing and removing a skill once per burst', async () => {
    const root = await mkdtemp(join(temp, 'skills-'));
    const r = recorder();
    track(watchSkillDirectories([root], { fs: nodeFileSystem, debounceMs: DEBOUNCE, ...r.options }));
    await settled();

    await writeSkill(root, 'alpha');
    await writeFile(join(root, 'alpha', 'notes.md'), 'a resource');
    await waitFor(() => r.changes.length === 1, 'the add');
    await quiet();
    expect(r.changes).toHaveLength(1);
    expect(r.changes[0]?.directories).toEqual([root]);
    expect(r.changes[0]?.events).toBeGreaterThanOrEqual(2);

    await writeSkill(root, 'alpha', 'Edited.');
    await waitFor(() => r.changes.length === 2, 'the edit');
    await quiet();
    expect(r.changes).toHaveLength(2);

    await rm(join(root, 'alpha'), { recursive: true });
    await waitFor(() => r.changes.length === 3, 'the removal');
    await quiet();
    expect(r.changes).toHaveLength(3);
    expect(r.errors).toEqual([]);
  });

  it('reports a change in one directory without the others', async () => {
    const first = await mkdtemp(join(temp, 'first-'));
    const second = await mkdtemp(join(temp, 'second-'));
    const r = recorder();
    track(watchSkillDirectories([first, second, first], { fs: nodeFileSystem, debounceMs: DEBOUNCE, ...r.options }));
    await settled();
    await writeSkill(second, 'beta');
    await waitFor(() => r.changes.length === 1, 'the change');
    expect(r.changes[0]?.directories).toEqual([second]);
  });

  it('survives a watched directory being deleted, keeps the others, and picks it up again', async () => {
    const doomed = await mkdtemp(join(temp, 'doomed-'));
    const other = await mkdtemp(join(temp, 'other-'));
    await writeSkill(doomed, 'gamma');
    const r = recorder();
    track(watchSkillDirectories([doomed, other], { fs: nodeFileSystem, debounceMs: DEBOUNCE, retryMs: RETRY, ...r.options }));
    await settled();

    await rm(doomed, { recursive: true });
    await waitFor(() => r.errors.length === 1, 'the error');
    const error = r.errors[0] as SkillsWatchError;
    expect(error).toBeInstanceOf(SkillsWatchError);
    expect(error).toMatchObject({ code: 'SKILLS_WATCH', directory: doomed });
    expect(error.message).toContain(`cannot watch ${doomed}: it does not exist`);
    await waitFor(() => r.changes.some((c) => c.directories.includes(doomed)), 'the deletion as a change');

    // Reported once, not once per retry.
    await quiet(RETRY * 5);
    expect(r.errors).toHaveLength(1);

    const before = r.changes.length;
    await writeSkill(other, 'delta');
    await waitFor(() => r.changes.length > before && r.changes.at(-1)?.directories.includes(other) === true, 'the other directory');

    // Recreated: the watcher notices on its next retry and watches it again.
    const recreated = r.changes.length;
    await mkdir(doomed);
    await waitFor(() => r.changes.length > recreated, 'the directory coming back');
    await settled();
    const back = r.changes.length;
    await writeSkill(doomed, 'epsilon');
    await waitFor(() => r.changes.length > back && r.changes.at(-1)?.directories.includes(doomed) === true, 'a skill in the recreated directory');
  });

  it('waits for a directory that does not exist yet', async () => {
    const later = join(temp, 'later');
    const r = recorder();
    track(watchSkillDirectories([later], { fs: nodeFileSystem, debounceMs: DEBOUNCE, retryMs: RETRY, ...r.options }));
    await waitFor(() => r.errors.length === 1, 'the missing-directory error');
    await quiet(RETRY * 5);
    expect(r.errors).toHaveLength(1);
    expect(r.changes).toEqual([]);

    await mkdir(later);
    await waitFor(() => r.changes.length === 1, 'the directory appearing');
    await settled();
    await writeSkill(later, 'zeta');
    await waitFor(() => r.changes.length === 2, 'a skill in it');
  });

  it('close() stops events and is idempotent', async () => {
    const root = await mkdtemp(join(temp, 'closed-'));
    const r = recorder();
    const watcher = watchSkillDirectories([root], { fs: nodeFileSystem, debounceMs: DEBOUNCE, ...r.options });
    await settled();
    await writeSkill(root, 'eta');
    await waitFor(() => r.changes.length === 1, 'a change before close');
    await Promise.all([watcher.close(), watcher.close()]);
    await writeSkill(root, 'theta');
    await quiet();
    expect(r.changes).toHaveLength(1);
  });

  it('close() drops a burst still waiting for its quiet time', async () => {
    const root = await mkdtemp(join(temp, 'pending-'));
    const r = recorder();
    const watcher = watchSkillDirectories([root], { fs: nodeFileSystem, debounceMs: 5_000, ...r.options });
    await settled();
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
    const watcher = watchSkillDirectories([root], { fs: nodeFileSystem, debounceMs: DEBOUNCE, signal: controller.signal, ...r.options });
    await settled();
    controller.abort();
    await watcher.close();
    await writeSkill(root, 'kappa');
    await quiet();
    expect(r.changes).toEqual([]);
    // Already aborted: never starts.
    const closed = watchSkillDirectories([root], { fs: nodeFileSystem, signal: controller.signal, ...r.options });
    await closed.close();
  });
});

// ---------------------------------------------------------------------------
// A scripted fs: each watch() call gets a channel the test pushes events into.

type WatchEvent = { eventType: string; filename: string | null };

interface Channel {
  push(event: WatchEvent): void;
  end(): void;
  fail(error: unknown): void;
  readonly signal: AbortSignal;
}

function scriptedFs(isDir: (path: string) => boolean = () => true): SkillsFileSystem & { channels: Channel[] } {
  const channels: Channel[] = [];
  const stats = (dir: boolean): FileStats => ({ size: 0, mtimeMs: 0, isFile: () => !dir, isDirectory: () => dir, isSymbolicLink: () => false });
  return {
    ...nodeFileSystem,
    channels,
    stat: async (path) => stats(isDir(path)),
    watch(_path, { signal }) {
      const queue: Array<IteratorResult<WatchEvent> | { error: unknown }> = [];
      let wake: (() => void) | undefined;
      const add = (item: IteratorResult<WatchEvent> | { error: unknown }): void => {
        queue.push(item);
        wake?.();
      };
      signal.addEventListener('abort', () => add({ error: Object.assign(new Error('aborted'), { name: 'AbortError' }) }));
      channels.push({ push: (value) => add({ value, done: false }), end: () => add({ value: undefined, done: true }), fail: (error) => add({ error }), signal });
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
    },
  };
}

const change = (filename = 'a/SKILL.md'): WatchEvent => ({ eventType: 'change', filename });

describe('watchSkillDirectories (scripted fs)', () => {
  it('refuses an fs without watch(), and bad delays, at construction', () => {
    const { watch: _watch, ...noWatch } = nodeFileSystem;
    expect(() => watchSkillDirectories(['/x'], { fs: noWatch, onChange: () => {} })).toThrow(SkillsConfigError);
    expect(() => watchSkillDirectories(['/x'], { fs: noWatch, onChange: () => {} })).toThrow(/needs an `fs` with a watch\(\) method/);
    for (const bad of [{ debounceMs: -1 }, { retryMs: Number.NaN }, { maxWaitMs: Infinity }]) {
      expect(() => watchSkillDirectories(['/x'], { fs: scriptedFs(), onChange: () => {}, ...bad })).toThrow(SkillsConfigError);
    }
  });

  it('caps a burst that never goes quiet at maxWaitMs', async () => {
    const fs = scriptedFs();
    const r = recorder();
    track(watchSkillDirectories(['/s'], { fs, debounceMs: 50, maxWaitMs: 200, ...r.options }));
    await waitFor(() => fs.channels.length === 1, 'the watch');
    const started = Date.now();
    while (r.changes.length === 0 && Date.now() - started < 5_000) {
      fs.channels[0]?.push(change());
      await quiet(10);
    }
    expect(r.changes.length).toBe(1);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('never runs onChange concurrently: a burst during a slow onChange is reported after it', async () => {
    const fs = scriptedFs();
    let active = 0;
    let maxActive = 0;
    const calls: number[] = [];
    let release: (() => void) | undefined;
    const watcher = track(
      watchSkillDirectories(['/s'], {
        fs,
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
    await waitFor(() => fs.channels.length === 1, 'the watch');
    fs.channels[0]?.push(change());
    await waitFor(() => calls.length === 1, 'the first call');
    fs.channels[0]?.push(change());
    fs.channels[0]?.push(change());
    await quiet(100);
    expect(calls).toHaveLength(1);
    release?.();
    await waitFor(() => calls.length === 2, 'the second call');
    expect(calls).toEqual([1, 2]);
    expect(maxActive).toBe(1);
    await watcher.close();
  });

  it('close() waits for a running onChange', async () => {
    const fs = scriptedFs();
    let finished = false;
    const watcher = watchSkillDirectories(['/s'], {
      fs,
      debounceMs: 0,
      onChange: async () => {
        await quiet(100);
        finished = true;
      },
    });
    await waitFor(() => fs.channels.length === 1, 'the watch');
    fs.channels[0]?.push(change());
    await quiet(30);
    await watcher.close();
    expect(finished).toBe(true);
    expect(fs.channels[0]?.signal.aborted).toBe(true);
  });

  it('hands what onChange throws to onError and keeps going; a throwing onError is contained', async () => {
    const fs = scriptedFs();
    const errors: unknown[] = [];
    let calls = 0;
    track(
      watchSkillDirectories(['/s'], {
        fs,
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
    await waitFor(() => fs.channels.length === 1, 'the watch');
    fs.channels[0]?.push(change());
    await waitFor(() => errors.length === 1, 'the first error');
    fs.channels[0]?.push(change());
    await waitFor(() => errors.length === 2, 'the second error');
    expect(errors.map((e) => (e as Error).message)).toEqual(['rebuild failed 1', 'rebuild failed 2']);
  });

  it('a watch that fails or ends by itself is reported once per kind and retried', async () => {
    const fs = scriptedFs();
    const r = recorder();
    track(watchSkillDirectories(['/s'], { fs, debounceMs: 0, retryMs: 20, ...r.options }));
    await waitFor(() => fs.channels.length === 1, 'the watch');
    fs.channels[0]?.fail(Object.assign(new Error('too many watches'), { code: 'ENOSPC' }));
    await waitFor(() => fs.channels.length === 2, 'the retry');
    // Back: a change is reported, since events may have been missed meanwhile.
    await waitFor(() => r.changes.length === 1, 'the resync');
    fs.channels[1]?.end();
    await waitFor(() => fs.channels.length === 3, 'the second retry');
    expect(r.errors.map((e) => [(e as SkillsError).code, ((e as Error).cause as { code?: string }).code])).toEqual([
      ['SKILLS_WATCH', 'ENOSPC'],
      ['SKILLS_WATCH', 'WATCH_ENDED'],
    ]);
    expect((r.errors[0] as Error).message).toBe('[skills] cannot watch /s: ENOSPC. Retrying every 20 ms; the other directories are still watched.');
  });

  it('a path that is not a directory is reported as such', async () => {
    const r = recorder();
    track(watchSkillDirectories(['/file'], { fs: scriptedFs(() => false), retryMs: 20, ...r.options }));
    await waitFor(() => r.errors.length === 1, 'the error');
    expect((r.errors[0] as Error).message).toContain('cannot watch /file: it is not a directory');
  });

  it('an event about the directory itself restarts its watch', async () => {
    let exists = true;
    const fs = scriptedFs(() => exists);
    const r = recorder();
    track(watchSkillDirectories(['/root/skills'], { fs, debounceMs: 0, retryMs: 20, ...r.options }));
    await waitFor(() => fs.channels.length === 1, 'the watch');
    // Replaced in place (deleted and created again): watch the new one at once, no error.
    fs.channels[0]?.push({ eventType: 'rename', filename: '' });
    await waitFor(() => fs.channels.length === 2, 'the rewatch');
    expect(fs.channels[0]?.signal.aborted).toBe(true);
    expect(r.errors).toEqual([]);
    // Deleted for good: reported, then retried.
    exists = false;
    fs.channels[1]?.push({ eventType: 'rename', filename: 'skills' });
    await waitFor(() => r.errors.length === 1, 'the error');
    expect(r.errors[0]).toBeInstanceOf(SkillsWatchError);
    expect(r.changes.length).toBeGreaterThan(0);
  });
});

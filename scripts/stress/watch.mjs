// Usage: npx tsup --silent && node scripts/stress/watch.mjs [--dist <folder>]
// What `watch: true` costs and survives, at full size (issue 15), beside what
// node's own recursive fs.watch did before (the "node" cases):
// - 2,000 skills of the benchmark workload (category folders, 0-10 bundled
//   files each) and 100,000 empty folders (100 x 1,000): time until every
//   folder is watched, the longest the event loop was held meanwhile, watch
//   handles held, heap and RSS added;
// - 10 atomic saves (temp file renamed over SKILL.md), each followed by an
//   in-place edit: how many of those edits were reported;
// - a symbolic link loop appearing in a watched folder: the process's exit code.
// Each case runs in a child process of its own, so its memory and handles are
// its own. run() returns rows { case, figure, value } for the stress runner;
// run directly, it prints them.
import { execFile } from 'node:child_process';
import { watch as watchCallbacks } from 'node:fs';
import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import * as fsp from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setTimeout } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { writeWorkload } from '../../bench/workload.mjs';
import { pool } from '../../bench/stats.mjs';
import { cliArg, distFolder, printRows } from '../stress-cli.mjs';

const SELF = fileURLToPath(import.meta.url);
const CASE_TIMEOUT_MS = 300_000;
/** How long an edit may take to be reported before it counts as missed. */
const EDIT_WAIT_MS = 3_000;

const round = (value) => Math.round(value * 10) / 10;
const mb = (bytes) => round(bytes / (1024 * 1024));
const sleep = (ms) => setTimeout(ms);
const handles = () => process.getActiveResourcesInfo().filter((kind) => kind === 'FSEventWrap').length;

function gc() {
  globalThis.gc?.();
  globalThis.gc?.();
}

/** Resolves true once `condition()` holds, false after `ms`. */
async function within(ms, condition) {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await sleep(5);
  }
  return true;
}

/**
 * node:fs/promises plus the callback form of a folder watch (node:fs watch),
 * which the watcher prefers: what the package's default fs (nodeFileSystem,
 * not exported) does, so this is the middleware's `watch: true`.
 */
const callbackFs = {
  ...fsp,
  watchFolder(path, onEvent, onError) {
    const watcher = watchCallbacks(path, (eventType, filename) => onEvent(eventType, filename));
    watcher.on('error', onError);
    return watcher;
  },
};

const KINDS = {
  node: "node's recursive fs.watch",
  iterable: 'watchSkillDirectories, fs.promises.watch',
  callback: 'watchSkillDirectories, fs.watch callbacks (the default fs)',
};

/**
 * Start watching `root` with node's recursive fs.watch (`node`) or ours
 * through either form of folder watch, and return once every folder is
 * watched; `onEvent` is called for whatever is reported.
 */
async function startWatch(api, kind, root, signal, onEvent) {
  if (kind === 'node') {
    const iterator = fsp.watch(root, { recursive: true, signal })[Symbol.asyncIterator]();
    // Node walks the whole tree, synchronously, inside the first next().
    const first = iterator.next();
    void (async () => {
      try {
        for (let next = first; !(await next).done; next = iterator.next()) onEvent();
      } catch {
        // Aborted at the end of the case.
      }
    })();
    return { folders: undefined };
  }
  const fs = kind === 'callback' ? callbackFs : fsp;
  const watcher = api.watchSkillDirectories([root], { fs, debounceMs: 20, onChange: onEvent, signal });
  await watcher.ready;
  return { folders: watcher.watchedFolders };
}

const CASES = {
  /** Start cost on a tree: time, loop stall, handles, memory. */
  async start(api, kind, root) {
    gc();
    const before = process.memoryUsage();
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    // The histogram drops its first sample: take it before the walk.
    await sleep(20);
    const controller = new globalThis.AbortController();
    const started = performance.now();
    const { folders } = await startWatch(api, kind, root, controller.signal, () => {});
    const ms = performance.now() - started;
    // Let the histogram take one sample after a walk that held the loop throughout.
    await sleep(20);
    delay.disable();
    gc();
    const after = process.memoryUsage();
    const rows = {
      'until every folder is watched (ms)': round(ms),
      'longest event-loop stall (ms)': round(delay.max / 1e6),
      'watch handles': handles(),
      'heap added (MB)': mb(after.heapUsed - before.heapUsed),
      'RSS added (MB)': mb(after.rss - before.rss),
    };
    if (folders !== undefined) rows['folders watched'] = folders;
    controller.abort();
    return rows;
  },

  /** In-place edits after atomic saves: how many are reported. */
  async atomic(api, kind, root) {
    let events = 0;
    const controller = new globalThis.AbortController();
    await startWatch(api, kind, root, controller.signal, () => void events++);
    await sleep(200);
    const file = join(root, 'alpha', 'SKILL.md');
    let seen = 0;
    for (let i = 0; i < 10; i++) {
      await writeFile(`${file}.tmp`, `---\nname: alpha\ndescription: Atomic ${i}.\n---\n`);
      await rename(`${file}.tmp`, file);
      await sleep(300);
      const before = events;
      await writeFile(file, `---\nname: alpha\ndescription: Edit ${i}.\n---\n`);
      if (await within(EDIT_WAIT_MS, () => events > before)) seen++;
      await sleep(100);
    }
    controller.abort();
    return { 'in-place edits reported after an atomic save (of 10)': seen };
  },

  /** A link loop appears in a watched folder; the parent reads this process's exit code. */
  async loop(api, kind, root) {
    const controller = new globalThis.AbortController();
    await startWatch(api, kind, root, controller.signal, () => {});
    await sleep(200);
    await symlink(join(root, 'alpha', 'y'), join(root, 'alpha', 'x'));
    await symlink(join(root, 'alpha', 'x'), join(root, 'alpha', 'y'));
    await sleep(1_000);
    controller.abort();
    return {};
  },
};

async function runCase(name, kind, root, dist) {
  const api = await import(pathToFileURL(join(dist, 'index.js')).href);
  const rows = await CASES[name](api, kind, root);
  process.stdout.write(JSON.stringify(rows));
  // Let the aborted watches close, then leave: nothing may keep the process alive.
  await sleep(50);
  process.exit(0);
}

function inChild(name, kind, root, dist) {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--expose-gc', SELF, '--case', name, '--kind', kind, '--root', root, '--dist', dist],
      { timeout: CASE_TIMEOUT_MS, maxBuffer: 1 << 20 },
      (error, stdout) => {
        let rows = {};
        try {
          rows = JSON.parse(stdout || '{}');
        } catch {
          // A crash mid-write leaves half a line: the exit code says enough.
        }
        resolve({ ...rows, 'exit code': error ? (error.code ?? 'killed') : 0 });
      },
    );
  });
}

async function writeFolders(root, outer, inner) {
  const tops = Array.from({ length: outer }, (_, i) => join(root, `d${String(i).padStart(3, '0')}`));
  await pool(tops, 8, async (top) => {
    await mkdir(top);
    for (let j = 0; j < inner; j++) await mkdir(join(top, `e${j}`));
  });
}

async function writeOneSkill(root) {
  await mkdir(join(root, 'alpha'), { recursive: true });
  await writeFile(join(root, 'alpha', 'SKILL.md'), '---\nname: alpha\ndescription: Start.\n---\n');
}

export async function run({ dist } = {}) {
  const folder = distFolder(dist);
  const temp = await mkdtemp(join(tmpdir(), 'mw-skills-stress-watch-'));
  const rows = [];
  const add = (label, figures) => {
    for (const [figure, value] of Object.entries(figures)) rows.push({ case: label, figure, value });
  };
  try {
    const skills = join(temp, 'skills');
    await writeWorkload(skills, 2_000, 42);
    const folders = join(temp, 'folders');
    await mkdir(folders);
    await writeFolders(folders, 100, 1_000);
    for (const [label, root] of [
      ['2,000 skills', skills],
      ['100,000 folders', folders],
    ]) {
      for (const kind of Object.keys(KINDS)) add(`${label}, ${KINDS[kind]}`, await inChild('start', kind, root, folder));
    }
    for (const kind of Object.keys(KINDS)) {
      const label = KINDS[kind];
      const atomic = join(temp, `atomic-${kind}`);
      await writeOneSkill(atomic);
      add(`atomic saves, ${label}`, await inChild('atomic', kind, atomic, folder));
      const loop = join(temp, `loop-${kind}`);
      await writeOneSkill(loop);
      add(`a link loop appears, ${label}`, await inChild('loop', kind, loop, folder));
    }
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
  return rows;
}

if (process.argv[1] === SELF) {
  const dist = distFolder();
  const only = cliArg('--case');
  if (only) await runCase(only, cliArg('--kind'), cliArg('--root'), dist);
  else printRows(await run({ dist }));
}

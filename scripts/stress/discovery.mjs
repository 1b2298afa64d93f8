// Usage: npx tsup --silent && node scripts/stress/discovery.mjs [--dist <folder>]
// Discovery against folders built to hurt it, at full size (issue 15): FIFOs
// named SKILL.md (and links to FIFOs) beside real skills; six levels of
// folders each holding 10 links to the next (10^6 paths to one skill); 1,000
// links to one category folder of 50 skills; a chain of 200 links; a skill 100
// folders deep. Each case runs in a child process of its own, so its peak RSS
// is its own. Figures: wall time of discoverSkills with the default
// filesystem; SKILL.md reads and folder listings counted on a second run
// through a counting filesystem; peak RSS of the process. run() returns rows
// { case, figure, value } for the stress runner; run directly, it prints them.
import { execFile, execFileSync } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';
import * as fsp from 'node:fs/promises';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { setImmediate, setTimeout } from 'node:timers/promises';
import { cliArg, distFolder, printRows } from '../stress-cli.mjs';

const SELF = fileURLToPath(import.meta.url);
/** A case that has not finished by then is reported as hung. */
const CASE_TIMEOUT_MS = 120_000;
/** An fs call that takes longer than this while discovery runs counts as blocked. */
const BLOCKED_MS = 5_000;

const skillMd = (name) => `---\nname: ${name}\ndescription: Does ${name} things. Use when asked about ${name}.\n---\n# ${name}\n\nSteps.\n`;

async function writeSkill(folder, name) {
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, 'SKILL.md'), skillMd(name));
}

/** The calls discovery makes, counted; node:fs/promises underneath. */
function countingFs() {
  const counts = { skillReads: 0, listings: 0, realpaths: 0, stats: 0 };
  const fs = {
    readdir: (path, options) => (counts.listings++, fsp.readdir(path, options)),
    readFile: (path, encoding) => (path.endsWith('SKILL.md') && counts.skillReads++, fsp.readFile(path, encoding)),
    stat: (path) => (counts.stats++, fsp.stat(path)),
    lstat: (path) => (counts.stats++, fsp.lstat(path)),
    realpath: (path) => (counts.realpaths++, fsp.realpath(path)),
    open: (path, flags) => fsp.open(path, flags),
    readlink: (path) => fsp.readlink(path),
  };
  return { fs, counts };
}

const CASES = {
  /** 50 skills, 4 FIFOs named SKILL.md and 4 SKILL.md links to FIFOs; an unrelated fs call while discovery runs. */
  async fifo(api, root) {
    for (let i = 0; i < 50; i++) await writeSkill(join(root, 'skills', `skill-${i}`), `skill-${i}`);
    const fifos = [];
    await mkdir(join(root, 'pipes'));
    for (let i = 0; i < 8; i++) {
      const folder = join(root, 'skills', `piped-${i}`);
      await mkdir(folder);
      const fifo = i < 4 ? join(folder, 'SKILL.md') : join(root, 'pipes', `pipe-${i}`);
      execFileSync('mkfifo', [fifo]);
      fifos.push(fifo);
      if (i >= 4) await symlink(fifo, join(folder, 'SKILL.md'));
    }
    try {
      const started = performance.now();
      const discovering = api.discoverSkills({ directories: [join(root, 'skills')] });
      // Let discovery reach the FIFOs, then ask the thread pool for something unrelated.
      for (let i = 0; i < 20; i++) await setImmediate();
      const statStarted = performance.now();
      const stat = await within(fsp.stat(root), BLOCKED_MS);
      const statMs = performance.now() - statStarted;
      const result = await within(discovering, CASE_TIMEOUT_MS / 2);
      const ms = performance.now() - started;
      return [
        ['discovery', result === undefined ? 'hung' : `${ms.toFixed(0)} ms`],
        ['fs.stat while discovering', stat === undefined ? `blocked (> ${BLOCKED_MS} ms)` : `${statMs.toFixed(1)} ms`],
        ['skills loaded (of 50)', result?.skills.length ?? '-'],
        ['SKILL_UNREADABLE errors (of 8)', result?.errors.filter((e) => e.code === 'SKILL_UNREADABLE').length ?? '-'],
      ];
    } finally {
      // Frees any open that did block (the bug), so the process can end.
      for (const fifo of fifos) {
        try {
          closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
        } catch {
          // No reader waiting.
        }
      }
    }
  },

  /** Six levels of folders, each holding 10 links to the next; the last holds one skill. */
  async 'fan-out 6 levels x 10 links'(api, root) {
    const levels = 6;
    await writeSkill(join(root, 'store', `L${levels - 1}`, 'deep'), 'deep');
    await mkdir(join(root, 'skills'));
    for (let level = 0; level < levels; level++) {
      await mkdir(join(root, 'store', `L${level}`), { recursive: true });
      for (let i = 0; i < 10; i++) {
        if (level + 1 < levels) await symlink(join(root, 'store', `L${level + 1}`), join(root, 'store', `L${level}`, `link-${i}`));
        if (level === 0) await symlink(join(root, 'store', 'L0'), join(root, 'skills', `link-${i}`));
      }
    }
    return measure(api, join(root, 'skills'), 1);
  },

  /** 1,000 links to one category folder of 50 skills. */
  async 'links 1,000 -> one folder of 50 skills'(api, root) {
    for (let i = 0; i < 50; i++) await writeSkill(join(root, 'store', 'category', `skill-${i}`), `skill-${i}`);
    await mkdir(join(root, 'skills'));
    for (let i = 0; i < 1000; i++)
      await symlink(join(root, 'store', 'category'), join(root, 'skills', `link-${String(i).padStart(4, '0')}`));
    return measure(api, join(root, 'skills'), 50);
  },

  /** A chain of 200 links (each to the next), the last to a skill folder: the system follows 40. */
  async 'chain of 200 links'(api, root) {
    await writeSkill(join(root, 'store', 'target'), 'target');
    await mkdir(join(root, 'skills'));
    const name = (i) => `link-${String(i).padStart(3, '0')}`;
    await symlink(join(root, 'store', 'target'), join(root, 'skills', name(199)));
    for (let i = 0; i < 199; i++) await symlink(name(i + 1), join(root, 'skills', name(i)));
    const rows = await measure(api, join(root, 'skills'), 1);
    const result = await api.discoverSkills({ directories: [join(root, 'skills')] });
    const codes = new Map();
    for (const { code } of result.warnings) codes.set(code, (codes.get(code) ?? 0) + 1);
    return [...rows, ['warnings', [...codes].map(([code, n]) => `${n} x ${code}`).join(', ') || 'none']];
  },

  /** One skill 100 folders below the configured directory (6 was the limit). */
  async 'skill 100 folders deep'(api, root) {
    const parts = Array.from({ length: 100 }, (_, i) => `d${i}`);
    await writeSkill(join(root, 'skills', ...parts), 'deep');
    return measure(api, join(root, 'skills'), 1);
  },
};

/** `promise`'s value, or undefined when it takes longer than `ms`. */
async function within(promise, ms) {
  const timer = new globalThis.AbortController();
  try {
    return await Promise.race([promise, setTimeout(ms, undefined, { signal: timer.signal })]);
  } finally {
    timer.abort();
  }
}

async function measure(api, directory, expected) {
  const started = performance.now();
  const result = await api.discoverSkills({ directories: [directory] });
  const ms = performance.now() - started;
  const { fs, counts } = countingFs();
  await api.discoverSkills({ directories: [directory], fs });
  return [
    ['discovery', `${ms.toFixed(0)} ms`],
    [`skills loaded (of ${expected})`, result.skills.length],
    ['SKILL.md reads', counts.skillReads],
    ['folder listings', counts.listings],
    ['realpath calls', counts.realpaths],
  ];
}

/** In a child process: one case, printed as JSON rows. */
async function runCase(name, dist) {
  const api = await import(pathToFileURL(join(dist, 'index.js')).href);
  const root = await mkdtemp(join(tmpdir(), 'skills-stress-discovery-'));
  try {
    const rows = await CASES[name](api, root);
    rows.push(['peak RSS', `${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`]);
    process.stdout.write(JSON.stringify(rows.map(([figure, value]) => ({ case: name, figure, value: String(value) }))));
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

function inChild(name, dist) {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [SELF, '--case', name, '--dist', dist],
      { timeout: CASE_TIMEOUT_MS, maxBuffer: 1 << 20 },
      (error, stdout) => {
        if (error)
          done([
            {
              case: name,
              figure: 'result',
              value: error.killed ? `did not finish in ${CASE_TIMEOUT_MS / 1000} s` : `failed: ${error.message.split('\n')[0]}`,
            },
          ]);
        else done(JSON.parse(stdout));
      },
    );
  });
}

export async function run({ dist } = {}) {
  const folder = distFolder(dist);
  const names = Object.keys(CASES).filter((name) => name !== 'fifo' || process.platform !== 'win32');
  const rows = [];
  for (const name of names) rows.push(...(await inChild(name, folder)));
  return rows;
}

if (process.argv[1] === SELF) {
  const dist = distFolder();
  const only = cliArg('--case');
  if (only) await runCase(only, dist);
  else printRows(await run({ dist }));
}

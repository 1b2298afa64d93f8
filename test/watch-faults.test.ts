/**
 * Watch faults through the public API: nothing a watched tree does may end
 * the process, every problem is logged on the next request, and what can
 * still be watched still is.
 *
 * The crashes are reproduced for real in a child process running the bundled
 * package: a symbolic link loop appearing (ELOOP) and a folder becoming
 * unreadable (EACCES; the child runs as an unprivileged user when we are
 * root, since root may read anything). Running out of watches (ENOSPC) cannot
 * be caused without changing a system-wide limit, so it is simulated through
 * the injectable fs, failing watchFolder() the way node does.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, realpathSync, statSync } from 'node:fs';
import { chmod, copyFile, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeFileSystem, type SkillsFileSystem } from '../src/base/fs.js';
import { skillsMiddleware } from '../src/index.js';
import { conversation, createContext, type RecordingLogger } from './helpers/stack.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const isRoot = process.getuid?.() === 0;
/** `nobody`: an account that root's files are not readable to unless their mode says so. */
const UNPRIVILEGED = 65534;

let temp: string;
beforeAll(async () => {
  temp = await mkdtemp(join(tmpdir(), 'mw-skills-watch-faults-'));
  // The child may run as another user: it must reach everything below.
  await chmod(temp, 0o755);
});
afterAll(async () => {
  await chmod(join(temp, 'child-eacces', 'locked'), 0o755).catch(() => {});
  await rm(temp, { recursive: true, force: true });
});

async function writeSkill(root: string, folder: string, description: string): Promise<void> {
  const name = folder.split('/').at(-1) ?? folder;
  await mkdir(join(root, folder), { recursive: true });
  await writeFile(join(root, folder, 'SKILL.md'), `---\nname: ${name}\ndescription: ${description}\n---\nBody.\n`);
}

async function until(condition: () => Promise<boolean> | boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Each `[skills] watch` warning's message. */
function watchWarnings(log: RecordingLogger): string[] {
  return log.entries
    .filter((e) => e.level === 'warn' && e.args[0] === '[skills] watch')
    .map((e) => {
      const data = e.args[1] as { error?: unknown; message?: unknown } | undefined;
      return String(data?.error ?? data?.message ?? '');
    });
}

// ---------------------------------------------------------------------------
// In process, through an injected fs

/**
 * node's fs, where at most `limit()` watches may be open at once; more fail
 * with ENOSPC, thrown at once as node:fs `watch` does. The callback form
 * (watchFolder) is what the middleware's default fs uses.
 */
function limitedWatches(limit: () => number): SkillsFileSystem {
  let open = 0;
  const watchFolder = nodeFileSystem.watchFolder;
  if (!watchFolder) throw new Error('nodeFileSystem has watchFolder()');
  return {
    ...nodeFileSystem,
    watchFolder(path, onEvent, onError) {
      if (open >= limit()) {
        throw Object.assign(new Error(`ENOSPC: System limit for number of file watchers reached, watch '${path}'`), { code: 'ENOSPC' });
      }
      const handle = watchFolder(path, onEvent, onError);
      open++;
      let closed = false;
      return {
        close() {
          if (!closed) open--;
          closed = true;
          handle.close();
        },
      };
    },
  };
}

describe('watch faults through skillsMiddleware (in process)', () => {
  async function request(middleware: ReturnType<typeof skillsMiddleware>): Promise<{ system: string; warnings: string[] }> {
    const ctx = createContext({ messages: conversation('hi') });
    await middleware(ctx, async () => {});
    return { system: ctx.messages[0]?.content ?? '', warnings: watchWarnings(ctx.log) };
  }

  it('out of watches at start is said on the next request, and watching resumes when there is room', async () => {
    const root = await mkdtemp(join(temp, 'enospc-'));
    await writeSkill(root, 'alpha', 'One.');
    let limit = 0;
    const middleware = skillsMiddleware({
      directories: [root],
      watch: { debounceMs: 20 },
      cacheTtl: Infinity,
      fs: limitedWatches(() => limit),
    });
    try {
      const warnings: string[] = [];
      await until(async () => {
        warnings.push(...(await request(middleware)).warnings);
        return warnings.length >= 2;
      }, 'the warnings');
      expect(warnings[0]).toContain(`cannot watch ${root} and folders not yet watched: the system's limit on watches is reached (ENOSPC)`);
      expect(warnings[1]).toContain('no skills folder can be watched, so changes are seen only when the index is rescanned');

      limit = 100;
      await writeSkill(root, 'beta', 'Two.');
      await until(async () => (await request(middleware)).system.includes('beta: Two.'), 'the new skill, once watched');
    } finally {
      await middleware.close();
    }
  });

  it('out of watches part way: what is watched still reports changes', async () => {
    const root = await mkdtemp(join(temp, 'enospc-part-'));
    for (const name of ['alpha', 'beta', 'gamma']) await writeSkill(root, name, 'One.');
    const middleware = skillsMiddleware({
      directories: [root],
      watch: { debounceMs: 20 },
      cacheTtl: Infinity,
      fs: limitedWatches(() => 2),
    });
    try {
      const warnings: string[] = [];
      await until(async () => {
        warnings.push(...(await request(middleware)).warnings);
        return warnings.length >= 1;
      }, 'the warning');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/limit on watches is reached \(ENOSPC\)/);
      // The root is watched: a new skill is seen.
      await writeSkill(root, 'delta', 'Added.');
      await until(async () => (await request(middleware)).system.includes('delta: Added.'), 'a skill added to the watched root');
    } finally {
      await middleware.close();
    }
  });

  it('a folder that becomes unreadable is said on the next request; the others are still watched', async () => {
    const root = await mkdtemp(join(temp, 'eacces-fs-'));
    await writeSkill(root, 'alpha', 'One.');
    await writeSkill(root, 'locked/inner', 'Inner.');
    let locked = false;
    const fs: SkillsFileSystem = {
      ...nodeFileSystem,
      readdir: (path, options) =>
        locked && path === join(root, 'locked')
          ? Promise.reject(Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' }))
          : nodeFileSystem.readdir(path, options),
    };
    const middleware = skillsMiddleware({ directories: [root], watch: { debounceMs: 20 }, cacheTtl: Infinity, fs });
    try {
      expect((await request(middleware)).system).toContain('inner: Inner.');
      locked = true;
      // What a chmod reports: an attribute change on the folder.
      await chmod(join(root, 'locked'), 0o700);
      const warnings: string[] = [];
      await until(async () => {
        warnings.push(...(await request(middleware)).warnings);
        return warnings.length >= 1;
      }, 'the warning');
      expect(warnings).toEqual([
        `cannot watch ${join(root, 'locked')}: permission denied. Its skills cannot be loaded until ` +
          `this process may read it; retrying every 1000 ms, and the other folders are still watched.`,
      ]);
      await writeSkill(root, 'alpha', 'Edited.');
      await until(async () => (await request(middleware)).system.includes('alpha: Edited.'), 'an edit elsewhere');
    } finally {
      await middleware.close();
    }
  });
});

// ---------------------------------------------------------------------------
// In a child process running the bundled package, for the real conditions

/** What the child answers per request: the system prompt and every log call, as JSON. */
interface Answer {
  system: string;
  log: string[];
}

const CHILD = `
import { skillsMiddleware } from './index.mjs';
const middleware = skillsMiddleware({ directories: [process.argv[2]], watch: { debounceMs: 20 }, cacheTtl: Infinity });
async function request() {
  const log = [];
  const record = (level) => (...args) => log.push(JSON.stringify([level, ...args]));
  const tools = new Map();
  const ctx = {
    messages: [{ role: 'system', content: 'sys' }, { role: 'user', content: 'hi' }],
    tools: { get: (name) => tools.get(name), register: (tool) => tools.set(tool.name, tool) },
    state: {},
    log: { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') },
    signal: new AbortController().signal,
  };
  await middleware(ctx, async () => {});
  return { system: ctx.messages[0].content, log };
}
process.on('message', async (message) => {
  if (message === 'close') {
    await middleware.close();
    process.disconnect();
    return;
  }
  process.send(await request());
});
process.send('started');
`;

/**
 * What the child inherits must not reach into the checkout: vitest puts
 * `--require <checkout>/node_modules/...` in NODE_OPTIONS and its own flags in
 * execArgv, and an unprivileged child cannot traverse a private checkout (a
 * clone under root's home or a `mktemp -d`), so it would die before starting.
 * The bundle needs nothing from the checkout, and the child runs in `temp`.
 */
/**
 * A node binary the unprivileged account can run: this one when every folder above it lets others through,
 * else a copy in the test's folder (CI's Node 22 and 24 live inside the clone, in a private folder).
 */
async function nodeRunnableBy(): Promise<string> {
  const node = realpathSync(process.execPath);
  if (othersMayRun(node)) return node;
  const copy = join(temp, 'node');
  if (!existsSync(copy)) {
    await copyFile(node, copy);
    await chmod(copy, 0o755);
  }
  return copy;
}

function othersMayRun(file: string): boolean {
  for (let path = file; ; path = dirname(path)) {
    if ((statSync(path).mode & 0o001) === 0) return false;
    if (dirname(path) === path) return true;
  }
}

function standaloneChild(): { env: NodeJS.ProcessEnv; execArgv: string[]; cwd: string } {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => key !== 'NODE_OPTIONS' && !key.startsWith('VITEST')));
  return { env, execArgv: [], cwd: temp };
}

class Child {
  private readonly answers: Array<(answer: Answer) => void> = [];
  readonly exited: Promise<{ code: number | null; stderr: string }>;

  private constructor(private readonly proc: ChildProcess) {
    let stderr = '';
    proc.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    proc.on('message', (message) => {
      if (message !== 'started') this.answers.shift()?.(message as Answer);
    });
    this.exited = new Promise((resolve) => proc.on('exit', (code) => resolve({ code, stderr })));
  }

  static async start(script: string, root: string, uid: number | undefined): Promise<Child> {
    const proc = fork(script, [root], {
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      ...(uid === undefined ? {} : { uid, gid: uid, execPath: await nodeRunnableBy() }),
      ...standaloneChild(),
    });
    const child = new Child(proc);
    await new Promise<void>((resolve, reject) => {
      proc.once('message', () => resolve());
      // A child that cannot be started (EACCES on the binary) fails the test now, not at its timeout.
      proc.once('error', reject);
      void child.exited.then(({ stderr }) => reject(new Error(`the child ended before starting: ${stderr}`)));
    });
    return child;
  }

  /** One request, or the child's end if it died meanwhile. */
  async request(): Promise<Answer> {
    const answer = new Promise<Answer>((resolve) => this.answers.push(resolve));
    this.proc.send('request');
    const died = this.exited.then(({ code, stderr }) => {
      throw new Error(`the child process ended with code ${String(code)}: ${stderr}`);
    });
    return Promise.race([answer, died]);
  }

  async close(): Promise<number | null> {
    this.proc.send('close');
    return (await this.exited).code;
  }
}

describe('watch faults in a process running the bundled package', () => {
  let script: string;

  beforeAll(async () => {
    const out = await mkdtemp(join(temp, 'bundle-'));
    await chmod(out, 0o755);
    // Bundled whole (zod included), so the child needs nothing from node_modules.
    await build({
      entryPoints: [join(ROOT, 'src/index.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      outfile: join(out, 'index.mjs'),
      logLevel: 'silent',
    });
    script = join(out, 'child.mjs');
    await writeFile(script, CHILD);
  }, 60_000);

  it('a symbolic link loop appearing does not end the process; it is reported and later edits are seen', async () => {
    const root = join(temp, 'child-eloop');
    await writeSkill(root, 'alpha', 'One.');
    const child = await Child.start(script, root, undefined);
    expect((await child.request()).system).toContain('alpha: One.');

    await symlink(join(root, 'alpha', 'y'), join(root, 'alpha', 'x'));
    await symlink(join(root, 'alpha', 'x'), join(root, 'alpha', 'y'));
    let log: string[] = [];
    await until(async () => {
      log = (await child.request()).log;
      return log.some((line) => line.includes('SYMLINK_LOOP'));
    }, 'the loop reported');

    await writeSkill(root, 'alpha', 'Two.');
    await until(async () => (await child.request()).system.includes('alpha: Two.'), 'an edit after the loop');
    expect(await child.close()).toBe(0);
  }, 60_000);

  it('a folder becoming unreadable does not end the process; it is reported, and watched again once readable', async () => {
    const root = join(temp, 'child-eacces');
    await writeSkill(root, 'alpha', 'One.');
    await writeSkill(root, 'locked/inner', 'Inner.');
    const child = await Child.start(script, root, isRoot ? UNPRIVILEGED : undefined);
    expect((await child.request()).system).toContain('inner: Inner.');

    await chmod(join(root, 'locked'), 0o000);
    const warnings: string[] = [];
    await until(async () => {
      const { log } = await child.request();
      warnings.push(...log.filter((line) => line.startsWith('["warn","[skills] watch"')));
      return warnings.length > 0;
    }, 'the warning');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`cannot watch ${join(root, 'locked')}: permission denied`);

    await writeSkill(root, 'alpha', 'Two.');
    await until(async () => (await child.request()).system.includes('alpha: Two.'), 'an edit elsewhere');
    await until(async () => !(await child.request()).system.includes('inner: Inner.'), 'the unreadable skill gone');

    await chmod(join(root, 'locked'), 0o755);
    await until(async () => (await child.request()).system.includes('inner: Inner.'), 'the folder readable again');
    await writeSkill(root, 'locked/inner', 'Edited.');
    await until(async () => (await child.request()).system.includes('inner: Edited.'), 'an edit in it');
    expect(await child.close()).toBe(0);
  }, 60_000);
});

/**
 * What the CLI suites share: running sisu-skills in-process with its output
 * captured, a scratch folder per suite, SKILL.md files written from
 * frontmatter, and the package built into a private folder whose binary runs
 * as a user would run it. Each returns the same `Captured` shape, so a suite
 * can compare the built binary with the in-process run directly.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll } from 'vitest';
import { runCli, type CliIO } from '../../src/cli/run.js';

export const exec = promisify(execFile);

/** The package's root: the working directory of runs that name none. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The fields of package.json the CLI suites check. */
export const PACKAGE = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string; bin: Record<string, string> };

/** One run of the CLI: its exit code and everything it printed. */
export interface Captured {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs sisu-skills in-process (fast, and counted by coverage), each line printed ending in a newline as on a terminal. */
export async function cli(argv: string[], cwd: string = ROOT): Promise<Captured> {
  let stdout = '';
  let stderr = '';
  const io: CliIO = { out: (line) => (stdout += `${line}\n`), err: (line) => (stderr += `${line}\n`), cwd };
  const code = await runCli(argv, io);
  return { code, stdout, stderr };
}

/** A folder under the system's temporary folder, there from beforeAll to afterAll of the suite that asks for it. */
export interface TempFolder {
  /** Its absolute path; read it in hooks and tests only, since it is created in beforeAll. */
  readonly path: string;
}

/** Registers the hooks that create and remove a TempFolder named `prefix` plus random characters. */
export function useTempFolder(prefix: string): TempFolder {
  let path: string | undefined;
  beforeAll(async () => {
    path = await mkdtemp(join(tmpdir(), prefix));
  });
  afterAll(async () => {
    if (path !== undefined) await rm(path, { recursive: true, force: true });
  });
  return {
    get path(): string {
      if (path === undefined)
        throw new Error(`${prefix}: the temporary folder is created in beforeAll; read .path inside a hook or a test`);
      return path;
    },
  };
}

/** Writes `<root>/<folder>/SKILL.md` with the given frontmatter (YAML lines, without the fences) and body. */
export async function writeSkill(root: string, folder: string, frontmatter: string, body = 'Body.'): Promise<void> {
  await mkdir(join(root, folder), { recursive: true });
  await writeFile(join(root, folder, 'SKILL.md'), `---\n${frontmatter}\n---\n${body}\n`);
}

/** What execFile rejects with when the program ran and exited non-zero (not when it could not start or was killed). */
function isExitFailure(error: unknown): error is Captured {
  if (typeof error !== 'object' || error === null) return false;
  const { code, stdout, stderr } = error as Partial<Record<keyof Captured, unknown>>;
  return typeof code === 'number' && typeof stdout === 'string' && typeof stderr === 'string';
}

/** The package built with the real tsup config into a private folder, as `npm pack` would ship it. */
export interface BuiltBinary {
  /** The folder holding dist/ and package.json; created in beforeAll. */
  readonly pack: string;
  /** The sisu-skills bin file inside it, as package.json names it. */
  readonly bin: string;
  /** Runs the binary with node; a non-zero exit is a result, not a rejection. */
  run(args: string[], cwd?: string): Promise<Captured>;
}

/**
 * Registers the hook that gets the package built, as `npm pack` would ship it
 * (`prefix` names the suite in errors). Call it inside the describe that uses
 * it, so that only that block waits for the build. Every suite shares one
 * build: see sharedBuild.
 */
export function useBuiltBinary(prefix: string): BuiltBinary {
  let built: string | undefined;
  beforeAll(async () => {
    built = await sharedBuild();
  }, 120_000);
  const binary: BuiltBinary = {
    get pack(): string {
      if (built === undefined) throw new Error(`${prefix}: the binary is built in beforeAll; use it inside a test`);
      return built;
    },
    get bin(): string {
      return join(binary.pack, PACKAGE.bin['sisu-skills'] ?? 'missing');
    },
    async run(args, cwd = ROOT) {
      try {
        const { stdout, stderr } = await exec(process.execPath, [binary.bin, ...args], { cwd });
        return { code: 0, stdout, stderr };
      } catch (error) {
        if (!isExitFailure(error)) throw error;
        return { code: error.code, stdout: error.stdout, stderr: error.stderr };
      }
    },
  };
  return binary;
}

/** Where builds are kept: inside node_modules, so the bundle still resolves zod, and away from dist/. */
const BUILDS = join(ROOT, 'node_modules', '.cache', 'mw-skills-built');

let building: Promise<string> | undefined;

/**
 * The package built with the real tsup config, once for what goes into it:
 * the folder is named after a hash of src/, tsup.config.ts and package.json,
 * so suites (in this worker, in the other workers, in a later run) reuse it
 * while nothing it is built from changed. Five suites each built their own
 * before (a tsup build costs about a second of CPU). One worker builds, under
 * a lock folder; the others wait for its result (before the lock, workers
 * that started together each built a copy and kept the first).
 */
function sharedBuild(): Promise<string> {
  building ??= (async () => {
    const target = join(BUILDS, await buildKey());
    await mkdir(BUILDS, { recursive: true });
    while (!existsSync(join(target, 'package.json'))) {
      if (await tryLock(`${target}.lock`)) {
        try {
          if (!existsSync(join(target, 'package.json'))) await buildInto(target);
        } finally {
          await rm(`${target}.lock`, { recursive: true, force: true });
        }
      } else await new Promise((done) => setTimeout(done, 100));
    }
    return target;
  })();
  return building;
}

/** Longest a build may hold its lock: past it, the lock is a crashed run's and is taken over. */
const STALE_LOCK_MS = 120_000;

/** Takes the lock folder `lock` (true), or says another worker holds it (false). */
async function tryLock(lock: string): Promise<boolean> {
  try {
    await mkdir(lock);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const held = await stat(lock).catch(() => undefined);
    if (held && Date.now() - held.mtimeMs > STALE_LOCK_MS) await rm(lock, { recursive: true, force: true });
    return false;
  }
}

/** Builds into a scratch folder, renamed to `target` when complete (a reader never sees half a build). */
async function buildInto(target: string): Promise<void> {
  const scratch = await mkdtemp(join(BUILDS, 'building-'));
  // tsup's own API with the project's config, in this process (no npx, no second node to start), imported only by the
  // worker that builds (importing it costs most of a second). Type declarations are the library build's business,
  // not the binary's: skip them to build in a second.
  const { build } = await import('tsup');
  await build({ config: join(ROOT, 'tsup.config.ts'), silent: true, dts: false, outDir: join(scratch, 'dist') });
  await copyFile(join(ROOT, 'package.json'), join(scratch, 'package.json'));
  await rename(scratch, target);
  // Builds of sources that are gone (an earlier edit) are only taking room; a recent one may be another run's in use
  // (a second checkout sharing node_modules, a watch run beside a full one), so only those an hour old go.
  for (const old of await readdir(BUILDS)) {
    const path = join(BUILDS, old);
    if (path === target || path.startsWith(`${target}.`) || old.startsWith('building-') || old.endsWith('.lock')) continue;
    const built = await stat(path).catch(() => undefined);
    if (built && Date.now() - built.mtimeMs > OLD_BUILD_MS) await rm(path, { recursive: true, force: true });
  }
}

/** Age past which another build is taken for one no run uses. */
const OLD_BUILD_MS = 60 * 60 * 1000;

/** A hash of every file a build is made from. */
async function buildKey(): Promise<string> {
  const hash = createHash('sha256');
  const files = [join(ROOT, 'tsup.config.ts'), join(ROOT, 'package.json')];
  for (const entry of await readdir(join(ROOT, 'src'), { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) files.push(join(entry.parentPath, entry.name));
  }
  for (const file of files.sort())
    hash
      .update(`${file}\0`)
      .update(await readFile(file))
      .update('\0');
  return hash.digest('hex').slice(0, 16);
}

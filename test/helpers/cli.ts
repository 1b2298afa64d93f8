/**
 * What the CLI suites share: running sisu-skills in-process with its output
 * captured, a scratch folder per suite, SKILL.md files written from
 * frontmatter, and the package built into a private folder whose binary runs
 * as a user would run it. Each returns the same `Captured` shape, so a suite
 * can compare the built binary with the in-process run directly.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build as tsupBuild } from 'tsup';
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
 * Registers the hooks that build the package into a folder named `prefix`
 * plus random characters, and remove it. Call it inside the describe that
 * uses it, so that only that block waits for the build.
 */
export function useBuiltBinary(prefix: string): BuiltBinary {
  let built: string | undefined;
  beforeAll(async () => {
    // Inside node_modules so the bundle still resolves zod, and away from dist/ so parallel builds (other suites', a developer's) don't collide.
    const cache = join(ROOT, 'node_modules', '.cache');
    await mkdir(cache, { recursive: true });
    built = await mkdtemp(join(cache, prefix));
    // tsup's own API with the project's config, in this process (no npx, no second node to start). Type
    // declarations are the library build's business, not the binary's: skip them to build in a second.
    await tsupBuild({ config: join(ROOT, 'tsup.config.ts'), silent: true, dts: false, outDir: join(built, 'dist') });
    await copyFile(join(ROOT, 'package.json'), join(built, 'package.json'));
  }, 120_000);
  afterAll(async () => {
    if (built !== undefined) await rm(built, { recursive: true, force: true });
  });
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

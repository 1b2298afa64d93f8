/** Builders for discovery tests: temporary folders and a fault-injecting memfs. */
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createFsFromVolume, Volume } from 'memfs';
import type { DirEntry, FileHandle, FileStats, SkillsFileSystem } from '../../src/base/fs.js';

/** SKILL.md text with the given name and description (and extra frontmatter lines). */
export function skillMd(name: string, description = `Does ${name} things. Use when asked about ${name}.`, extra = ''): string {
  return `---\nname: ${name}\ndescription: ${description}\n${extra}---\n# ${name}\n\nSteps for ${name}.\n`;
}

export type Tree = Record<string, string>;

/** A temporary folder holding `tree` (relative path -> file text). Remove it with `cleanup`. */
export async function makeTempTree(tree: Tree = {}): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'mw-skills-discover-'));
  await writeTree(root, tree);
  return root;
}

export async function writeTree(root: string, tree: Tree): Promise<void> {
  for (const [path, text] of Object.entries(tree)) {
    const full = join(root, path);
    await mkdir(dirname(full), { recursive: true });
    await writeFile(full, text);
  }
}

export async function link(target: string, path: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await symlink(target, path);
}

export async function cleanup(root: string): Promise<void> {
  await rm(root, { recursive: true, force: true });
}

// ---------------------------------------------------------------------------
// memfs with faults

export type FsMethod = keyof SkillsFileSystem;

export interface Fault {
  method: FsMethod;
  path: string;
  code: string;
}

/** memfs `promises` seen through our interface, throwing a system-style error for chosen calls. */
export function faultyFs(tree: Tree, faults: readonly Fault[] = []): { fs: SkillsFileSystem; calls: string[]; volume: Volume } {
  const volume = Volume.fromJSON(tree);
  const memfs = createFsFromVolume(volume).promises;
  const calls: string[] = [];
  async function guard(method: FsMethod, path: string): Promise<void> {
    calls.push(`${method} ${path}`);
    const fault = faults.find((f) => f.method === method && f.path === path);
    if (fault) throw Object.assign(new Error(`${fault.code}: injected fault, ${method} '${path}'`), { code: fault.code });
  }
  const fs: SkillsFileSystem = {
    async readdir(path, options) {
      await guard('readdir', path);
      return (await memfs.readdir(path, options)) as unknown as DirEntry[];
    },
    async readFile(path, encoding) {
      await guard('readFile', path);
      return (await memfs.readFile(path, encoding)) as string;
    },
    async stat(path) {
      await guard('stat', path);
      return (await memfs.stat(path)) as unknown as FileStats;
    },
    async lstat(path) {
      await guard('lstat', path);
      return (await memfs.lstat(path)) as unknown as FileStats;
    },
    async realpath(path) {
      await guard('realpath', path);
      return (await memfs.realpath(path)) as string;
    },
    async open(path, flags) {
      await guard('open', path);
      return (await memfs.open(path, flags)) as unknown as FileHandle;
    },
  };
  return { fs, calls, volume };
}

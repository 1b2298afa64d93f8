/**
 * Directory walking: which folders under a configured directory are skills.
 * Every folder holding a SKILL.md is a skill, the configured directory itself
 * included, and a folder inside a skill holding its own SKILL.md is a
 * separate skill. Output order is fixed by the tree (entries sorted by name),
 * never by which read finished first.
 */
import { sep } from 'node:path';
import type { Diagnostic } from '../diagnostics.js';
import { errorCode, errorReason, type DirEntry, type SkillsFileSystem } from '../fs.js';

export const SKILL_FILE = 'SKILL.md';
/** How many folder levels below a configured directory are searched for skills. */
export const MAX_SCAN_DEPTH = 6;
/** Most filesystem calls in flight at once, so 20,000 skills never hit EMFILE. */
export const MAX_CONCURRENT_FS_CALLS = 32;

export interface SkillLocation {
  /** The configured directory the skill was found under. */
  root: string;
  /** Absolute path of the skill folder, as reached (through any symlinks). */
  directory: string;
  /** The folder's real path, for loading a folder reached twice only once. */
  realDirectory: string;
  /** Absolute path of the SKILL.md. */
  file: string;
}

export interface ScanResult {
  skills: SkillLocation[];
  diagnostics: Diagnostic[];
}

interface Folder {
  path: string;
  realPath: string;
  depth: number;
}

/** Dot-folders (.git, .venv ...) and node_modules never hold skills or resources. */
export function isSkippedName(name: string): boolean {
  return name.startsWith('.') || name === 'node_modules';
}

/** Code-unit order: the same on every machine and locale. */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Whether `inner` is `outer` or lies inside it (real paths). */
export function isSameOrInside(inner: string, outer: string): boolean {
  return inner === outer || inner.startsWith(outer.endsWith(sep) ? outer : outer + sep);
}

export function hasSkillFile(entries: readonly DirEntry[]): boolean {
  return entries.some((entry) => entry.name === SKILL_FILE && !entry.isDirectory());
}

/**
 * Find the skills under one configured directory. Never throws. `onSkill` is
 * told of each skill as soon as its folder is listed (in no fixed order), so a
 * caller can start reading it while the walk goes on; the result's order is
 * the tree's.
 */
export async function scanDirectory(fs: SkillsFileSystem, root: string, onSkill?: (location: SkillLocation) => void): Promise<ScanResult> {
  let realRoot: string;
  try {
    realRoot = await fs.realpath(root);
  } catch (error) {
    return { skills: [], diagnostics: [directoryProblem(root, error)] };
  }
  return walk({ fs, root, onSkill }, { path: root, realPath: realRoot, depth: 0 });
}

/**
 * `name` inside `folder`. Plain concatenation, not path.join: both parts are
 * already normal (absolute resolved paths and names from readdir), and the
 * walk builds one per entry.
 */
export function childPath(folder: string, name: string): string {
  return folder.endsWith(sep) ? folder + name : folder + sep + name;
}

interface Walk {
  fs: SkillsFileSystem;
  root: string;
  onSkill: ((location: SkillLocation) => void) | undefined;
}

async function walk(scan: Walk, folder: Folder): Promise<ScanResult> {
  const { fs, root } = scan;
  let entries: DirEntry[];
  try {
    entries = await fs.readdir(folder.path, { withFileTypes: true });
  } catch (error) {
    return { skills: [], diagnostics: [directoryProblem(folder.path, error)] };
  }
  const result: ScanResult = { skills: [], diagnostics: [] };
  if (hasSkillFile(entries)) {
    const location = { root, directory: folder.path, realDirectory: folder.realPath, file: childPath(folder.path, SKILL_FILE) };
    result.skills.push(location);
    scan.onSkill?.(location);
  }
  if (folder.depth >= MAX_SCAN_DEPTH) return result;

  // Only folders and links can lead further; files (most entries) cost nothing more. Folders are
  // walked at once; a link needs a stat first. Results are merged in name order, whatever finishes first.
  const candidates = entries
    .filter((entry) => (entry.isDirectory() || entry.isSymbolicLink()) && !isSkippedName(entry.name))
    .sort((a, b) => compareNames(a.name, b.name));
  const subtrees = await Promise.all(
    candidates.map((entry) =>
      entry.isDirectory()
        ? walk(scan, { path: childPath(folder.path, entry.name), realPath: childPath(folder.realPath, entry.name), depth: folder.depth + 1 })
        : linkedFolder(fs, folder, entry).then((child) =>
            child === undefined ? { skills: [], diagnostics: [] } : 'realPath' in child ? walk(scan, child) : { skills: [], diagnostics: [child] },
          ),
    ),
  );
  for (const subtree of subtrees) {
    for (const skill of subtree.skills) result.skills.push(skill);
    for (const diagnostic of subtree.diagnostics) result.diagnostics.push(diagnostic);
  }
  return result;
}

/**
 * The folder a symbolic link leads to, a warning (a link loop, a broken or
 * unreadable link), or nothing (a link to a file).
 */
async function linkedFolder(fs: SkillsFileSystem, parent: Folder, entry: DirEntry): Promise<Folder | Diagnostic | undefined> {
  const path = childPath(parent.path, entry.name);
  let realPath: string;
  try {
    if (!(await fs.stat(path)).isDirectory()) return undefined;
    realPath = await fs.realpath(path);
  } catch (error) {
    if (errorCode(error) === 'ELOOP') return symlinkLoop(path, 'it is a cycle of symbolic links');
    // A dangling link may be a skill the user expects to see: say so instead of dropping it quietly.
    if (errorCode(error) === 'ENOENT') return brokenLink(path);
    return directoryProblem(path, error);
  }
  // A link to the folder it sits in (or above) would be walked forever.
  if (isSameOrInside(parent.realPath, realPath)) return symlinkLoop(path, `it points back to ${realPath}, which contains it`);
  return { path, realPath, depth: parent.depth + 1 };
}

export function symlinkLoop(path: string, reason: string): Diagnostic {
  return {
    code: 'SYMLINK_LOOP',
    severity: 'warning',
    file: path,
    line: 0,
    column: 0,
    message: `symbolic link skipped: ${reason}. Point the link at a folder outside the one it sits in, or remove it.`,
  };
}

function brokenLink(path: string): Diagnostic {
  return {
    code: 'SYMLINK_BROKEN',
    severity: 'warning',
    file: path,
    line: 0,
    column: 0,
    message: 'symbolic link skipped: its target does not exist. Fix the link or remove it.',
  };
}

/** DIRECTORY_NOT_FOUND or DIRECTORY_UNREADABLE for a folder that could not be listed. */
function directoryProblem(path: string, error: unknown): Diagnostic {
  if (errorCode(error) === 'ENOENT') {
    return {
      code: 'DIRECTORY_NOT_FOUND',
      severity: 'warning',
      file: path,
      line: 0,
      column: 0,
      message: 'skills directory does not exist. Create it, or remove it from `directories`.',
    };
  }
  return {
    code: 'DIRECTORY_UNREADABLE',
    severity: 'warning',
    file: path,
    line: 0,
    column: 0,
    message: `cannot read directory: ${errorReason(error)}. Check that it is a folder this process may read.`,
  };
}

/** Runs a call once fewer than its limit are in flight; callers queue in order. */
export type Limiter = <T>(call: () => Promise<T>) => Promise<T>;

export function createLimiter(max: number): Limiter {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async function run<T>(call: () => Promise<T>): Promise<T> {
    if (active < max) active++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await call();
    } finally {
      // Hand the slot straight to the next caller, or free it.
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  };
}

/**
 * Wrap a filesystem so at most `max` calls are in flight; the rest wait in
 * order. Only single calls hold a slot, so recursive walks cannot deadlock.
 */
export function limitConcurrency(fs: SkillsFileSystem, max: number | Limiter): SkillsFileSystem {
  const run = typeof max === 'number' ? createLimiter(max) : max;
  return {
    readdir: (path, options) => run(() => fs.readdir(path, options)),
    readFile: (path, encoding) => run(() => fs.readFile(path, encoding)),
    stat: (path) => run(() => fs.stat(path)),
    lstat: (path) => run(() => fs.lstat(path)),
    realpath: (path) => run(() => fs.realpath(path)),
    open: (path, flags) => run(() => fs.open(path, flags)),
  };
}

/**
 * Wrap a filesystem so each folder is listed once per discovery: the scan and
 * the resource listing walk the same skill folders. Use a fresh wrapper per
 * discovery so a later one sees changes.
 */
export function memoizeReaddir(fs: SkillsFileSystem): SkillsFileSystem {
  const listings = new Map<string, Promise<DirEntry[]>>();
  return {
    ...fs,
    readdir(path, options) {
      let listing = listings.get(path);
      if (!listing) {
        listing = fs.readdir(path, options);
        listings.set(path, listing);
      }
      return listing;
    },
  };
}

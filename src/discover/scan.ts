/**
 * Directory walking: which folders under the configured directories are
 * skills. Every folder holding a SKILL.md is a skill, a configured directory
 * itself included, and a folder inside a skill holding its own SKILL.md is a
 * separate skill.
 *
 * Two passes. The walk lists each real folder once, however many paths
 * (symbolic links, overlapping directories) lead to it, so link structures
 * that fan out cost what the folders they reach cost, never the number of
 * paths; that bound is also why there is no depth limit. The second pass goes
 * through what was found in tree order (configured directories in the order
 * given, entries sorted by name) and keeps each real folder at the first path
 * that reaches it, so the output never depends on which read finished first.
 */
import { dirname, resolve, sep } from 'node:path';
import type { Diagnostic } from '../diagnostics.js';
import { errorCode, errorReason, type DirEntry, type SkillsFileSystem } from '../fs.js';

export const SKILL_FILE = 'SKILL.md';
/** Most filesystem calls in flight at once, so 20,000 skills never hit EMFILE. */
export const MAX_CONCURRENT_FS_CALLS = 32;
/** Links followed by hand to explain an ELOOP; past this a chain is just "too long". */
const MAX_TRACED_LINKS = 1000;
/** Link names quoted in one grouped warning. */
const QUOTED_LINKS = 3;

/**
 * What the folder listing said SKILL.md is: a regular file; a symbolic link
 * (its target is checked when it is read); or a pipe, socket or device,
 * which is never opened.
 */
export type SkillFileType = 'file' | 'link' | 'other';

export interface SkillLocation {
  /** The configured directory the skill was found under. */
  root: string;
  /** Absolute path of the skill folder, as reached (through any symlinks). */
  directory: string;
  /** The folder's real path: its name is the folder name rules judge, and a folder reached twice loads once. */
  realDirectory: string;
  /** Absolute path of the SKILL.md. */
  file: string;
  fileType: SkillFileType;
}

/** A skill as soon as the walk lists its folder, before the tree-order pass picks its path. */
export type FoundSkill = Omit<SkillLocation, 'root'>;

export interface ScanResult {
  skills: SkillLocation[];
  diagnostics: Diagnostic[];
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

/** The type of the folder's SKILL.md, or undefined when it has none. */
function skillFileType(entries: readonly DirEntry[]): SkillFileType | undefined {
  const entry = entries.find((e) => e.name === SKILL_FILE && !e.isDirectory());
  if (!entry) return undefined;
  return entry.isFile() ? 'file' : entry.isSymbolicLink() ? 'link' : 'other';
}

/** A `skill.md`, `Skill.MD` ... beside no SKILL.md: almost certainly meant to be one. */
function misnamedSkillFile(entries: readonly DirEntry[]): string | undefined {
  const lower = SKILL_FILE.toLowerCase();
  return entries.find((e) => e.name.length === SKILL_FILE.length && e.name !== SKILL_FILE && e.name.toLowerCase() === lower && !e.isDirectory())?.name;
}

/**
 * `name` inside `folder`. Plain concatenation, not path.join: both parts are
 * already normal (absolute resolved paths and names from readdir), and the
 * walk builds one per entry.
 */
export function childPath(folder: string, name: string): string {
  return folder.endsWith(sep) ? folder + name : folder + sep + name;
}

/**
 * Find the skills under one configured directory. Never throws. `onSkill` is
 * told of each skill as soon as its folder is listed (in no fixed order), so a
 * caller can start reading it while the walk goes on; the result's order is
 * the tree's.
 */
export function scanDirectory(fs: SkillsFileSystem, root: string, onSkill?: (found: FoundSkill) => void): Promise<ScanResult> {
  return scanDirectories(fs, [root], onSkill);
}

/**
 * Find the skills under several configured directories, each real folder
 * once: a folder reachable from two of them belongs to the first listed.
 */
export async function scanDirectories(fs: SkillsFileSystem, roots: readonly string[], onSkill?: (found: FoundSkill) => void): Promise<ScanResult> {
  const walker = new Walker(fs, onSkill);
  const starts = await Promise.all(
    roots.map(async (root): Promise<Start> => {
      let realRoot: string;
      try {
        realRoot = await fs.realpath(root);
      } catch (error) {
        return { root, error };
      }
      await walker.visit(root, realRoot);
      return { root, realRoot };
    }),
  );
  const { skills, notes } = inTreeOrder(walker.folders, starts);
  return { skills, diagnostics: await explainLinkLoops(fs, notes) };
}

// ---------------------------------------------------------------------------
// Pass 1: list each real folder once

/** Where a folder entry leads, as far as the walk could tell. */
type Outcome =
  | { kind: 'folder'; realPath: string }
  /** A link to the folder holding it, or to one above: it would contain itself. */
  | { kind: 'loop'; target: string }
  | { kind: 'broken' }
  /** Too many levels of links (ELOOP): a cycle or a long chain, told apart later. */
  | { kind: 'eloop' }
  | { kind: 'failed'; error: unknown };

type Child = Outcome & { name: string };

type Folder =
  | { kind: 'pending' }
  | { kind: 'failed'; error: unknown }
  /** `children`: folders and links in name order; undefined where a link leads to a file. */
  | { kind: 'listed'; skillFile: SkillFileType | undefined; misnamed: string | undefined; children: Array<Child | undefined> };

class Walker {
  /** By real path: each is listed once, through the first path that reached it. */
  readonly folders = new Map<string, { state: Folder }>();

  constructor(
    private readonly fs: SkillsFileSystem,
    private readonly onSkill: ((found: FoundSkill) => void) | undefined,
  ) {}

  /** List the folder at `path` unless its real folder was already reached. */
  visit(path: string, realPath: string): Promise<void> | undefined {
    if (this.folders.has(realPath)) return undefined;
    const folder = { state: { kind: 'pending' } as Folder };
    this.folders.set(realPath, folder);
    return this.list(path, realPath, folder);
  }

  private async list(path: string, realPath: string, folder: { state: Folder }): Promise<void> {
    let entries: DirEntry[];
    try {
      entries = await this.fs.readdir(path, { withFileTypes: true });
    } catch (error) {
      folder.state = { kind: 'failed', error };
      return;
    }
    const skillFile = skillFileType(entries);
    if (skillFile) this.onSkill?.({ directory: path, realDirectory: realPath, file: childPath(path, SKILL_FILE), fileType: skillFile });
    // Only folders and links can lead further; files (most entries) cost nothing more. Folders are
    // walked at once; a link needs its real path first.
    const candidates = entries
      .filter((entry) => (entry.isDirectory() || entry.isSymbolicLink()) && !isSkippedName(entry.name))
      .sort((a, b) => compareNames(a.name, b.name));
    const children: Array<Child | undefined> = new Array<Child | undefined>(candidates.length);
    folder.state = { kind: 'listed', skillFile, misnamed: skillFile ? undefined : misnamedSkillFile(entries), children };
    const work: Array<Promise<void> | undefined> = candidates.map((entry, i) => {
      const name = entry.name;
      if (entry.isDirectory()) {
        const child = childPath(realPath, name);
        children[i] = { name, kind: 'folder', realPath: child };
        return this.visit(childPath(path, name), child);
      }
      return this.follow(childPath(path, name), realPath).then((outcome) => {
        if (!outcome) return undefined;
        children[i] = { ...outcome, name };
        return outcome.kind === 'folder' ? this.visit(childPath(path, name), outcome.realPath) : undefined;
      });
    });
    await Promise.all(work);
  }

  /** Where the link at `path` (in the real folder `parent`) leads; undefined for a link to a file. */
  private async follow(path: string, parent: string): Promise<Outcome | undefined> {
    try {
      const realPath = await this.fs.realpath(path);
      // A link to the folder it sits in (or above) would contain itself.
      if (isSameOrInside(parent, realPath)) return { kind: 'loop', target: realPath };
      // A real path already reached is a folder: no need to ask (aliases cost one call each).
      if (!this.folders.has(realPath) && !(await this.fs.stat(realPath)).isDirectory()) return undefined;
      return { kind: 'folder', realPath };
    } catch (error) {
      const code = errorCode(error);
      if (code === 'ELOOP') return { kind: 'eloop' };
      // A dangling link may be a skill the user expects to see: say so instead of dropping it quietly.
      if (code === 'ENOENT') return { kind: 'broken' };
      return { kind: 'failed', error };
    }
  }
}

// ---------------------------------------------------------------------------
// Pass 2: tree order, each real folder at the first path reaching it

type Start = { root: string; realRoot: string } | { root: string; error: unknown };

/** An ELOOP link, explained (and grouped with others like it) once the walk is over. */
interface LinkLoop {
  eloop: string;
}

type Note = Diagnostic | LinkLoop;

interface Step {
  path: string;
  realPath: string;
  /** Whether a folder on the path to this one is a skill: a `skill.md` there is a resource, not a typo. */
  insideSkill: boolean;
}

function inTreeOrder(folders: ReadonlyMap<string, { state: Folder }>, starts: readonly Start[]): { skills: SkillLocation[]; notes: Note[] } {
  const skills: SkillLocation[] = [];
  const notes: Note[] = [];
  const seen = new Set<string>();
  for (const start of starts) {
    if ('error' in start) {
      notes.push(directoryProblem(start.root, start.error, true));
      continue;
    }
    // Depth-first with an explicit stack: the tree may be deeper than the call stack allows.
    const stack: Array<Step | Note> = [{ path: start.root, realPath: start.realRoot, insideSkill: false }];
    for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
      if (!('realPath' in item)) {
        notes.push(item);
        continue;
      }
      if (seen.has(item.realPath)) continue;
      seen.add(item.realPath);
      const state = folders.get(item.realPath)?.state;
      if (!state || state.kind === 'pending') continue;
      if (state.kind === 'failed') {
        notes.push(directoryProblem(item.path, state.error, item.path === start.root));
        continue;
      }
      if (state.skillFile) {
        skills.push({ root: start.root, directory: item.path, realDirectory: item.realPath, file: childPath(item.path, SKILL_FILE), fileType: state.skillFile });
      } else if (state.misnamed && !item.insideSkill) {
        notes.push(misnamed(childPath(item.path, state.misnamed)));
      }
      const insideSkill = item.insideSkill || state.skillFile !== undefined;
      // Pushed last to first, so they come off the stack in name order.
      for (let i = state.children.length - 1; i >= 0; i--) {
        const child = state.children[i];
        if (child) stack.push(childStep(child, childPath(item.path, child.name), insideSkill));
      }
    }
  }
  return { skills, notes };
}

function childStep(child: Child, path: string, insideSkill: boolean): Step | Note {
  switch (child.kind) {
    case 'folder':
      return { path, realPath: child.realPath, insideSkill };
    case 'loop':
      return symlinkLoop(path, `it points back to ${child.target}, which contains it`);
    case 'broken':
      return brokenLink(path);
    case 'eloop':
      return { eloop: path };
    case 'failed':
      return directoryProblem(path, child.error, false);
  }
}

// ---------------------------------------------------------------------------
// Links the system would not follow (ELOOP): a cycle, or a chain too long

type Trace = { kind: 'cycle'; members: string[] } | { kind: 'chain'; end: string } | { kind: 'unknown' };

/**
 * Replace each ELOOP note with a warning that says what it is: links leading
 * into the same cycle, or down the same over-long chain, are one warning (a
 * chain of 200 links is one problem, not 160). Sequential, in tree order, so
 * the grouping never depends on timing; each link is read once.
 */
async function explainLinkLoops(fs: SkillsFileSystem, notes: readonly Note[]): Promise<Diagnostic[]> {
  const traced = new Map<string, Trace>();
  const groups = new Map<string, { first: number; paths: string[]; trace: Trace }>();
  const out: Array<Diagnostic | undefined> = [];
  for (const note of notes) {
    if (!('eloop' in note)) {
      out.push(note);
      continue;
    }
    const trace = await traceLinks(fs, note.eloop, traced);
    const key = trace.kind === 'cycle' ? `cycle\0${trace.members[0]}` : trace.kind === 'chain' ? `chain\0${trace.end}` : `path\0${note.eloop}`;
    const group = groups.get(key);
    if (group) group.paths.push(note.eloop);
    else groups.set(key, { first: out.length, paths: [note.eloop], trace });
    out.push(undefined);
  }
  for (const { first, paths, trace } of groups.values()) out[first] = loopWarning(paths, trace);
  return out.filter((d): d is Diagnostic => d !== undefined);
}

/** Follow the link at `start` by hand (readlink), remembering every link passed in `traced`. */
async function traceLinks(fs: SkillsFileSystem, start: string, traced: Map<string, Trace>): Promise<Trace> {
  const readlink = fs.readlink?.bind(fs);
  if (!readlink) return { kind: 'unknown' };
  const passed: string[] = [];
  const index = new Map<string, number>();
  let trace: Trace = { kind: 'unknown' };
  for (let path = start; passed.length <= MAX_TRACED_LINKS; ) {
    const known = traced.get(path);
    if (known) {
      trace = known;
      break;
    }
    const at = index.get(path);
    if (at !== undefined) {
      // Named from its smallest member, so every way into the cycle gives the same key.
      const cycle = passed.slice(at);
      const smallest = cycle.indexOf([...cycle].sort(compareNames)[0] ?? path);
      trace = { kind: 'cycle', members: [...cycle.slice(smallest), ...cycle.slice(0, smallest)] };
      break;
    }
    let target: string;
    try {
      target = await readlink(path);
    } catch {
      // Not a link (or gone): the chain ends here. The start itself must be one, or nothing is known.
      if (passed.length > 0) trace = { kind: 'chain', end: path };
      break;
    }
    index.set(path, passed.length);
    passed.push(path);
    path = resolve(dirname(path), target);
  }
  for (const path of passed) traced.set(path, trace);
  return trace;
}

function loopWarning(paths: readonly string[], trace: Trace): Diagnostic {
  const [first = ''] = paths;
  const more = paths.length - 1;
  const subject =
    more === 0
      ? 'symbolic link skipped'
      : `${paths.length} symbolic links skipped (${paths.slice(0, QUOTED_LINKS).join(', ')}${paths.length > QUOTED_LINKS ? ', ...' : ''})`;
  const they = more === 0 ? 'it leads' : 'they lead';
  if (trace.kind === 'chain') {
    return {
      code: 'SYMLINK_CHAIN_TOO_LONG',
      severity: 'warning',
      file: first,
      line: 0,
      column: 0,
      message: `${subject}: ${they} to ${trace.end} through more symbolic links in a row than the system follows (40 on Linux). Point ${more === 0 ? 'it' : 'them'} straight at ${trace.end}.`,
    };
  }
  const what =
    trace.kind === 'cycle'
      ? `${they} into a cycle of symbolic links (${[...trace.members, trace.members[0]].join(' -> ')}). Remove or repoint one link of the cycle.`
      : 'too many levels of symbolic links (a cycle of symbolic links, or a chain longer than the system follows). Point the link straight at a folder, or remove it.';
  return { code: 'SYMLINK_LOOP', severity: 'warning', file: first, line: 0, column: 0, message: `${subject}: ${what}` };
}

// ---------------------------------------------------------------------------
// Diagnostics

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

function misnamed(path: string): Diagnostic {
  return {
    code: 'SKILL_FILE_CASE',
    severity: 'warning',
    file: path,
    line: 0,
    column: 0,
    message: `not loaded as a skill: the file must be named ${SKILL_FILE}, in exactly those capitals. Rename it to ${SKILL_FILE}.`,
  };
}

/** A folder that could not be listed: a configured directory missing, a folder gone mid-scan, or unreadable. */
function directoryProblem(path: string, error: unknown, configured: boolean): Diagnostic {
  const base = { severity: 'warning', file: path, line: 0, column: 0 } as const;
  if (errorCode(error) === 'ENOENT') {
    return configured
      ? { ...base, code: 'DIRECTORY_NOT_FOUND', message: 'skills directory does not exist. Create it, or remove it from `directories`.' }
      : {
          ...base,
          code: 'DIRECTORY_VANISHED',
          message: 'folder disappeared while it was being scanned (deleted or moved), so skills inside it were not loaded. They load on the next scan if it is back.',
        };
  }
  return {
    ...base,
    code: 'DIRECTORY_UNREADABLE',
    message: `cannot read directory: ${errorReason(error)}. Check that it is a folder this process may read.`,
  };
}

// ---------------------------------------------------------------------------
// Concurrency and memoization

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
  const limited: SkillsFileSystem = {
    readdir: (path, options) => run(() => fs.readdir(path, options)),
    readFile: (path, encoding) => run(() => fs.readFile(path, encoding)),
    stat: (path) => run(() => fs.stat(path)),
    lstat: (path) => run(() => fs.lstat(path)),
    realpath: (path) => run(() => fs.realpath(path)),
    open: (path, flags) => run(() => fs.open(path, flags)),
  };
  const readlink = fs.readlink?.bind(fs);
  if (readlink) limited.readlink = (path) => run(() => readlink(path));
  return limited;
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

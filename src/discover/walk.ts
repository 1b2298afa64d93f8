/**
 * Pass 1 of a scan: list each real folder once, however many paths (symbolic
 * links, overlapping directories) lead to it, so link structures that fan out
 * cost what the folders they reach cost, never the number of paths.
 */
import type { DirEntry, SkillsFileSystem } from '../base/fs.js';
import { errorCode } from '../base/fs.js';
import { childPath, isSameOrInside } from '../base/paths.js';
import { isSkippedName, SKILL_FILE } from '../base/skill-file.js';
import { compareNames } from '../base/text.js';

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

/** Where a folder entry leads, as far as the walk could tell. */
export type Outcome =
  | { kind: 'folder'; realPath: string }
  /** A link to the folder holding it, or to one above: it would contain itself. */
  | { kind: 'loop'; target: string }
  | { kind: 'broken' }
  /** Too many levels of links (ELOOP): a cycle or a long chain, told apart later. */
  | { kind: 'eloop' }
  | { kind: 'failed'; error: unknown };

export type Child = Outcome & { name: string };

/** What listing one real folder gave. */
export type FolderListing =
  | { kind: 'pending' }
  | { kind: 'failed'; error: unknown }
  /** `children`: folders and links in name order; undefined where a link leads to a file. */
  | { kind: 'listed'; skillFile: SkillFileType | undefined; misnamed: string | undefined; children: Array<Child | undefined> };

/**
 * A skill's resource folders, as agentskills.io names them: they hold the
 * skill's own files, and no skill is looked for inside them (a SKILL.md
 * there is one of the enclosing skill's resources). Real skills keep most of
 * their files in them: on libraries built from the shared corpus, listing
 * them was about a third of the folders a first request read, and none holds
 * a skill. Skills in a skill's other subfolders are still found.
 */
export const RESOURCE_FOLDERS: ReadonlySet<string> = new Set(['scripts', 'references', 'assets']);

/** The type of the folder's SKILL.md, or undefined when it has none. */
function skillFileType(entries: readonly DirEntry[]): SkillFileType | undefined {
  const entry = entries.find((e) => e.name === SKILL_FILE && !e.isDirectory());
  if (!entry) return undefined;
  return entry.isFile() ? 'file' : entry.isSymbolicLink() ? 'link' : 'other';
}

/** A `skill.md`, `Skill.MD` ... beside no SKILL.md: almost certainly meant to be one. */
function misnamedSkillFile(entries: readonly DirEntry[]): string | undefined {
  const lower = SKILL_FILE.toLowerCase();
  return entries.find(
    (e) => e.name.length === SKILL_FILE.length && e.name !== SKILL_FILE && e.name.toLowerCase() === lower && !e.isDirectory(),
  )?.name;
}

export class Walker {
  /** By real path: each is listed once, through the first path that reached it. */
  readonly folders = new Map<string, { state: FolderListing }>();

  constructor(
    private readonly fs: SkillsFileSystem,
    private readonly onSkill: ((found: FoundSkill) => void) | undefined,
  ) {}

  /** List the folder at `path` unless its real folder was already reached. */
  visit(path: string, realPath: string): Promise<void> | undefined {
    if (this.folders.has(realPath)) return undefined;
    const folder = { state: { kind: 'pending' } as FolderListing };
    this.folders.set(realPath, folder);
    return this.list(path, realPath, folder);
  }

  private async list(path: string, realPath: string, folder: { state: FolderListing }): Promise<void> {
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
    // walked at once; a link needs its real path first. A skill's resource folders hold no skills.
    const candidates = entries
      .filter(
        (entry) =>
          (entry.isDirectory() || entry.isSymbolicLink()) && !isSkippedName(entry.name) && !(skillFile && RESOURCE_FOLDERS.has(entry.name)),
      )
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

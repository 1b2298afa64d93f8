/**
 * The shape of what is watched: one Folder per real folder, reached by one
 * path; other paths to it (a second link, a link back up) are aliases, kept
 * so the folder can be reached through one of them when its owner goes. Pure
 * bookkeeping: no fs, no watches, no timers. What a removed folder held is
 * released through the hooks.
 */
import { basename } from 'node:path';
import { childPath, isSameOrInside } from '../base/paths.js';
import type { FolderWatchHandle } from '../base/fs.js';
import type { FolderTrouble } from './problem.js';

export class Root {
  /** The configured directory's real path, once known: which roots a folder belongs to. */
  realPath: string | undefined;
  folder: Folder | undefined;
  /** Why the directory itself cannot be watched, while it cannot (the code it was reported with). */
  trouble: { kind: 'missing' | FolderTrouble; code: string } | undefined;

  constructor(readonly path: string) {}
}

/** One way to reach a real folder: a configured directory, or an entry of a folder. */
export interface Reach {
  root: Root;
  parent: Folder | undefined;
  name: string;
  path: string;
  realPath: string;
  link: boolean;
}

/** The configured directory itself. */
export function rootReach(root: Root, realPath: string): Reach {
  return { root, parent: undefined, name: basename(root.path), path: root.path, realPath, link: false };
}

/** Entry `name` of `parent`: a sub-folder (its real path under the parent's) or a link (the real path it leads to). */
export function entryReach(parent: Folder, name: string, link: { realPath: string } | undefined): Reach {
  const realPath = link?.realPath ?? childPath(parent.realPath, name);
  return { root: parent.root, parent, name, path: childPath(parent.path, name), realPath, link: link !== undefined };
}

export class Folder {
  readonly root: Root;
  readonly parent: Folder | undefined;
  readonly name: string;
  readonly path: string;
  readonly realPath: string;
  readonly link: boolean;
  /** Sub-folders this folder owns, by entry name; made on first use (most folders are leaves). */
  children: Map<string, Folder> | undefined;
  /** Entries that reach a folder owned elsewhere (a second link to it, a link back up). */
  aliases: Map<string, Reach> | undefined;
  /** The running watch; undefined while there is none. */
  watch: FolderWatchHandle | undefined;
  trouble: { kind: FolderTrouble; code: string } | undefined;
  removed = false;
  /** Queued or being visited (visits are serial per folder), and what the next visit must look at. */
  queued = false;
  pending: Set<string> | 'all' | undefined;
  /** Report a change once the next visit has put a watch on it (a change may have been missed meanwhile). */
  resync = false;

  constructor(reach: Reach) {
    this.root = reach.root;
    this.parent = reach.parent;
    this.name = reach.name;
    this.path = reach.path;
    this.realPath = reach.realPath;
    this.link = reach.link;
  }

  /** What this folder holds under entry `name`: a sub-folder or an alias. */
  entry(name: string): Folder | Reach | undefined {
    return this.children?.get(name) ?? this.aliases?.get(name);
  }

  /** The names of every entry this folder holds. */
  entryNames(): string[] {
    return [...(this.children?.keys() ?? []), ...(this.aliases?.keys() ?? [])];
  }
}

export interface TreeHooks {
  /** `folder` left the tree (it, or a folder above it, was removed): release what it holds. */
  dropped(folder: Folder): void;
  /** A second path to a folder whose owner left: walk it as the folder now. */
  orphaned(reach: Reach): void;
}

export class FolderTree {
  readonly roots: readonly Root[];
  private readonly owners = new Map<string, Folder>();
  private readonly aliases = new Set<Reach>();

  constructor(
    directories: readonly string[],
    private readonly hooks: TreeHooks,
  ) {
    this.roots = directories.map((path) => new Root(path));
  }

  /** Every folder in the tree. */
  folders(): IterableIterator<Folder> {
    return this.owners.values();
  }

  /**
   * Add what `reach` leads to: a new Folder to walk, or undefined when it is a
   * second path to a folder already held, or a link back up (an alias: nothing to walk).
   */
  add(reach: Reach): Folder | undefined {
    if (this.owners.has(reach.realPath) || (reach.parent !== undefined && isSameOrInside(reach.parent.realPath, reach.realPath))) {
      this.aliases.add(reach);
      if (reach.parent) (reach.parent.aliases ??= new Map()).set(reach.name, reach);
      return undefined;
    }
    const folder = new Folder(reach);
    this.owners.set(folder.realPath, folder);
    if (reach.parent) (reach.parent.children ??= new Map()).set(reach.name, folder);
    else reach.root.folder = folder;
    return folder;
  }

  /** Drop whatever `folder` holds under `name`; true when that was a sub-folder (with its subtree). */
  forget(folder: Folder, name: string): boolean {
    const child = folder.children?.get(name);
    if (child) this.remove(child);
    const alias = folder.aliases?.get(name);
    if (alias) {
      folder.aliases?.delete(name);
      this.aliases.delete(alias);
    }
    return child !== undefined;
  }

  /** Take `folder` and everything under it out of the tree. */
  remove(folder: Folder): void {
    const stack = [folder];
    for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
      next.removed = true;
      this.hooks.dropped(next);
      if (this.owners.get(next.realPath) === next) this.owners.delete(next.realPath);
      for (const alias of next.aliases?.values() ?? []) this.aliases.delete(alias);
      if (next.children) stack.push(...next.children.values());
    }
    if (folder.parent?.children?.get(folder.name) === folder) folder.parent.children.delete(folder.name);
    if (folder.root.folder === folder) folder.root.folder = undefined;
    // A folder reached by more than one path is walked again through one still there.
    for (const alias of [...this.aliases]) {
      if (this.owners.has(alias.realPath)) continue;
      this.aliases.delete(alias);
      alias.parent?.aliases?.delete(alias.name);
      if (!alias.parent?.removed) this.hooks.orphaned(alias);
    }
  }

  /** The configured directories `folder` lies in: its own root first, then any other that holds it (overlapping directories). */
  rootsOf(folder: Folder): string[] {
    const roots = [folder.root.path];
    for (const root of this.roots) {
      if (root !== folder.root && root.realPath !== undefined && isSameOrInside(folder.realPath, root.realPath)) roots.push(root.path);
    }
    return roots;
  }
}

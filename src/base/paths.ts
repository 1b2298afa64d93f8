/** Path containment and joining for absolute, already resolved paths. */
import { sep } from 'node:path';

/** Whether `inner` is `outer` or lies inside it (real paths). */
export function isSameOrInside(inner: string, outer: string): boolean {
  return inner === outer || inner.startsWith(outer.endsWith(sep) ? outer : outer + sep);
}

/**
 * `name` inside `folder`. Plain concatenation, not path.join: both parts are
 * already normal (absolute resolved paths and names from readdir), and a walk
 * builds one per entry.
 */
export function childPath(folder: string, name: string): string {
  return folder.endsWith(sep) ? folder + name : folder + sep + name;
}

/**
 * A set of folders that tells whether a path is one of them or lies inside
 * one by looking up the path's own ancestors (each prefix that ends at a
 * separator): the work per path grows with its depth, not with the number of
 * folders (an app may configure hundreds). `lookups` counts the set lookups.
 * Same answer as `folders.some((f) => isSameOrInside(path, f))`.
 */
export class FolderSet {
  /** Each folder with a trailing separator. */
  private readonly folders: ReadonlySet<string>;
  lookups = 0;

  constructor(folders: readonly string[]) {
    this.folders = new Set(folders.map((folder) => (folder.endsWith(sep) ? folder : folder + sep)));
  }

  /** The folder (with its separator) the last path was found in: skills in one folder come one after another. */
  private last = '';

  holds(path: string): boolean {
    if (this.last !== '' && path.startsWith(this.last) && path.length > this.last.length) return true;
    this.lookups++;
    if (this.folders.has(path + sep)) {
      this.last = path + sep;
      return true;
    }
    for (let at = path.lastIndexOf(sep); at !== -1; at = at === 0 ? -1 : path.lastIndexOf(sep, at - 1)) {
      this.lookups++;
      const folder = path.slice(0, at + 1);
      if (this.folders.has(folder)) {
        this.last = folder;
        return true;
      }
    }
    return false;
  }
}

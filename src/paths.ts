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

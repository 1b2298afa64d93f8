/**
 * Flat strings: copies that hold only their own characters. A string sliced
 * from a file keeps the whole file alive, and a string built by
 * concatenation keeps its pieces; the skill index lives for the whole
 * process, so at 20,000 skills every byte kept per skill is 20 KB. These
 * tricks depend on how V8 stores strings and objects, so they are kept here,
 * behind plain functions, and the rest of the code reads as ordinary data
 * handling (sorted name lookups: name-lookup.ts; the ranker's packed
 * postings: src/catalog/rank/postings.ts).
 *
 * Each trick names the figure that justifies it: the bench row "memory N:
 * middleware index heap" (bench/memory.mjs, workload seed 1, `npm run
 * bench`), before and after, with the commit that measured it. Nothing here
 * changes a value: every function gives back data equal to what it was
 * given, only stored more compactly. Pure; never throws on plain data.
 */

/**
 * A deep copy of parsed frontmatter with every string stored on its own: the
 * parser's strings are slices of the file text, and a slice keeps its whole
 * source alive.
 *
 * Bench: flat copies at all, 5,000 skills 12.2 -> 9.5 MB (a40a5f8). Through
 * JSON where JSON carries every value exactly: JSON.parse builds flat strings
 * and objects sized to their keys, 20,000 skills 35.49 -> 30.58 MB (dc8141b),
 * for some milliseconds more per 2,000 skills. Other values (NaN, ±Infinity,
 * -0, undefined) are copied value by value.
 */
export function compactCopy(value: unknown): unknown {
  if (jsonExact(value)) return JSON.parse(JSON.stringify(value)) as unknown;
  return copyEach(value);
}

/**
 * compactCopy of each of `values`, in one JSON round trip for all those JSON
 * carries exactly (the others are copied value by value).
 *
 * Bench: the index's metadata in one round trip instead of one per skill:
 * building the index in a fresh process, 2,000 real-shaped skills, 26 -> 22
 * ms (medians of 21 interleaved runs); the copies are the same values.
 */
export function compactCopies(values: readonly unknown[]): unknown[] {
  const copies = new Array<unknown>(values.length);
  const exact: unknown[] = [];
  const positions: number[] = [];
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (jsonExact(value)) {
      exact.push(value);
      positions.push(i);
    } else {
      copies[i] = copyEach(value);
    }
  }
  const parsed = JSON.parse(JSON.stringify(exact)) as unknown[];
  for (let j = 0; j < positions.length; j++) copies[positions[j] as number] = parsed[j];
  return copies;
}

/**
 * `strings`, each as one flat string, in one JSON pass for all.
 *
 * Bench: folder paths come from joins (pieces, some shared) that cost about
 * twice a flat copy; with SKILL.md paths sharing their folder's characters,
 * 20,000 skills 25.0 -> 22.7 MB (eb11388). Folder paths now: sharingParents.
 */
export function flatStrings(strings: readonly string[]): string[] {
  return JSON.parse(JSON.stringify(strings)) as string[];
}

/**
 * `paths`, each stored as two pieces: its parent folder (up to and with the
 * last `separator`), one copy shared by every path in that folder, and the
 * last segment, a flat copy of its own. The values are equal to `paths`.
 * Skill folders sit side by side in a few parent folders, so the parents'
 * characters are stored once each instead of once a skill. A piece is read
 * as a whole only when something reads the path's characters (an
 * activation, say): V8 then copies that one path flat.
 *
 * Bench: the index's folder paths at 20,000 real-shaped skills (3,101
 * parent folders, 84 characters a path on average), flat copies 1.95 MB,
 * pairs 1.37 MB; bench/memory.mjs first-request at 20,000 skills, heap kept
 * 17.35-17.43 -> 17.02-17.04 MB (two runs each, builds alternated).
 */
export function sharingParents(paths: readonly string[], separator: string): string[] {
  const cuts = paths.map((path) => path.lastIndexOf(separator) + 1);
  // Every piece flat, in one JSON pass: a slice would keep its whole path alive.
  const pieces = flatStrings(paths.flatMap((path, i) => [path.slice(0, cuts[i]), path.slice(cuts[i])]));
  const parents = new Map<string, string>();
  return paths.map((_, i) => {
    const piece = pieces[2 * i] as string;
    let parent = parents.get(piece);
    if (parent === undefined) {
      parent = piece;
      parents.set(piece, piece);
    }
    return parent + (pieces[2 * i + 1] as string);
  });
}

/** Whether a JSON round trip gives back a deep-equal value (no NaN, ±Infinity, -0 or undefined). */
function jsonExact(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value) && !Object.is(value, -0);
    case 'object':
      if (value === null) return true;
      if (Array.isArray(value)) return value.every(jsonExact);
      if (Object.getPrototypeOf(value) !== Object.prototype) return false;
      for (const key in value) {
        if (!jsonExact((value as Record<string, unknown>)[key])) return false;
      }
      return true;
    default:
      return false;
  }
}

function copyEach(value: unknown): unknown {
  if (typeof value === 'string') return flatString(value);
  if (Array.isArray(value)) return value.map(copyEach);
  if (typeof value === 'object' && value !== null) {
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (key === '__proto__') {
        // Assignment would set the prototype; keep it an ordinary property, as the parser made it.
        Object.defineProperty(copy, key, { value: copyEach(item), enumerable: true, writable: true, configurable: true });
      } else {
        // Plain assignment keeps the object in V8's compact (shared-shape) form.
        copy[flatString(key)] = copyEach(item);
      }
    }
    return copy;
  }
  return value;
}

function flatString(text: string): string {
  // Slicing a concatenation makes V8 copy it into one new string; V8 copies
  // strings under 13 characters anyway.
  return text.length < 13 ? text : ` ${text}`.slice(1);
}

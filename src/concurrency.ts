/**
 * Bounding and sharing filesystem calls during one discovery (or a run of
 * activations): a limiter, and wrappers that put a `SkillsFileSystem` behind
 * it or list each folder once.
 */
import type { DirEntry, SkillsFileSystem } from './fs.js';

/** Most filesystem calls in flight at once, so 20,000 skills never hit EMFILE. */
export const MAX_CONCURRENT_FS_CALLS = 32;

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
 * Wrap a filesystem so each call goes through `run`: at most its limit are in
 * flight, the rest wait in order. Only single calls hold a slot, so recursive
 * walks cannot deadlock.
 */
export function limitConcurrency(fs: SkillsFileSystem, run: Limiter): SkillsFileSystem {
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

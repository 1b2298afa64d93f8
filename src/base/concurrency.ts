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

/**
 * First in, first out, constant work per push and take: a head index into an
 * array instead of `Array.shift`, which moves every waiting item on each take
 * (at 20,000 queued reads, more CPU than the reads themselves). Taken slots
 * are dropped in one copy once they are half the array, so each item is
 * moved at most once on average; `moves` counts those copies.
 */
export class WaitQueue<T> {
  private items: Array<T | undefined> = [];
  private head = 0;
  /** Items copied to a new position so far (compaction): never more than the items taken. */
  moves = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  /** The oldest item, removed; undefined when empty. */
  take(): T | undefined {
    if (this.head === this.items.length) return undefined;
    const item = this.items[this.head];
    // Cleared so a taken item is not kept alive by the array.
    this.items[this.head++] = undefined;
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    } else if (this.head >= COMPACT_AFTER && this.head * 2 >= this.items.length) {
      this.moves += this.items.length - this.head;
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }
}

/** Taken slots kept before a compaction is considered: small queues never copy. */
const COMPACT_AFTER = 1024;

/** `queue` is where callers wait (a test passes its own to count the work). */
export function createLimiter(max: number, queue: WaitQueue<() => void> = new WaitQueue()): Limiter {
  let active = 0;
  return async function run<T>(call: () => Promise<T>): Promise<T> {
    if (active < max) active++;
    else await new Promise<void>((resolve) => queue.push(resolve));
    try {
      return await call();
    } finally {
      // Hand the slot straight to the next caller, or free it.
      const next = queue.take();
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

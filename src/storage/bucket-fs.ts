/**
 * A `SkillsFileSystem` over buckets: readdir, stat and realpath are answered
 * from each place's last listing (no request); SKILL.md heads are read with
 * ranged GETs, whole objects with one GET, both kept by ETag so a rescan
 * after a refresh reads only what changed. Paths are `s3://bucket/key` or
 * `az://container/key`: each goes to its engine through the storage edge.
 */
import { MAX_TEXT_FILE_BYTES, type DirEntry, type FileHandle, type FileStats, type SkillsFileSystem } from '../base/fs.js';
import type { Listing } from './bucket-listing.js';
import { ObjectCache } from './object-cache.js';
import type { ObjectStores } from './engines.js';
import type { GotObject, ObjectInfo } from './object-store.js';
import { StorageCodes, StorageError } from './storage-error.js';

/** Attempts at a GET whose body was cut off (the SDK retries failed requests, not bodies cut after the headers). */
const BODY_ATTEMPTS = 3;

function fileError(code: string, reason: string): StorageError {
  return new StorageError(code, reason);
}

function statsOf(kind: 'file' | 'folder', size = 0, mtimeMs = 0): FileStats {
  return { size, mtimeMs, isFile: () => kind === 'file', isDirectory: () => kind === 'folder', isSymbolicLink: () => false };
}

export interface BucketFileSystemSettings {
  stores: ObjectStores;
  /** The listing whose place holds `path`, if any. */
  listingOf(path: string): Listing | undefined;
  /**
   * A listing made now for `path` when none holds it (a skill folder a
   * published index names), if one can be: readdir, stat and open ask it;
   * reads do not (a GET needs no listing).
   */
  listOnDemand?(path: string): Promise<Listing | undefined>;
  /** Told when an object turned out to have changed since its listing: the store lists again soon. */
  onStale(path: string): void;
  /** Largest object read whole, in bytes. */
  maxObjectBytes?: number;
}

export class BucketFileSystem implements Pick<
  SkillsFileSystem,
  'readdir' | 'readFile' | 'stat' | 'lstat' | 'realpath' | 'open' | 'readUntil'
> {
  readonly cache = new ObjectCache();
  private readonly maxObjectBytes: number;

  constructor(private readonly settings: BucketFileSystemSettings) {
    this.maxObjectBytes = settings.maxObjectBytes ?? MAX_TEXT_FILE_BYTES;
  }

  async readdir(path: string): Promise<DirEntry[]> {
    const folder = (await this.listing(path)).folders.get(trimmed(path));
    if (!folder) throw this.missing(path);
    return [...folder].map(([name, kind]) => ({ name, ...statsOf(kind) }));
  }

  async stat(path: string): Promise<FileStats> {
    const listing = await this.listingAt(path);
    // An object no listing covers: asked for.
    if (!listing) {
      const { store, container, key } = this.settings.stores.locate(path);
      const info = await store.stat(container, key);
      return statsOf('file', info.size, info.modifiedMs);
    }
    const file = listing.files.get(path);
    if (file) return statsOf('file', file.size, file.modifiedMs);
    if (listing.folders.has(trimmed(path))) return statsOf('folder');
    throw this.missing(path);
  }

  async lstat(path: string): Promise<FileStats> {
    return this.stat(path);
  }

  /** Objects have no links: a path is its own real path, once it is known to exist. */
  async realpath(path: string): Promise<string> {
    await this.stat(path);
    return trimmed(path);
  }

  async readFile(path: string): Promise<string> {
    return decode((await this.whole(path)).bytes);
  }

  /** The start of the object, read with ranged GETs `firstChunk` bytes, then four times more each, until `end` says where to stop. */
  async readUntil(path: string, end: (bytes: Uint8Array, length: number) => number, firstChunk: number): Promise<string> {
    const info = this.info(path);
    const kept = info && (this.cache.head(path, info.etag) ?? this.cache.body(path, info.etag));
    if (kept) return decode(kept);
    let bytes: Uint8Array = new Uint8Array(0);
    let size = Math.max(1, firstChunk);
    for (;;) {
      const got = await this.fetch(path, info, [bytes.length, bytes.length + size - 1]);
      bytes = concat(bytes, got.bytes);
      const whole = bytes.length >= got.size;
      const stop = end(bytes, bytes.length);
      if (stop >= 0 || whole) {
        if (whole) this.cache.setBody(path, got.etag, bytes);
        const head = stop >= 0 ? bytes.subarray(0, stop) : bytes;
        if (!whole) this.cache.setHead(path, got.etag, head.slice());
        return decode(head);
      }
      if (bytes.length >= this.maxObjectBytes) throw this.tooLarge(path);
      size *= 4;
    }
  }

  async open(path: string): Promise<FileHandle> {
    const info = (await this.listingAt(path))?.files.get(path);
    if (!info) throw this.missing(path);
    let loaded: Promise<Uint8Array> | undefined;
    // One GET, on the first read, of at most the listed size and one byte more (which shows an object that grew).
    const load = (): Promise<Uint8Array> => (loaded ??= this.fetch(path, info, [0, info.size]).then((got) => got.bytes));
    return {
      read: async (buffer, offset, length, position) => {
        const bytes = await load();
        const chunk = bytes.subarray(position, position + length);
        buffer.set(chunk, offset);
        return { bytesRead: chunk.length };
      },
      close: () => Promise.resolve(),
      stat: () => Promise.resolve(statsOf('file', info.size, info.modifiedMs)),
    };
  }

  /**
   * The whole object and its ETag (a local copy is named from it), from the
   * cache while its ETag is the listed one. Not kept in the cache: it is on
   * the disk once copied.
   */
  readObject(path: string): Promise<{ bytes: Uint8Array; etag: string }> {
    return this.whole(path, false);
  }

  /** The object's size and ETag: from the listing that holds it (one made now for a published index's skill folder), else asked for. */
  async objectInfo(path: string): Promise<ObjectInfo> {
    const listed = (await this.listingAt(path))?.files.get(path);
    if (listed) return listed;
    const { store, container, key } = this.settings.stores.locate(path);
    return store.stat(container, key);
  }

  /** The whole object, from the cache while its ETag is the listed one. */
  private async whole(path: string, keep = true): Promise<{ bytes: Uint8Array; etag: string }> {
    const info = this.info(path);
    if (info && info.size > this.maxObjectBytes) throw this.tooLarge(path);
    const kept = info && this.cache.body(path, info.etag);
    if (kept) return { bytes: kept, etag: info.etag };
    const got = await this.fetch(path, info);
    if (got.bytes.length > this.maxObjectBytes) throw this.tooLarge(path);
    if (keep) this.cache.setBody(path, got.etag, got.bytes);
    return got;
  }

  /**
   * A read of `path` (a range of it), tried again when its body is cut off.
   * An ETag other than the listed one means the object changed since the
   * listing: the newer bytes are used, and the store is told to list again.
   */
  private async fetch(path: string, info: ObjectInfo | undefined, range?: [number, number]): Promise<GotObject> {
    const { store, container, key } = this.settings.stores.locate(path);
    for (let attempt = 1; ; attempt++) {
      try {
        const got = range ? await store.readRange(container, key, range) : await store.read(container, key);
        if (info && got.etag !== info.etag) this.settings.onStale(path);
        return got;
      } catch (error) {
        if (!(error instanceof StorageError && error.code === StorageCodes.truncated) || attempt >= BODY_ATTEMPTS) throw error;
      }
    }
  }

  private info(path: string): ObjectInfo | undefined {
    return this.settings.listingOf(path)?.files.get(path);
  }

  /** The listing that holds `path`: a place's, or one made now for its skill folder. */
  private async listingAt(path: string): Promise<Listing | undefined> {
    return this.settings.listingOf(path) ?? (await this.settings.listOnDemand?.(path));
  }

  private async listing(path: string): Promise<Listing> {
    const listing = await this.listingAt(path);
    if (!listing) throw fileError(StorageCodes.unavailable, `${path} has not been listed yet`);
    return listing;
  }

  private missing(path: string): StorageError {
    return fileError('ENOENT', `${path} does not exist`);
  }

  private tooLarge(path: string): StorageError {
    return fileError('EFBIG', `${path} is larger than ${this.maxObjectBytes} bytes`);
  }
}

function trimmed(path: string): string {
  return path.endsWith('/') ? path.slice(0, -1) : path;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a);
  joined.set(b, a.length);
  return joined;
}

const decoder = new TextDecoder('utf-8');

function decode(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

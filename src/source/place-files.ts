/**
 * A place's files as bytes, for `sisu-skills sign` and `verify`, and where
 * a place named on the command line puts its manifest: a file on
 * disk (regular files only, opened without blocking, hashed as it is read so
 * a large asset never sits in memory whole) or an object in a bucket (one
 * read through the storage edge, from the SDK's environment as `index -o s3://`).
 * The middleware reads through its own file systems; this is the CLI's.
 */
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { errorCode, MAX_TEXT_FILE_BYTES } from '../base/fs.js';
import { MANIFEST_FILE } from '../base/skill-file.js';
import { ObjectStores } from '../storage/engines.js';
import { isObjectUrl, parseObjectUrl } from '../base/object-url.js';

/** A file's size and the hex SHA-256 of its bytes. */
export interface HashedFile {
  size: number;
  sha256: string;
}

/** A file or object over the size a reader takes: never read. */
export class TooLargeError extends Error {
  readonly code = 'EFBIG';
  constructor(
    readonly path: string,
    readonly size: number,
    readonly maxBytes: number,
  ) {
    super(`${path} is ${size} bytes, over the ${maxBytes} bytes read`);
    this.name = 'TooLargeError';
  }
}

/** Bytes read from disk at a time while hashing. */
const CHUNK_BYTES = 1024 * 1024;

export class PlaceFiles {
  /** The storage edge's stores, from the SDKs' environment; each engine is made on first use (a local-only run loads no SDK). */
  private readonly stores = new ObjectStores();

  /** Size and SHA-256 of the file or object at `path`. */
  async hash(path: string): Promise<HashedFile> {
    if (isObjectUrl(path)) {
      const bytes = await this.readObject(path);
      return { size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
    }
    return this.withRegularFile(path, async (handle) => {
      const hash = createHash('sha256');
      const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
      let size = 0;
      for (;;) {
        const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, null);
        if (bytesRead === 0) break;
        hash.update(buffer.subarray(0, bytesRead));
        size += bytesRead;
      }
      return { size, sha256: hash.digest('hex') };
    });
  }

  /**
   * The whole file or object at `path` (a SKILL.md, a manifest). Past `maxBytes` (default MAX_TEXT_FILE_BYTES)
   * nothing is read: it rejects with a TooLargeError. A bucket's object is asked for its size first only when
   * `maxBytes` is given (a SKILL.md's size was in the listing, which discovery checked).
   */
  async read(path: string, maxBytes?: number): Promise<Uint8Array> {
    if (isObjectUrl(path)) {
      if (maxBytes !== undefined) {
        const { store, container, key } = this.stores.locate(path);
        const { size } = await store.stat(container, key);
        if (size > maxBytes) throw new TooLargeError(path, size, maxBytes);
      }
      return this.readObject(path);
    }
    const limit = maxBytes ?? MAX_TEXT_FILE_BYTES;
    return this.withRegularFile(path, async (handle) => {
      const { size } = await handle.stat();
      if (size > limit) throw new TooLargeError(path, size, limit);
      return handle.readFile();
    });
  }

  /** `read`, or undefined when nothing is there (ENOENT). */
  async readIfThere(path: string, maxBytes?: number): Promise<Uint8Array | undefined> {
    try {
      return await this.read(path, maxBytes);
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return undefined;
      throw error;
    }
  }

  private async readObject(url: string): Promise<Uint8Array> {
    const { store, container, key } = this.stores.locate(url);
    return (await store.read(container, key)).bytes;
  }

  /** `work` on `path` opened without blocking, once it is known to be a regular file (a FIFO must not hang a signing job). */
  private async withRegularFile<T>(path: string, work: (handle: Awaited<ReturnType<typeof open>>) => Promise<T>): Promise<T> {
    const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      if (!(await handle.stat()).isFile()) throw Object.assign(new Error(`${path} is not a regular file`), { code: 'NOT_A_FILE' });
      return await work(handle);
    } finally {
      await handle.close();
    }
  }
}

/** Where a place named on the command line is, and where its manifest goes. */
export interface PlaceLocation {
  /** The absolute folder, or the bucket place's `s3://bucket/prefix` (no trailing slash). */
  root: string;
  /** `skills.manifest.json` at the root. */
  manifestPath: string;
  inBucket: boolean;
}

/** The location of `place` (relative paths start at `cwd`), or why an s3:// URL names no place. */
export function placeLocation(place: string, cwd: string): PlaceLocation | { problem: string } {
  if (isObjectUrl(place)) {
    const parsed = parseObjectUrl(place);
    if ('problem' in parsed) return parsed;
    return { root: parsed.root, manifestPath: `${parsed.root}/${MANIFEST_FILE}`, inBucket: true };
  }
  const root = resolve(cwd, place);
  return { root, manifestPath: join(root, MANIFEST_FILE), inBucket: false };
}

/** A skill folder's path relative to its place's root, `/`-separated; `.` for the root itself; undefined when outside it. */
export function pathInPlace(location: PlaceLocation, folder: string): string | undefined {
  if (location.inBucket) {
    const root = location.root.endsWith('/') ? location.root.slice(0, -1) : location.root;
    const inner = folder.endsWith('/') ? folder.slice(0, -1) : folder;
    if (inner === root) return '.';
    return inner.startsWith(`${root}/`) ? inner.slice(root.length + 1) : undefined;
  }
  const rel = relative(location.root, folder);
  if (rel === '') return '.';
  if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return undefined;
  return rel.split(sep).join('/');
}

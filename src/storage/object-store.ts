/**
 * The storage edge: the few requests the package makes of an object store,
 * whatever the engine (S3, Azure Blob...). Each engine is one file that
 * implements `ObjectStore` (s3-client.ts, azure-client.ts) and is named once
 * in engines.ts; nothing above this interface asks which engine it talks to.
 * Every method rejects with a StorageError (storage-error.ts), never with an
 * SDK's own error, and every ETag it gives is in one form (`etagOf`).
 */

export interface ObjectInfo {
  /** The key relative to the listed prefix (`stat`: the key asked for). */
  key: string;
  size: number;
  etag: string;
  /** Last-Modified, in ms since the epoch. */
  modifiedMs: number;
}

export interface GotObject {
  bytes: Uint8Array;
  etag: string;
  /** The whole object's size (also when only a range of it was read). */
  size: number;
}

export interface ListPage {
  objects: ObjectInfo[];
  /** The token of the next page; undefined on the last. */
  next?: string;
}

export interface ListOptions {
  /** The token a page before gave. */
  token?: string;
  /** Keys per page (the engine's most when left out; tests make it small). */
  pageSize?: number;
  signal?: AbortSignal;
}

/**
 * One engine's requests. `container` is the bucket (S3) or container (Azure);
 * `key` the object's name in it. A missing object rejects with code ENOENT,
 * a missing container with NO_SUCH_BUCKET, access refused with EACCES (the
 * reason names the permission or role to grant), anything worth a retry with
 * STORAGE_UNAVAILABLE (see storage-error.ts).
 */
export interface ObjectStore {
  /** The URL scheme of this engine's places: `s3://`, `az://`. */
  readonly scheme: string;
  /** One page of the objects whose keys start with `prefix`, their keys relative to it. */
  listPage(container: string, prefix: string, options?: ListOptions): Promise<ListPage>;
  /** Bytes `range[0]` to `range[1]` (inclusive); a range past the end gives what there is (an empty object: no bytes). */
  readRange(container: string, key: string, range: readonly [number, number], signal?: AbortSignal): Promise<GotObject>;
  /** The whole object, or undefined while its ETag is still `etag` (a conditional read: If-None-Match, answered 304). */
  readIfChanged(container: string, key: string, etag: string, signal?: AbortSignal): Promise<GotObject | undefined>;
  /** The whole object. */
  read(container: string, key: string, signal?: AbortSignal): Promise<GotObject>;
  /** The object's size, ETag and date, without its body. */
  stat(container: string, key: string, signal?: AbortSignal): Promise<ObjectInfo>;
  /** Replace the object whole (publishing an index): a reader gets the old object or the new one. */
  write(container: string, key: string, body: string | Uint8Array, contentType: string, signal?: AbortSignal): Promise<void>;
}

/**
 * An ETag in one form, quoted (`"0x8D..."`): S3 gives ETags quoted, Azure
 * gives them bare in a listing and quoted in a download's headers. Compared
 * across a listing and a read, they must agree.
 */
export function etagOf(etag: string | undefined): string {
  if (etag === undefined || etag === '') return '';
  return etag.startsWith('"') || etag.startsWith('W/"') ? etag : `"${etag}"`;
}

/**
 * `make`, called on first use and shared while it works; a failure (an SDK
 * not installed yet, a refused configuration) is tried again on the next use.
 */
export function connectOnce<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => {
    made ??= make().catch((error: unknown) => {
      made = undefined;
      throw error;
    });
    return made;
  };
}

/** The whole object's size, from `Content-Range: bytes a-b/size` (a ranged read), else the body's length. */
export function sizeFromContentRange(contentRange: string | undefined, length: number): number {
  const total = contentRange?.split('/')[1];
  return total !== undefined && total !== '*' ? Number(total) : length;
}

/**
 * An optional peer (an engine's SDK), imported by name when first needed and
 * shared after; an import that fails rejects with `missing(cause)`, a
 * StorageError that says what to install, and is tried again next time.
 * The name is a variable and the comments keep bundlers (webpack, Vite) from
 * demanding the peer at build time in apps that never use that engine.
 */
export function optionalPeer<T>(moduleName: string, missing: (cause: unknown) => Error) {
  const importFrom = async (name: string): Promise<T> => {
    try {
      return (await import(/* webpackIgnore: true */ /* @vite-ignore */ name)) as T;
    } catch (error) {
      throw missing(error);
    }
  };
  return { load: connectOnce(() => importFrom(moduleName)), importFrom };
}

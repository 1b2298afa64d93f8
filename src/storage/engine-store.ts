/**
 * What every engine does the same way with its reads: the edge's three reads
 * are one request each (ranged, conditional or whole), and the answers that
 * are not objects mean the same on S3 and Azure: 304 is "not modified", a
 * 416 on a range from 0 is an empty object (read it whole), any other 416 is
 * an object that changed while it was read. An engine gives the request, the
 * status its SDK's errors carry, and those errors in the package's terms.
 */
import type { GotObject, ListOptions, ListPage, ObjectInfo, ObjectStore } from './object-store.js';
import { changedWhileRead, type StorageError, type StorageOperation } from './storage-error.js';

/** One read: a range (inclusive), a condition (If-None-Match), both or neither. */
export interface ReadRequest {
  range?: readonly [number, number];
  ifNoneMatch?: string;
  signal?: AbortSignal;
}

export abstract class EngineStore implements ObjectStore {
  abstract readonly scheme: string;
  abstract listPage(container: string, prefix: string, options?: ListOptions): Promise<ListPage>;
  abstract stat(container: string, key: string, signal?: AbortSignal): Promise<ObjectInfo>;
  abstract write(container: string, key: string, body: string | Uint8Array, contentType: string, signal?: AbortSignal): Promise<void>;

  /** The object (or the range asked for), its body read whole; rejects with the SDK's own error, or a StorageError. */
  protected abstract fetch(container: string, key: string, request: ReadRequest): Promise<GotObject>;
  /** The HTTP status an SDK error carries, when the server answered. */
  protected abstract statusOf(error: unknown): number | undefined;
  /** An SDK error met doing `operation` as a StorageError (a StorageError as it is). */
  protected abstract storageError(error: unknown, operation: StorageOperation, container: string, key: string): StorageError;

  readRange(container: string, key: string, range: readonly [number, number], signal?: AbortSignal): Promise<GotObject> {
    return this.get(container, key, { range, signal });
  }

  readIfChanged(container: string, key: string, etag: string, signal?: AbortSignal): Promise<GotObject | undefined> {
    return this.get(container, key, { ifNoneMatch: etag, signal });
  }

  read(container: string, key: string, signal?: AbortSignal): Promise<GotObject> {
    return this.get(container, key, { signal });
  }

  private get(container: string, key: string, request: ReadRequest & { ifNoneMatch: string }): Promise<GotObject | undefined>;
  private get(container: string, key: string, request: Omit<ReadRequest, 'ifNoneMatch'>): Promise<GotObject>;
  private async get(container: string, key: string, request: ReadRequest): Promise<GotObject | undefined> {
    try {
      return await this.fetch(container, key, request);
    } catch (error) {
      const status = this.statusOf(error);
      if (status === 304) return undefined;
      if (status === 416 && request.range?.[0] === 0) return await this.get(container, key, { signal: request.signal });
      if (status === 416) throw changedWhileRead(`${this.scheme}${container}/${key}`, error);
      throw this.storageError(error, 'get', container, key);
    }
  }
}

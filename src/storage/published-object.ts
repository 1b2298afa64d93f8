/**
 * One object read whole and kept by its ETag: a published index. Each
 * `fetch` after the first is one conditional GET (`If-None-Match` with the
 * ETag held), which storage answers 304 while the object is unchanged.
 */
import { Buffer } from 'node:buffer';
import type { Located, ObjectStores } from './engines.js';

export class PublishedObject {
  /** The bytes last read, undefined until a GET has answered. */
  bytes: Uint8Array | undefined;
  /** Its ETag: what the next fetch sends as `If-None-Match`. */
  etag: string | undefined;
  private inFlight: Promise<boolean> | undefined;
  private readonly at: Located;

  constructor(
    stores: ObjectStores,
    /** `s3://bucket/key`, `az://container/key`. */
    readonly url: string,
  ) {
    this.at = stores.locate(url);
  }

  /**
   * Read the object if it changed (a GET in flight is shared). Resolves true
   * when other bytes came, false on a 304; rejects with the StorageError,
   * keeping the bytes held.
   */
  fetch(signal?: AbortSignal): Promise<boolean> {
    this.inFlight ??= this.read(signal).finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  private async read(signal?: AbortSignal): Promise<boolean> {
    const { store, container, key } = this.at;
    const got =
      this.etag === undefined ? await store.read(container, key, signal) : await store.readIfChanged(container, key, this.etag, signal);
    if (!got) return false;
    const changed = this.bytes === undefined || !Buffer.from(got.bytes).equals(this.bytes);
    this.bytes = got.bytes;
    this.etag = got.etag;
    return changed;
  }
}

/**
 * A time limit on every request an engine makes: neither SDK sets one, so a
 * connection that stops answering would stall the refresh loop for good. A
 * request that runs over (a listing page, or a read with its whole body) is
 * abandoned as STORAGE_UNAVAILABLE, worth a retry; a caller's abort still
 * ends it at once, as the engine reports it.
 */
import type { GotObject, ListOptions, ListPage, ObjectInfo, ObjectStore } from './object-store.js';
import { StorageCodes, StorageError } from './storage-error.js';

/**
 * How long one request may take before it is abandoned. Long enough for the
 * 18 MB published index of 20,000 skills (with instructions) at 300 kB/s.
 */
export const REQUEST_TIMEOUT_MS = 60_000;

/** A signal that aborts after `ms` or when `outer` does; `timedOut` tells which. `clear` when the request is over. */
function timeLimit(outer: AbortSignal | undefined, ms: number) {
  const controller = new AbortController();
  const state = { timedOut: false };
  const onOuter = () => controller.abort(outer?.reason);
  const timer = setTimeout(() => {
    state.timedOut = true;
    controller.abort(new Error(`no answer within ${ms} ms`));
  }, ms);
  timer.unref?.();
  if (outer?.aborted) onOuter();
  else outer?.addEventListener('abort', onOuter, { once: true });
  const clear = () => {
    clearTimeout(timer);
    outer?.removeEventListener('abort', onOuter);
  };
  return { signal: controller.signal, state, clear };
}

/** `store`, each of its requests limited to `ms` (REQUEST_TIMEOUT_MS by default). */
export class TimeLimitedStore implements ObjectStore {
  readonly scheme: string;

  constructor(
    private readonly store: ObjectStore,
    readonly ms = REQUEST_TIMEOUT_MS,
  ) {
    this.scheme = store.scheme;
  }

  listPage(container: string, prefix: string, options: ListOptions = {}): Promise<ListPage> {
    return this.limited(container, prefix, options.signal, (signal) => this.store.listPage(container, prefix, { ...options, signal }));
  }

  readRange(container: string, key: string, range: readonly [number, number], signal?: AbortSignal): Promise<GotObject> {
    return this.limited(container, key, signal, (limit) => this.store.readRange(container, key, range, limit));
  }

  readIfChanged(container: string, key: string, etag: string, signal?: AbortSignal): Promise<GotObject | undefined> {
    return this.limited(container, key, signal, (limit) => this.store.readIfChanged(container, key, etag, limit));
  }

  read(container: string, key: string, signal?: AbortSignal): Promise<GotObject> {
    return this.limited(container, key, signal, (limit) => this.store.read(container, key, limit));
  }

  stat(container: string, key: string, signal?: AbortSignal): Promise<ObjectInfo> {
    return this.limited(container, key, signal, (limit) => this.store.stat(container, key, limit));
  }

  write(container: string, key: string, body: string, contentType: string, signal?: AbortSignal): Promise<void> {
    return this.limited(container, key, signal, (limit) => this.store.write(container, key, body, contentType, limit));
  }

  private async limited<T>(container: string, key: string, signal: AbortSignal | undefined, work: (signal: AbortSignal) => Promise<T>) {
    const limit = timeLimit(signal, this.ms);
    try {
      return await work(limit.signal);
    } catch (error) {
      if (!limit.state.timedOut) throw error;
      const reason = `storage unavailable for ${this.scheme}${container}/${key}: no answer within ${this.ms} ms`;
      throw new StorageError(StorageCodes.unavailable, reason, { cause: error });
    } finally {
      limit.clear();
    }
  }
}

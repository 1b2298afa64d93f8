/**
 * One discovery per middleware instance, not per request: the index is kept
 * for `cacheTtl`, concurrent requests share the scan in flight, and a request
 * whose signal aborts stops waiting without disturbing the shared scan.
 */

/** `I`: what the cache keeps of a discovery (the middleware's: a LoadedIndex). */
export interface CachedIndex<I> {
  index: I;
  /** True for the one request that ran (or started) this discovery. */
  fresh: boolean;
  /** How long discovery took, in milliseconds. */
  durationMs: number;
}

export interface IndexCache<I> {
  /**
   * The current index, discovering first when there is none or it is older than the TTL (`ttl`: this call's, in
   * place of the cache's; the freshness owner passes the one its sources allow now).
   */
  get(signal?: AbortSignal, ttl?: number): Promise<CachedIndex<I>>;
  /** The last index built, without waiting or scanning. */
  peek(): I | undefined;
  /** Forget the index so the next `get` rescans. */
  invalidate(): void;
}

/** `R`: what a discovery gives; `I`: what the cache keeps of it. */
export interface IndexCacheOptions<R, I> {
  load: () => Promise<R>;
  /** Turns a discovery into the index kept: `loadedAt`, when it finished (the TTL counts from then); `durationMs`, how long it took. */
  toIndex: (result: R, loadedAt: number, durationMs: number) => I;
  /** Milliseconds an index is reused; 0 rescans on every `get`. A function is asked on every `get` (watch mode shortens it while it cannot watch). */
  ttl: number | (() => number);
  now?: () => number;
}

/** Resolve with `promise`, or reject with the signal's reason once it aborts. */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** What the cache holds of one discovery. */
interface Entry<I> {
  index: I;
  loadedAt: number;
  durationMs: number;
}

export function createIndexCache<R, I>({ load, toIndex, ttl, now = Date.now }: IndexCacheOptions<R, I>): IndexCache<I> {
  let current: Entry<I> | undefined;
  let inFlight: Promise<Entry<I>> | undefined;
  let generation = 0;

  function startDiscovery(): Promise<Entry<I>> {
    const startedIn = generation;
    const started = now();
    const discovery = load().then((result) => {
      const finished = now();
      const durationMs = finished - started;
      const entry = { index: toIndex(result, finished, durationMs), loadedAt: finished, durationMs };
      // An invalidate() during the scan means this result may be stale: serve it, but don't keep it.
      if (startedIn === generation) current = entry;
      return entry;
    });
    inFlight = discovery;
    // Clear the in-flight slot either way, so a failed scan is retried by the next request.
    discovery.then(
      () => {
        if (inFlight === discovery) inFlight = undefined;
      },
      () => {
        if (inFlight === discovery) inFlight = undefined;
      },
    );
    return discovery;
  }

  return {
    async get(signal, maxAge = typeof ttl === 'function' ? ttl() : ttl) {
      // `< maxAge` also covers Infinity (never rescan) and 0 (always rescan).
      if (current && now() - current.loadedAt < maxAge) {
        return { index: current.index, fresh: false, durationMs: current.durationMs };
      }
      const owner = inFlight === undefined;
      const discovery = inFlight ?? startDiscovery();
      const entry = await untilAborted(discovery, signal);
      return { index: entry.index, fresh: owner, durationMs: entry.durationMs };
    },
    peek: () => current?.index,
    invalidate() {
      generation++;
      current = undefined;
    },
  };
}

/**
 * The one owner of freshness: made with the index cache, the abort signal
 * and the sources of change (folders watched, a bucket's listings polled, a
 * published index checked), each made before it with the feed it listens
 * to. A reported change rebuilds the index on the next request; the
 * sources say how long an index may be kept (`ttl`); their notes are logged
 * by the next request; aborting `signal` or `close()` stops them all.
 */
import type { HostLogger } from '../base/host.js';
import type { Change, ChangeFeed, ChangeSource } from '../source/changes.js';
import type { CachedIndex, IndexCache } from './index-cache.js';

export interface FreshnessSettings<I> {
  cache: IndexCache<I>;
  /** How long an index is kept when no source asks for less (`cacheTtl`), in ms. */
  ttl: number;
  /** Aborting it stops every source. */
  signal: AbortSignal | undefined;
  /** Where the sources report; listened to from construction until `close`. */
  changes: ChangeFeed;
  /** In the order their notes are logged. */
  sources: ReadonlyArray<ChangeSource | undefined>;
  /** Told of a change seen on disk, before the index is dropped (a prebuilt index cannot know it: scan from now on). */
  onDiskChange?: () => void;
}

/** `I`: what the cache keeps of a discovery (the middleware's: a LoadedIndex). */
export class Freshness<I> {
  private readonly sources: readonly ChangeSource[];
  private readonly stopListening: () => void;
  private readonly onAbort = (): void => void this.close();

  constructor(private readonly settings: FreshnessSettings<I>) {
    this.sources = settings.sources.filter((source): source is ChangeSource => source !== undefined);
    this.stopListening = settings.changes.listen((change) => this.changed(change));
    for (const source of this.sources) source.start?.();
    const { signal } = settings;
    if (signal?.aborted) this.onAbort();
    else signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  /** The index as fresh as the sources allow: the cached one, or a new discovery. Rejects when `signal` aborts the wait. */
  index(signal?: AbortSignal): Promise<CachedIndex<I>> {
    return this.settings.cache.get(signal, this.ttl());
  }

  /** How long an index may be kept now: `cacheTtl`, or less while a source asks for less. */
  ttl(): number {
    let ttl = this.settings.ttl;
    for (const source of this.sources) ttl = Math.min(ttl, source.maxAge?.() ?? Infinity);
    return ttl;
  }

  /** Log what each source noted since the last request. */
  report(log: HostLogger): void {
    for (const source of this.sources) source.report(log);
  }

  async close(): Promise<void> {
    this.stopListening();
    this.settings.signal?.removeEventListener('abort', this.onAbort);
    await Promise.all(this.sources.map((source) => source.close()));
  }

  private changed(change: Change): void {
    const { cache } = this.settings;
    if (change === 'unseen') {
      if (cache.peek()) cache.invalidate();
      return;
    }
    if (change === 'disk') this.settings.onDiskChange?.();
    cache.invalidate();
  }
}

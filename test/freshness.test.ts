/**
 * The one owner of freshness (src/index/freshness.ts) and how sources reach
 * it: a change reported to the feed drops the index, a change seen on disk
 * is told first (scan from now on), a change that may have gone unseen drops
 * only an index already built; the TTL is the shortest any source allows;
 * aborting the signal (even before construction) or closing stops every
 * source and the listening. Two pollers of one bucket store are each told
 * of a stale read (one no longer overwrites the other's callback).
 */
import { describe, expect, it, vi } from 'vitest';
import type { DiscoveryResult } from '../src/base/model.js';
import { Freshness } from '../src/index/freshness.js';
import { createIndexCache } from '../src/index/index-cache.js';
import { BucketSource } from '../src/source/bucket-source.js';
import { ChangeFeed, type ChangeSource } from '../src/source/changes.js';
import { BucketStore } from '../src/storage/bucket-store.js';

const empty = (): Promise<DiscoveryResult> => Promise.resolve({ skills: [], scannedDirectories: [], errors: [], warnings: [] });

function fakeSource(maxAge?: number): ChangeSource & { started: number; closed: number; reported: number } {
  return {
    started: 0,
    closed: 0,
    reported: 0,
    start() {
      this.started++;
    },
    maxAge: () => maxAge,
    report() {
      this.reported++;
    },
    close() {
      this.closed++;
    },
  };
}

function owner(settings: { signal?: AbortSignal; sources?: ChangeSource[]; onDiskChange?: () => void } = {}) {
  const load = vi.fn(empty);
  const cache = createIndexCache({ load, toIndex: (result) => result, ttl: 10_000 });
  const changes = new ChangeFeed();
  const freshness = new Freshness({
    cache,
    ttl: 10_000,
    signal: settings.signal,
    changes,
    sources: settings.sources ?? [],
    ...(settings.onDiskChange ? { onDiskChange: settings.onDiskChange } : {}),
  });
  return { load, cache, changes, freshness };
}

describe('freshness', () => {
  it('a reported change drops the index; a change on disk is told first; an unseen one drops only an index already built', async () => {
    const order: string[] = [];
    const { load, cache, changes, freshness } = owner({ onDiskChange: () => order.push(cache.peek() ? 'told, index held' : 'told') });
    changes.report('unseen');
    await freshness.index();
    await freshness.index();
    expect(load).toHaveBeenCalledTimes(1);
    changes.report('storage');
    expect(cache.peek()).toBeUndefined();
    await freshness.index();
    expect(load).toHaveBeenCalledTimes(2);
    changes.report('disk');
    expect(order).toEqual(['told, index held']);
    expect(cache.peek()).toBeUndefined();
    await freshness.index();
    changes.report('unseen');
    await freshness.index();
    expect(load).toHaveBeenCalledTimes(4);
  });

  it('keeps an index as long as the shortest limit a source sets, and logs every source', async () => {
    const sources = [fakeSource(undefined), fakeSource(500), fakeSource(2000)];
    const { freshness } = owner({ sources });
    expect(freshness.ttl()).toBe(500);
    freshness.report({ debug() {}, info() {}, warn() {}, error() {} });
    expect(sources.map((source) => [source.started, source.reported])).toEqual([
      [1, 1],
      [1, 1],
      [1, 1],
    ]);
    expect(owner().freshness.ttl()).toBe(10_000);
  });

  it('aborting the signal closes every source; a signal aborted before construction closes them at once', async () => {
    const controller = new AbortController();
    const source = fakeSource();
    const { changes, cache, freshness } = owner({ signal: controller.signal, sources: [source] });
    await freshness.index();
    controller.abort();
    expect(source.closed).toBe(1);
    // Closed: reports no longer reach the cache.
    changes.report('storage');
    expect(cache.peek()).toBeDefined();
    const early = fakeSource();
    owner({ signal: AbortSignal.abort(), sources: [early] });
    expect(early.closed).toBe(1);
    await freshness.close();
    expect(source.closed).toBe(2);
  });

  it('a feed stops telling a listener once it stops listening', () => {
    const feed = new ChangeFeed();
    const heard: string[] = [];
    const stop = feed.listen((change) => heard.push(change));
    feed.report('disk');
    stop();
    feed.report('storage');
    expect(heard).toEqual(['disk']);
  });

  it('every poller of a bucket store is told of a stale read, until it closes; the running poller of each mode checks again soon', async () => {
    vi.useFakeTimers();
    try {
      const store = new BucketStore([{ bucket: 'b', prefix: '', root: 's3://b' }], {}, 's3://b/skills.index');
      const listed = vi.spyOn(store, 'list').mockResolvedValue(false);
      const fetched = vi.spyOn(store.index!, 'fetch').mockResolvedValue(false);
      const settings = { refresh: 0, storageWait: 100 };
      const first = new BucketSource(store, settings);
      const second = new BucketSource(store, settings);
      const read = (store.fs as unknown as { settings: { onStale: (path: string) => void } }).settings.onStale;
      read('s3://b/x/SKILL.md');
      await vi.advanceTimersByTimeAsync(1500);
      // Both pollers run their published index's mode: each checked it once.
      expect(fetched).toHaveBeenCalledTimes(2);
      expect(listed).not.toHaveBeenCalled();
      first.useListings();
      second.close();
      read('s3://b/x/SKILL.md');
      await vi.advanceTimersByTimeAsync(1500);
      expect(fetched).toHaveBeenCalledTimes(2);
      expect(listed).toHaveBeenCalledTimes(1);
      first.close();
    } finally {
      vi.useRealTimers();
    }
  });
});

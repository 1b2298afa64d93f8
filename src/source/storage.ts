/**
 * Building what the storage options name, a step after checking them: the
 * bucket store over the `s3://` places (it makes no request until the first
 * discovery) and the filesystem edge that routes `s3://` paths to it and the
 * rest to the `fs` option's. Without an `s3://` source, the options as they are.
 */
import type { ResolvedOptions } from '../config/options.js';
import { BucketStore } from '../storage/bucket-store.js';
import { routedFileSystem } from '../storage/routed-fs.js';

/** The options with their storage built: `fs` routes `s3://` paths to `store`. */
export interface StoredOptions extends ResolvedOptions {
  /** The s3:// places and their listings; undefined without any. */
  readonly store: BucketStore | undefined;
}

/** The bucket store and routed filesystem `options` call for (none without an `s3://` source). */
export function openStorage(options: ResolvedOptions): StoredOptions {
  const { buckets } = options;
  if (!buckets) return { ...options, store: undefined };
  const store = new BucketStore(buckets.places, buckets.s3, buckets.index);
  return { ...options, fs: routedFileSystem(options.fs, store.fs), store };
}

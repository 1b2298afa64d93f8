/**
 * Building what the storage options name, a step after checking them: the
 * bucket store over the `s3://` and `az://` places (it makes no request until
 * the first discovery), the filesystem edge that routes object paths to it and
 * the rest to the `fs` option's, and the pollers that keep the places fresh.
 * Without such a source, the options as they are.
 */
import type { ResolvedOptions } from '../config/options.js';
import { BucketStore } from '../storage/bucket-store.js';
import { routedFileSystem } from '../storage/routed-fs.js';
import { BucketSource } from './bucket-source.js';
import type { ChangeFeed } from './changes.js';

/** The options with their storage built: `fs` routes `s3://` paths to `store`, which `bucketSource` keeps fresh. */
export interface StoredOptions extends ResolvedOptions {
  /** The s3:// places and their listings; undefined without any. */
  readonly store: BucketStore | undefined;
  /** The pollers of the s3:// sources; undefined without any. */
  readonly bucketSource: BucketSource | undefined;
}

/**
 * The bucket store, routed filesystem and pollers `options` call for (none
 * without an `s3://` source). `changes`: kept fresh, checked every `refresh`
 * ms and every change reported there; without it, for one discovery (no
 * check after it; the caller closes `bucketSource`).
 */
export function openStorage(options: ResolvedOptions, changes?: ChangeFeed): StoredOptions {
  const { buckets } = options;
  if (!buckets) return { ...options, store: undefined, bucketSource: undefined };
  const store = new BucketStore(buckets.places, { s3: buckets.s3, azure: buckets.azure }, buckets.index);
  const refresh = changes ? options.refresh : 0;
  const bucketSource = new BucketSource(store, { refresh, storageWait: options.storageWait, changes });
  return { ...options, fs: routedFileSystem(options.fs, store.fs), store, bucketSource };
}

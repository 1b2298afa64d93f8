/**
 * Where an index comes from: a prebuilt index file (`index` option) or a
 * scan, and how each skill's level 2 is read on activation. The middleware's
 * index cache calls `load` and `toIndex`; nothing here is per request.
 */
import { SkillUnavailableError } from '../config/errors.js';
import { loadSkillContent } from '../discover/discover.js';
import { resourceLimits, type ResourceLimits } from '../discover/resources.js';
import { createLimiter, MAX_CONCURRENT_FS_CALLS } from '../base/concurrency.js';
import type { ResolvedOptions } from '../config/options.js';
import type { StoredOptions } from '../source/storage.js';
import { readPrebuiltIndex } from './prebuilt/read.js';
import type { PrebuiltRankerData } from './prebuilt/ranker-block.js';
import { checkSkillFile, type SkillStamps } from './prebuilt/stamps.js';
import { createLazySkillIndex, createSkillIndex, type SkillIndex, type SkillLoader } from '../index/skill-index.js';
import type { DiscoveryResult } from '../base/model.js';
import { BucketRefresh } from '../source/bucket-source.js';
import { discoverWithBuckets } from '../discover/with-storage.js';
import { publishedIndexLoader, type IndexLoad } from './published-index.js';
import { isS3Url } from '../base/s3-url.js';

export interface SkillSource {
  /** The skills as they are now: the prebuilt index while it is usable, else a scan. */
  load(): Promise<DiscoveryResult>;
  toIndex(result: DiscoveryResult, loadedAt: number): SkillIndex;
  /** Scan from now on (the watcher saw a change the prebuilt index cannot know about). */
  preferScan(): void;
  /** The ranker a prebuilt index held for `index` (one `toIndex` made), if any. */
  rankerDataOf(index: SkillIndex): PrebuiltRankerData | undefined;
  /** The skill vectors block a prebuilt index held for `index`, as stored (src/meaning/vector-file.ts decodes it). */
  vectorsOf(index: SkillIndex): unknown;
  /** The checks of the s3:// places (undefined without any): the middleware starts, reports and closes them. */
  buckets: BucketRefresh | undefined;
}

/**
 * `limits`: how resources are listed, at discovery and at activation (the middleware makes it once, with its reader's matcher).
 * `onStorageChange`: called when an s3:// place's listing changed (the middleware rebuilds its index).
 */
export function createSkillSource(
  options: StoredOptions,
  limits: ResourceLimits = resourceLimits(options),
  onStorageChange: () => void = () => undefined,
): SkillSource {
  // Activation reads share one bound, like discovery's, so a burst of use_skill calls cannot exhaust file handles.
  const activationReads = createLimiter(MAX_CONCURRENT_FS_CALLS);
  // An unusable index is reported once, then scanning takes over for good.
  let indexFile = options.index;
  // Keyed by our own index objects: a dropped index takes its ranker data with it.
  const rankerData = new WeakMap<SkillIndex, PrebuiltRankerData>();
  const vectorData = new WeakMap<SkillIndex, unknown>();

  const buckets = options.store
    ? new BucketRefresh(options.store, { refresh: options.refresh, storageWait: options.storageWait, onChange: onStorageChange })
    : undefined;

  const published = options.index !== undefined && isS3Url(options.index) && buckets;
  const readIndex = published ? publishedIndexLoader(options, options.index as string, published, limits) : localIndexLoader(options);

  async function load(): Promise<DiscoveryResult> {
    if (indexFile !== undefined) {
      const read = await readIndex();
      if (!('unusable' in read)) return read;
      indexFile = undefined;
      if (published) published.useListings();
      const scanned = await scan(true);
      return { ...scanned, warnings: [read.unusable, ...scanned.warnings] };
    }
    return scan(!options.preload);
  }

  const scan = (frontmatterOnly: boolean): Promise<DiscoveryResult> => discoverWithBuckets(options, buckets, { frontmatterOnly }, limits);

  function toIndex(result: DiscoveryResult, loadedAt: number): SkillIndex {
    if (options.preload && !('stamps' in result)) return createSkillIndex(result, loadedAt);
    const stamps = 'stamps' in result ? (result.stamps as SkillStamps) : undefined;
    const loader = skillLoader(options, limits, activationReads, stamps);
    // A prebuilt index's entries come straight from JSON.parse and its path decoder: no compact copies (see `compact`).
    const index = createLazySkillIndex(result, loader, loadedAt, stamps !== undefined);
    const ranker = 'ranker' in result ? (result.ranker as PrebuiltRankerData | undefined) : undefined;
    if (ranker) rankerData.set(index, ranker);
    if ('vectors' in result && result.vectors !== undefined) vectorData.set(index, result.vectors);
    return index;
  }

  return {
    load,
    toIndex,
    preferScan: () => {
      if (published && indexFile !== undefined) published.useListings();
      indexFile = undefined;
    },
    rankerDataOf: (index) => rankerData.get(index),
    vectorsOf: (index) => vectorData.get(index),
    buckets,
  };
}

/** The local index file's skills, or why it cannot be used (scanning takes over). */
function localIndexLoader(options: ResolvedOptions): () => Promise<IndexLoad> {
  return async () => {
    const read = await readPrebuiltIndex(options.index as string, options);
    return read.ok ? read.result : { unusable: read.diagnostic };
  };
}

/** Reads a skill's instructions and resources at activation, refusing a SKILL.md changed since a prebuilt index was built. */
function skillLoader(
  options: ResolvedOptions,
  limits: ResourceLimits,
  activationReads: ReturnType<typeof createLimiter>,
  stamps: SkillStamps | undefined,
): SkillLoader {
  return (entry) =>
    activationReads(async () => {
      const stamp = stamps?.of(entry);
      if (stamp) {
        // Never stale text: a SKILL.md that changed since the build is refused until the index is rebuilt.
        const check = await checkSkillFile(options.fs, entry, stamp);
        if (check.status !== 'unchanged') {
          throw new SkillUnavailableError({
            skill: check.skill,
            path: check.path,
            reason: 'stale',
            detail: check.detail,
            message: check.message,
          });
        }
      }
      return loadSkillContent(entry, options.fs, limits);
    });
}

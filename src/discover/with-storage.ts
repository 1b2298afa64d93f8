/**
 * Discovery with the s3:// places: each listed first, waited for at most
 * `storageWait`; a place storage cannot list yet is left out with a warning,
 * and the listing that ends later rebuilds the index. `discoverSkills`, the
 * public one-shot discovery, checks the options and builds their storage first.
 */
import { isS3Url } from '../base/s3-url.js';
import type { DiscoveryResult } from '../base/model.js';
import { type ConfigOptions } from '../config/options.js';
import { resolveOptions } from '../config/resolve.js';
import { BucketRefresh } from '../source/bucket-source.js';
import { openStorage, type StoredOptions } from '../source/storage.js';
import { discover, type DiscoverMode } from './discover.js';
import type { ResourceLimits } from './resources.js';

/**
 * Public entry: check options (throws SkillsConfigError on mistakes), then
 * discover: every skill read in full, s3:// places listed first (each
 * waited for at most `storageWait`).
 */
export async function discoverSkills(options: ConfigOptions): Promise<DiscoveryResult> {
  return discoverOnce(openStorage(resolveOptions(options)), {});
}

/**
 * A discovery, without the s3:// places storage has not listed yet (each
 * reported by a warning). Until one has read the bucket places' SKILL.md
 * objects, the listing and those reads together are waited for at most
 * `storageWait`: past it the other sources answer, and the discovery, when
 * it ends, rebuilds the index.
 */
export async function discoverWithBuckets(
  options: StoredOptions,
  buckets: BucketRefresh | undefined,
  mode: DiscoverMode,
  limits?: ResourceLimits,
): Promise<DiscoveryResult> {
  if (!buckets) return discover(options, mode, limits);
  const started = Date.now();
  const { leaveOut, diagnostics } = await buckets.beforeDiscovery();
  const directories = options.directories.filter((directory) => !leaveOut.has(directory));
  const local = directories.filter((directory) => !isS3Url(directory));
  const scanned =
    local.length === directories.length
      ? await discover({ ...options, directories }, mode, limits)
      : await buckets.withinWait(
          () => discover({ ...options, directories }, mode, limits),
          started,
          () => discover({ ...options, directories: local }, mode, limits),
        );
  return { ...scanned, scannedDirectories: [...options.directories], warnings: [...diagnostics, ...scanned.warnings] };
}

/**
 * One discovery with no checks after it (`discoverSkills`, the CLI, an index
 * build): s3:// places listed first, each waited for at most `storageWait`.
 */
export async function discoverOnce(options: StoredOptions, mode: DiscoverMode): Promise<DiscoveryResult> {
  const buckets = options.store
    ? new BucketRefresh(options.store, { refresh: 0, storageWait: options.storageWait, onChange: () => undefined })
    : undefined;
  try {
    return await discoverWithBuckets(options, buckets, mode);
  } finally {
    // No retry outlives the call.
    buckets?.close();
  }
}

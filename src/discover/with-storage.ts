/**
 * Discovery with the s3:// places: each listed first, waited for at most
 * `storageWait`; a place storage cannot list yet is left out with a warning,
 * and the listing that ends later rebuilds the index. `discoverSkills`, the
 * public one-shot discovery, checks the options and builds their storage first.
 */
import { isS3Url } from '../base/s3-url.js';
import type { DiscoveryResult, Skill, SkillEntry } from '../base/model.js';
import { type ConfigOptions } from '../config/options.js';
import { resolveOptions } from '../config/resolve.js';
import { BucketRefresh } from '../source/bucket-source.js';
import { openStorage, type StoredOptions } from '../source/storage.js';
import { discover, type DiscoverMode, type WholeSkills } from './discover.js';
import type { ResourceLimits } from './resources.js';

/**
 * Public entry: check options (throws SkillsConfigError on mistakes), then
 * discover: every skill read in full, s3:// places listed first (each
 * waited for at most `storageWait`).
 */
export async function discoverSkills(options: ConfigOptions): Promise<DiscoveryResult<Skill>> {
  return discoverOnce(openStorage(resolveOptions(options)), scanIn({}));
}

/** One discovery over the given options: skills read whole or to the end of their frontmatter (`S`). */
export type Scan<S extends SkillEntry> = (options: StoredOptions) => Promise<DiscoveryResult<S>>;

/** The scan `mode` asks for, with `limits` (see `discover`). */
export function scanIn(mode: WholeSkills, limits?: ResourceLimits): Scan<Skill>;
export function scanIn(mode: DiscoverMode, limits?: ResourceLimits): Scan<SkillEntry>;
export function scanIn(mode: DiscoverMode, limits?: ResourceLimits): Scan<SkillEntry> {
  return mode.frontmatterOnly === true ? (options) => discover(options, mode, limits) : (options) => discover(options, {}, limits);
}

/**
 * A discovery (`scan`), without the s3:// places storage has not listed yet (each
 * reported by a warning). Until one has read the bucket places' SKILL.md
 * objects, the listing and those reads together are waited for at most
 * `storageWait`: past it the other sources answer, and the discovery, when
 * it ends, rebuilds the index.
 */
export async function discoverWithBuckets<S extends SkillEntry>(
  options: StoredOptions,
  buckets: BucketRefresh<DiscoveryResult<S>> | undefined,
  scan: Scan<S>,
): Promise<DiscoveryResult<S>> {
  if (!buckets) return scan(options);
  const started = Date.now();
  const { leaveOut, diagnostics } = await buckets.beforeDiscovery();
  const directories = options.directories.filter((directory) => !leaveOut.has(directory));
  const local = directories.filter((directory) => !isS3Url(directory));
  const scanned =
    local.length === directories.length
      ? await scan({ ...options, directories })
      : await buckets.withinWait(
          () => scan({ ...options, directories }),
          started,
          () => scan({ ...options, directories: local }),
        );
  return { ...scanned, scannedDirectories: [...options.directories], warnings: [...diagnostics, ...scanned.warnings] };
}

/**
 * One discovery (`scan`) with no checks after it (`discoverSkills`, the CLI, an index
 * build): s3:// places listed first, each waited for at most `storageWait`.
 */
export async function discoverOnce<S extends SkillEntry>(options: StoredOptions, scan: Scan<S>): Promise<DiscoveryResult<S>> {
  const buckets = options.store
    ? new BucketRefresh<DiscoveryResult<S>>(options.store, { refresh: 0, storageWait: options.storageWait, onChange: () => undefined })
    : undefined;
  try {
    return await discoverWithBuckets(options, buckets, scan);
  } finally {
    // No retry outlives the call.
    buckets?.close();
  }
}

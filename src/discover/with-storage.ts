/**
 * Discovery with the s3:// places: each listed first, waited for at most
 * `storageWait`; a place storage cannot list yet is left out with a warning,
 * and the listing that ends later rebuilds the index. `discoverSkills`, the
 * public one-shot discovery, checks the options and builds their storage first.
 */
import { isObjectUrl } from '../base/object-url.js';
import type { DiscoveryResult, Skill, SkillEntry } from '../base/model.js';
import { type ConfigOptions } from '../config/options.js';
import { resolveOptions } from '../config/resolve.js';
import type { Diagnostic } from '../base/diagnostics.js';
import type { ListingPoll } from '../source/listing-poll.js';
import { waitAtMost } from '../source/poll.js';
import { openStorage, type StoredOptions } from '../source/storage.js';
import { createTrustState } from '../trust/state.js';
import { discover, type DiscoverMode, type WholeSkills } from './discover.js';
import type { ResourceLimits } from './resources.js';

/**
 * Public entry: check options (throws SkillsConfigError on mistakes), then
 * discover: every skill read in full (and, with `trust`, checked whole against
 * its place's signed manifest), s3:// places listed first (each waited for at
 * most `storageWait`).
 */
export async function discoverSkills(options: ConfigOptions): Promise<DiscoveryResult<Skill>> {
  const resolved = resolveOptions(options);
  // With `trust`, what a place does not vouch for is left out (or reported), as the middleware does.
  const trust = resolved.trust && createTrustState(resolved.trust, () => undefined);
  return discoverOnce(openStorage(resolved), scanIn({ trust }));
}

/** One discovery over the given options: skills read whole or to the end of their frontmatter (`S`). */
export type Scan<S extends SkillEntry> = (options: StoredOptions) => Promise<DiscoveryResult<S>>;

/** The scan `mode` asks for, with `limits` (see `discover`). */
export function scanIn(mode: WholeSkills, limits?: ResourceLimits): Scan<Skill>;
export function scanIn(mode: DiscoverMode, limits?: ResourceLimits): Scan<SkillEntry>;
export function scanIn(mode: DiscoverMode, limits?: ResourceLimits): Scan<SkillEntry> {
  return mode.frontmatterOnly === true
    ? (options) => discover(options, mode, limits)
    : (options) => discover(options, { trust: mode.trust }, limits);
}

/**
 * The first discovery over listed bucket places, shared: a source of skills
 * keeps one for its life, a one-time discovery one for its call. Until it has
 * ended, a request waits for it at most `storageWait`; past that the other
 * sources answer, and when it ends the index is rebuilt. Once it has ended,
 * discoveries are waited for whole: the SKILL.md objects are kept by ETag,
 * so they read only what a refresh found changed.
 */
export class FirstRead<F extends { warnings: Diagnostic[] }> {
  /** In flight, or done. */
  private reading: Promise<F> | 'done' | undefined;
  /** Whether a request stopped waiting for it (its end then rebuilds the index). */
  private late = false;

  /** `read` (the discovery with the bucket places), waited for until `storageWait` has passed since `started`, else `others` with a warning. */
  async within(poll: ListingPoll, read: () => Promise<F>, started: number, others: () => Promise<F>): Promise<F> {
    if (this.reading === 'done') return read();
    if (!this.reading) {
      const reading = read();
      this.reading = reading;
      reading.then(
        () => {
          this.reading = 'done';
          if (this.late) poll.changed();
        },
        () => {
          this.reading = undefined;
        },
      );
    }
    const reading = this.reading;
    const ended = await waitAtMost([reading], Math.max(0, started + poll.storageWait - Date.now()));
    if (ended) return reading;
    this.late = true;
    const answered = await others();
    return { ...answered, warnings: [...poll.slowReads(), ...answered.warnings] };
  }
}

/** What a discovery with bucket places needs: their poller, and the first read to share. */
export interface BucketDiscovery<S extends SkillEntry> {
  poll: ListingPoll;
  first: FirstRead<DiscoveryResult<S>>;
}

/**
 * A discovery (`scan`), without the s3:// places storage has not listed yet (each
 * reported by a warning). Until one has read the bucket places' SKILL.md
 * objects, the listing and those reads together are waited for at most
 * `storageWait` (FirstRead).
 */
export async function discoverWithBuckets<S extends SkillEntry>(
  options: StoredOptions,
  buckets: BucketDiscovery<S> | undefined,
  scan: Scan<S>,
): Promise<DiscoveryResult<S>> {
  if (!buckets) return scan(options);
  const started = Date.now();
  const { leaveOut, diagnostics } = await buckets.poll.beforeDiscovery();
  const directories = options.directories.filter((directory) => !leaveOut.has(directory));
  const local = directories.filter((directory) => !isObjectUrl(directory));
  const scanned =
    local.length === directories.length
      ? await scan({ ...options, directories })
      : await buckets.first.within(
          buckets.poll,
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
  const poll = options.bucketSource?.listings;
  try {
    return await discoverWithBuckets(options, poll && { poll, first: new FirstRead() }, scan);
  } finally {
    // No retry outlives the call; a listing still in flight past storageWait is not waited for.
    void options.bucketSource?.close();
  }
}

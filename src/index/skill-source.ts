/**
 * Where an index comes from: a prebuilt index (`index` option: a file, or an
 * object published to a bucket) or a scan, and how each skill's level 2 is
 * read on activation. The middleware's index cache calls `load` and
 * `indexOf`; nothing here is per request.
 */
import { SkillUnavailableError } from '../config/errors.js';
import { loadSkillContent } from '../discover/discover.js';
import { resourceLimits, type ResourceLimits } from '../discover/resources.js';
import { createLimiter, MAX_CONCURRENT_FS_CALLS } from '../base/concurrency.js';
import type { ResolvedOptions } from '../config/options.js';
import type { StoredOptions } from '../source/storage.js';
import type { PrebuiltReader } from './prebuilt/read.js';
import { checkSkillFile, type SkillStamps } from './prebuilt/stamps.js';
import { createLazySkillIndex, createSkillIndex, type SkillIndex, type SkillLoader } from './skill-index.js';
import type { Diagnostic } from '../base/diagnostics.js';
import { trustedReader } from './trusted-index.js';
import type { TrustState } from '../trust/state.js';
import type { DiscoveryResult, SkillEntry } from '../base/model.js';
import type { IndexPoll } from '../source/index-poll.js';
import { discoverWithBuckets, FirstRead, scanIn, type Scan } from '../discover/with-storage.js';
import { publishedIndexLoader, type IndexLoad } from './published-index.js';
import { isObjectUrl } from '../base/object-url.js';
import type { SkillsLoad } from './skills-load.js';

export interface SkillSource {
  /** The skills as they are now: the prebuilt index while it is usable, else a scan. */
  load(): Promise<SkillsLoad>;
  /**
   * The index over what `load` gave: each skill's instructions read at its first
   * activation (checked against a prebuilt index's stamps), or held already after `preload`.
   */
  indexOf(load: SkillsLoad, loadedAt: number): SkillIndex;
  /** Scan from now on (the watcher saw a change the prebuilt index cannot know about). */
  preferScan(): void;
}

/** What building a skill source needs besides the options. */
export interface SkillSourceSettings {
  /** How resources are listed, at discovery and at activation (the middleware makes it once, with its reader's matcher). */
  limits?: ResourceLimits;
  /** Reads the `index` option's index for the ranker above (a reader given catalog's RANKER_FORMAT). */
  reader: PrebuiltReader;
  /** The `trust` option's state: every scan judges each place and skill, every activation its SKILL.md and listing. */
  trust?: TrustState | undefined;
}

export function createSkillSource(options: StoredOptions, settings: SkillSourceSettings): SkillSource {
  const limits = settings.limits ?? resourceLimits(options);
  const { trust } = settings;
  return options.preload
    ? sourceOf(options, settings, limits, scanIn({ trust }, limits), (discovery) => ({ from: 'scan', read: 'whole', discovery }))
    : sourceOf(options, settings, limits, scanIn({ frontmatterOnly: true, trust }, limits), (discovery) => ({
        from: 'scan',
        read: 'frontmatter',
        discovery,
      }));
}

/** A source whose scans read skills as `scan` does (whole with `preload`, else to the end of the frontmatter). */
function sourceOf<S extends SkillEntry>(
  options: StoredOptions,
  settings: SkillSourceSettings,
  limits: ResourceLimits,
  scan: Scan<S>,
  scanned: (discovery: DiscoveryResult<S>) => SkillsLoad,
): SkillSource {
  // Activation reads share one bound, like discovery's, so a burst of use_skill calls cannot exhaust file handles.
  const activationReads = createLimiter(MAX_CONCURRENT_FS_CALLS);
  // An unusable index is reported once, then scanning takes over for good.
  let indexFile = options.index;
  // The s3:// sources are the storage's, which keeps them fresh (source/storage.ts); the first read is this source's.
  const buckets = options.bucketSource;
  const listed = buckets && { poll: buckets.listings, first: new FirstRead<DiscoveryResult<S>>() };
  const published = options.index !== undefined && isObjectUrl(options.index) ? buckets?.index : undefined;
  // Under `trust`, only an index sealed by trusted keys is used (index/trusted-index.ts).
  const reader = settings.trust ? trustedReader(settings.reader, settings.trust) : settings.reader;
  const readIndex = indexLoader(options, reader, limits, published);
  /** A scan, with `warnings` first among its own. */
  const scanNow = async (warnings: readonly Diagnostic[] = []): Promise<SkillsLoad> => {
    const discovery = await discoverWithBuckets(options, listed, scan);
    return scanned(warnings.length === 0 ? discovery : { ...discovery, warnings: [...warnings, ...discovery.warnings] });
  };

  async function load(): Promise<SkillsLoad> {
    if (indexFile === undefined) return scanNow();
    const read = await readIndex();
    if (read.ok) return read.load;
    indexFile = undefined;
    buckets?.useListings();
    return scanNow([read.unusable]);
  }

  function indexOf(load: SkillsLoad, loadedAt: number): SkillIndex {
    if (load.read === 'whole') return createSkillIndex(load.discovery, loadedAt);
    const stamps = load.from === 'scan' ? undefined : load.discovery.stamps;
    const loader = skillLoader(options, limits, activationReads, stamps, settings.trust);
    // A prebuilt index's entries come straight from JSON.parse and its path decoder: no compact copies (see `compact`).
    return createLazySkillIndex(load.discovery, loader, loadedAt, stamps !== undefined);
  }

  return {
    load,
    indexOf,
    preferScan: () => {
      if (indexFile !== undefined) buckets?.useListings();
      indexFile = undefined;
    },
  };
}

/** Loads the `index` option's index (a file, or an object in a bucket `published` checks), or says why it cannot be used. */
function indexLoader(
  options: StoredOptions,
  reader: PrebuiltReader,
  limits: ResourceLimits,
  published: IndexPoll | undefined,
): () => Promise<IndexLoad> {
  if (published) return publishedIndexLoader(options, options.index as string, published, limits, reader);
  return async () => {
    const read = await reader.read(options.index as string, options);
    return read.ok
      ? { ok: true, load: { from: 'prebuilt', read: 'frontmatter', discovery: read.result } }
      : { ok: false, unusable: read.diagnostic };
  };
}

/** Reads a skill's instructions and resources at activation, refusing a SKILL.md changed since a prebuilt index was built. */
function skillLoader(
  options: ResolvedOptions,
  limits: ResourceLimits,
  activationReads: ReturnType<typeof createLimiter>,
  stamps: SkillStamps | undefined,
  trust: TrustState | undefined,
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
      return loadSkillContent(entry, options.fs, limits, trust);
    });
}

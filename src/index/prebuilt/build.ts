/**
 * The offline builder (`sisu-skills index`): discovers the skills once,
 * stamps each SKILL.md, builds the ranker's index (and with `instructions`,
 * the instructions' index) and returns the document, which
 * `serializePrebuiltIndex` (write.ts) turns into the file's bytes. The CLI's alone: no
 * module on the middleware's path imports it (test/prebuilt-layout.test.ts).
 * The ranker's data is the ranker's to make: the builder is given a
 * RankerBuilder (catalog's RANKER_BUILDER), from the layer above.
 */
import { version as packageVersion } from '../../../package.json';
import { MAX_CONCURRENT_FS_CALLS } from '../../base/concurrency.js';
import { createDiagnostic, type Diagnostic } from '../../base/diagnostics.js';
import { errorReason, type SkillsFileSystem } from '../../base/fs.js';
import { sortedByName } from '../../base/name-lookup.js';
import { SKILL_FILE } from '../../base/skill-file.js';
import { type ConfigOptions, type ResolvedOptions } from '../../config/options.js';
import { resolveOptions } from '../../config/resolve.js';
import { splitFrontmatter } from '../../frontmatter/split.js';
import type { RankerBuilder } from '../../base/ranker-data.js';
import type { DiscoveryResult, SkillEntry, SkillMetadata } from '../../base/model.js';
import { discoverOnce, scanIn } from '../../discover/with-storage.js';
import { openStorage } from '../../source/storage.js';
import { jsonCarries, withoutSpecials, type SpecialNumber } from './codec-numbers.js';
import { pathEncoder, skillFileIn } from './codec-paths.js';
import type { PrebuiltRankerData } from './codec-ranker.js';
import { rankedSkills, type DiscoveryShape, type PrebuiltIndexDocument, type PrebuiltSkillRecord, type SkillStamp } from './format.js';
import { readInOrder } from './in-order.js';
import type { TrustState } from '../../trust/state.js';

/** Builds index documents whose ranker data `ranker` makes (catalog's RANKER_BUILDER). */
export interface PrebuiltBuilder {
  /**
   * Discover the skills `options` name (lazily: frontmatter only) and the stamp
   * of each SKILL.md, as the document to write at `output`. Throws
   * SkillsConfigError on invalid options, like the middleware; skill problems
   * are in the document's diagnostics.
   */
  build(options: ConfigOptions, output: string, now?: () => Date, build?: IndexBuildOptions): Promise<PrebuiltIndexDocument>;
  /** The document for a discovery already made with `options`. Stats each SKILL.md; one that vanished in between is left out with an error. */
  from(
    result: Pick<DiscoveryResult, 'scannedDirectories' | 'errors' | 'warnings'> & { skills: readonly SkillEntry[] },
    options: DiscoveryShape & Pick<ResolvedOptions, 'fs'>,
    output: string,
    createdAt: Date,
    build?: IndexBuildOptions,
  ): Promise<PrebuiltIndexDocument>;
}

export function prebuiltBuilder(ranker: RankerBuilder): PrebuiltBuilder {
  const from: PrebuiltBuilder['from'] = (result, options, output, createdAt, build = {}) =>
    documentOf(ranker, result, options, output, createdAt, build);
  return {
    async build(options, output, now = () => new Date(), build = {}) {
      const resolved = openStorage(resolveOptions(options));
      const report = build.progress;
      // Skills found so far, while the folders are walked: counted as their SKILL.md files are read.
      const fs = report ? countingSkillReads(resolved.fs, (found) => report('finding skills', found)) : resolved.fs;
      report?.('finding skills', 0);
      const result = await discoverOnce({ ...resolved, fs }, scanIn({ frontmatterOnly: true, trust: build.trust }));
      return from(result, resolved, output, now(), build);
    },
    from,
  };
}

/** What goes into an index beyond what discovery finds. */
export interface IndexBuildOptions {
  /**
   * Store the instructions' terms too (every SKILL.md read at build time),
   * so ranking reads them from the first request instead of reading the
   * files in the background. `sisu-skills index --instructions`.
   * @default false: the index stays as small, and loads as fast, as without.
   */
  instructions?: boolean;
  /**
   * Judge each place and skill as a middleware under `trust` does (a place's
   * manifest, each skill's head): what is not signed stays out of the index.
   * `sisu-skills index --key`, which then seals the index (trust/seal.ts).
   */
  trust?: TrustState;
  /** Told each phase and how far it is, of how many when known (the CLI's progress lines on a terminal). */
  progress?: (phase: string, done: number, total?: number) => void;
}

/**
 * `fs` calling `found` with the number of SKILL.md files read so far, after
 * each: through `readUntil`, `readFile` or `open` (discovery reads heads with
 * the first it has), each file counted once.
 */
function countingSkillReads(fs: SkillsFileSystem, found: (count: number) => void): SkillsFileSystem {
  const seen = new Set<string>();
  const counted = <T>(path: string, read: Promise<T>): Promise<T> =>
    path.endsWith(SKILL_FILE)
      ? read.then((value) => {
          if (!seen.has(path)) found(seen.add(path).size);
          return value;
        })
      : read;
  const { readUntil } = fs;
  return {
    ...fs,
    readFile: (path, encoding) => counted(path, fs.readFile(path, encoding)),
    open: (path, flags) => counted(path, fs.open(path, flags)),
    ...(readUntil ? { readUntil: (path, ...rest) => counted(path, readUntil.call(fs, path, ...rest)) } : {}),
  };
}

async function documentOf(
  ranker: RankerBuilder,
  result: Pick<DiscoveryResult, 'scannedDirectories' | 'errors' | 'warnings'> & { skills: readonly SkillEntry[] },
  options: DiscoveryShape & Pick<ResolvedOptions, 'fs'>,
  output: string,
  createdAt: Date,
  build: IndexBuildOptions,
): Promise<PrebuiltIndexDocument> {
  const encode = pathEncoder(output);
  const errors = [...result.errors];
  const skills: PrebuiltSkillRecord[] = [];
  const kept: SkillEntry[] = [];
  const report = build.progress;
  const total = result.skills.length;
  report?.('checking each SKILL.md', 0, total);
  await readInOrder(
    total,
    MAX_CONCURRENT_FS_CALLS,
    (i) =>
      options.fs.stat((result.skills[i] as SkillEntry).path).then(
        (stats): { stamp: SkillStamp } | { error: unknown } => ({ stamp: { size: stats.size, mtimeMs: stats.mtimeMs } }),
        (error: unknown) => ({ error }),
      ),
    (i, stamped) => {
      const entry = result.skills[i] as SkillEntry;
      if ('error' in stamped) errors.push(vanishedAtBuild(entry, stamped.error));
      else {
        skills.push(recordOf(entry, stamped.stamp, encode));
        kept.push(entry);
      }
      report?.('checking each SKILL.md', i + 1, total);
    },
  );
  const encodeDiagnostic = (d: Diagnostic): Diagnostic => ({ ...d, file: encode(d.file) });
  return {
    packageVersion,
    createdAt: createdAt.toISOString(),
    options: {
      directories: options.directories.map(encode),
      packages: [...options.packages],
      include: [...options.include],
      exclude: [...options.exclude],
      strict: options.strict,
    },
    scannedDirectories: result.scannedDirectories.map(encode),
    errors: errors.map(encodeDiagnostic),
    warnings: result.warnings.map(encodeDiagnostic),
    skills,
    ranker: await rankerOf(ranker, rankedSkills(kept), options.fs, build),
  };
}

/** The stored ranker over `ranked`: its postings and, with `instructions`, the instructions' index (bodies read now). */
async function rankerOf(
  builder: RankerBuilder,
  ranked: readonly SkillEntry[],
  fs: SkillsFileSystem,
  { instructions, progress: report }: IndexBuildOptions,
): Promise<PrebuiltRankerData> {
  report?.('building the ranker', 0);
  const ranker: PrebuiltRankerData = {
    ...builder.rankerData(ranked),
    nameOrder: sortedByName(ranked.length, (doc) => (ranked[doc] as SkillEntry).metadata.name),
  };
  if (instructions !== true) return ranker;
  const bodies = builder.bodies(ranked.length);
  report?.('reading the instructions', 0, ranked.length);
  // In doc order, a few files at a time: no more than those are held (in-order.ts). One that cannot be read
  // now is left out: that skill is ranked by its metadata.
  await readInOrder(
    ranked.length,
    MAX_CONCURRENT_FS_CALLS,
    (doc) =>
      fs.readFile((ranked[doc] as SkillEntry).path, 'utf8').then(
        (text): string | undefined => splitFrontmatter(text).body,
        () => undefined,
      ),
    (doc, body) => {
      if (body !== undefined) bodies.add(doc, body);
      report?.('reading the instructions', doc + 1, ranked.length);
    },
  );
  report?.("building the instructions' index", 0);
  const body = bodies.data();
  return body === undefined ? ranker : { ...ranker, body };
}

function recordOf(entry: SkillEntry, stamp: SkillStamp, encode: (path: string) => string): PrebuiltSkillRecord {
  const record: PrebuiltSkillRecord = {
    directory: encode(entry.directory),
    size: stamp.size,
    mtimeMs: stamp.mtimeMs,
    metadata: entry.metadata,
  };
  if (entry.path !== skillFileIn(entry.directory)) record.file = encode(entry.path);
  const specials: SpecialNumber[] = [];
  if (!jsonCarries(entry.metadata)) {
    record.metadata = withoutSpecials(entry.metadata, [], specials) as SkillMetadata;
    if (specials.length > 0) record.specials = specials;
  }
  return record;
}

function vanishedAtBuild(entry: SkillEntry, error: unknown): Diagnostic {
  return createDiagnostic(
    'SKILL_UNREADABLE',
    entry.path,
    `cannot read ${SKILL_FILE} while building the index: ${errorReason(error)}. Check the file, then build the index again; the skill was left out.`,
  );
}

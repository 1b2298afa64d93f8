/**
 * The offline builder (`sisu-skills index`): discovers the skills once,
 * stamps each SKILL.md, builds the ranker's index (and with `instructions`,
 * the instructions' index) and returns the document, which
 * `serializePrebuiltIndex` turns into the file's text. The CLI's alone: no
 * module on the middleware's path imports it (test/prebuilt-layout.test.ts).
 * The ranker's data is the ranker's to make: the builder is given a
 * RankerBuilder (catalog's RANKER_BUILDER), from the layer above.
 */
import { version as packageVersion } from '../../../package.json';
import { createLimiter, MAX_CONCURRENT_FS_CALLS } from '../../base/concurrency.js';
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
import { base64Of } from './codec-arrays.js';
import { jsonCarries, withoutSpecials, type SpecialNumber } from './codec-numbers.js';
import { pathEncoder, skillFileIn } from './codec-paths.js';
import {
  PREBUILT_INDEX_FORMAT,
  PREBUILT_INDEX_VERSION,
  rankedSkills,
  type DiscoveryShape,
  type PrebuiltIndexDocument,
  type PrebuiltRanker,
  type PrebuiltSkillRecord,
  type SkillStamp,
} from './format.js';
import { encodeBody, encodeRanker } from './ranker-block.js';
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
      const result = await discoverOnce(resolved, scanIn({ frontmatterOnly: true, trust: build.trust }));
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
  const run = createLimiter(MAX_CONCURRENT_FS_CALLS);
  const errors = [...result.errors];
  const stamped = await Promise.all(
    result.skills.map(async (entry) => {
      try {
        const stats = await run(() => options.fs.stat(entry.path));
        return { entry, stamp: { size: stats.size, mtimeMs: stats.mtimeMs } };
      } catch (error) {
        errors.push(vanishedAtBuild(entry, error));
        return undefined;
      }
    }),
  );
  const skills: PrebuiltSkillRecord[] = [];
  const kept: SkillEntry[] = [];
  for (const item of stamped) {
    if (item) {
      skills.push(recordOf(item.entry, item.stamp, encode));
      kept.push(item.entry);
    }
  }
  const encodeDiagnostic = (d: Diagnostic): Diagnostic => ({ ...d, file: encode(d.file) });
  return {
    format: PREBUILT_INDEX_FORMAT,
    version: PREBUILT_INDEX_VERSION,
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
    ranker: await rankerOf(ranker, rankedSkills(kept), options.fs, build.instructions === true, run),
  };
}

/** The stored ranker over `ranked`: its postings and, with `instructions`, the instructions' index (bodies read now). */
async function rankerOf(
  builder: RankerBuilder,
  ranked: readonly SkillEntry[],
  fs: SkillsFileSystem,
  instructions: boolean,
  run: <T>(task: () => Promise<T>) => Promise<T>,
): Promise<PrebuiltRanker> {
  const ranker = encodeRanker(builder.rankerData(ranked));
  ranker.nameOrder = base64Of(sortedByName(ranked.length, (doc) => (ranked[doc] as SkillEntry).metadata.name));
  if (!instructions) return ranker;
  // A body that cannot be read now is left out: that skill is ranked by its metadata.
  const bodies = await Promise.all(
    ranked.map((entry) =>
      run(() => fs.readFile(entry.path, 'utf8')).then(
        (text) => splitFrontmatter(text).body,
        () => undefined,
      ),
    ),
  );
  const body = builder.bodyData(bodies);
  // No body read (none could be): nothing to store, the ranker reads metadata only.
  return body === undefined ? ranker : { ...ranker, body: encodeBody(body) };
}

/**
 * The document as the file's text: one line per skill, so a diff of two
 * builds reads skill by skill; the ranker last. ASCII only: every other
 * character is written as a JSON `\\uXXXX` escape, the same value to any JSON
 * reader. A text with one character past ASCII is decoded from UTF-8, and
 * held, at two bytes a character: at 20,000 real-shaped skills (3,415 such
 * characters in 14.7 MB) that took 35 ms of start-up instead of 10 ms, and
 * the text held 29 MB instead of 14.7 MB while it was parsed.
 */
export function serializePrebuiltIndex(document: PrebuiltIndexDocument): string {
  const { skills, ranker, ...head } = document;
  const top = JSON.stringify(head, null, 2).slice(0, -2);
  const lines = skills.map((skill) => `    ${JSON.stringify(skill)}`);
  const rankerText = JSON.stringify(ranker, null, 2).split('\n').join('\n  ');
  const text = `${top},\n  "skills": [${lines.length > 0 ? `\n${lines.join(',\n')}\n  ` : ''}],\n  "ranker": ${rankerText}\n}\n`;
  return asciiJson(text);
}

/**
 * JSON text with each character past ASCII as a `\\uXXXX` escape. Outside
 * strings JSON has only ASCII, so every such character is inside a string,
 * where the escape means the same character; a surrogate pair becomes two
 * escapes, which JSON reads back as the same pair.
 */
function asciiJson(text: string): string {
  return text.replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
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

/**
 * The prebuilt index file's format: its name and version, its sections, and
 * the document `build.ts` makes and writes. The file (format 3) is a
 * container of zlib sections (codec-container.ts): the skills column by
 * column (codec-skills.ts), their diagnostics, the ranker's index
 * (codec-ranker.ts), the vectors; paths relative to the file's folder
 * (codec-paths.ts). Which skills the stored ranker counts is `rankedSkills`'s.
 */
import { isModelInvocable } from '../../metadata/invocation.js';
import type { Diagnostic } from '../../base/diagnostics.js';
import type { ResolvedOptions } from '../../config/options.js';
import { firstOfEachName } from '../../index/skill-index.js';
import type { SkillEntry } from '../../base/model.js';
import type { SkillRecord } from './codec-skills.js';
import type { PrebuiltRankerData } from './codec-ranker.js';

export const PREBUILT_INDEX_FORMAT = 'sisu-skills-index';
/**
 * Bump whenever the file's layout or meaning changes; a reader takes this
 * version only (an index of another is refused with INDEX_UNUSABLE: rebuild
 * it). 1 and 2 were JSON (2 added the ranker); 3 is the compact container.
 */
export const PREBUILT_INDEX_VERSION = 3;
/** What an index published to a bucket is stored as: bytes, not text. */
export const INDEX_CONTENT_TYPE = 'application/octet-stream';

/**
 * The sections of a file of format 3 (codec-container.ts), by name. A reader
 * skips a section it does not know: a later writer may add one (issue 41's
 * manifests) without a new version, as long as what is here keeps its meaning.
 */
export const SECTIONS = {
  /** The skills, column by column (codec-skills.ts). */
  skills: 'skills',
  /** `{ errors, warnings }`: discovery's diagnostics, their files encoded (JSON). */
  diagnostics: 'diagnostics',
  /** The ranker's index (codec-ranker.ts). */
  ranker: 'ranker',
  /** The instructions' index, with `--instructions` (codec-ranker.ts). */
  body: 'ranker.body',
  /** The skills' vectors with `--embeddings`, as src/meaning/vector-file.ts makes them (JSON). */
  vectors: 'vectors',
  /** Reserved for issue 41: the signed manifests of the places the index was built from. */
  manifests: 'manifests',
} as const;

/** The sections this package reads and writes itself: another feature's data goes in a section of another name. */
export const OWN_SECTIONS: ReadonlySet<string> = new Set<string>([
  SECTIONS.skills,
  SECTIONS.diagnostics,
  SECTIONS.ranker,
  SECTIONS.body,
  SECTIONS.vectors,
]);

/** The header of a file of format 3: what the build knew (the table of sections is the container's). */
export interface IndexHeader {
  /** The @sisu-ai/mw-skills version that wrote it (information: compatibility is the version's). */
  packageVersion: string;
  /** ISO date of the build. */
  createdAt: string;
  /** The options that shaped discovery, folders encoded. */
  options: DiscoveryShape;
  scannedDirectories: string[];
  /** How many skills the `skills` section holds. */
  skillCount: number;
}

/** What a SKILL.md looked like when the index was built. */
export interface SkillStamp {
  size: number;
  mtimeMs: number;
}

/** The options that decide which skills discovery finds: an index built with others is not used. */
export type DiscoveryShape = Pick<ResolvedOptions, 'directories' | 'packages' | 'include' | 'exclude' | 'strict'>;

/** One skill as stored: metadata, folder (paths encoded, see `encodePath`), SKILL.md stamp. */
export type PrebuiltSkillRecord = SkillRecord;

/** What `build.ts` makes and `serializePrebuiltIndex` writes. */
export interface PrebuiltIndexDocument extends Omit<IndexHeader, 'skillCount'> {
  errors: Diagnostic[];
  warnings: Diagnostic[];
  skills: PrebuiltSkillRecord[];
  /**
   * The ranker's index over the skills the model may activate (see
   * `rankedSkills`), with the instructions' index when built with them;
   * what terms and weights mean is `scheme`'s.
   */
  ranker: PrebuiltRankerData;
  /** The skills' vectors (`sisu-skills index --embeddings`), by content key: src/meaning/vector-file.ts. */
  vectors?: unknown;
  /**
   * More sections, written as given (a reader skips names it does not know):
   * how another feature carries its own data in the index (issue 41's
   * `manifests`). The names of SECTIONS are taken.
   */
  sections?: ReadonlyMap<string, Uint8Array>;
}

/**
 * The skills a middleware's ranker ranks, in its order: the index's skills
 * (first of each name) that the model may activate, as `libraryOf` narrows
 * them. Doc numbers in the stored ranker are positions in this list.
 */
export function rankedSkills<S extends SkillEntry>(skills: readonly S[]): S[] {
  return firstOfEachName(skills).filter((entry) => isModelInvocable(entry.metadata));
}

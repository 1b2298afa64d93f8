/**
 * The prebuilt index file's format: its name and versions, and the shape of
 * the JSON document `build.ts` writes and `read.ts` reads. A skill is stored
 * with its metadata, folder and SKILL.md stamp; the ranker's index as text
 * (`ranker-block.ts`); paths relative to the file's folder (`codec-paths.ts`).
 * Which skills the stored ranker counts is `rankedSkills`'s.
 */
import { isModelInvocable } from '../../metadata/invocation.js';
import type { Diagnostic } from '../../base/diagnostics.js';
import type { ResolvedOptions } from '../../config/options.js';
import { firstOfEachName } from '../../index/skill-index.js';
import type { SkillEntry, SkillMetadata } from '../../base/model.js';
import type { SpecialNumber } from './codec-numbers.js';

export const PREBUILT_INDEX_FORMAT = 'sisu-skills-index';
/**
 * Bump whenever the document's shape or meaning changes. 2 added `ranker`;
 * a reader also takes the versions in READABLE_VERSIONS (1: no ranker, which
 * then ranks as after a scan, from the skills' texts).
 */
export const PREBUILT_INDEX_VERSION = 2;
export const READABLE_VERSIONS: readonly unknown[] = [1, PREBUILT_INDEX_VERSION];

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
} as const;

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
  skills: number;
}

/** What a SKILL.md looked like when the index was built. */
export interface SkillStamp {
  size: number;
  mtimeMs: number;
}

/** The options that decide which skills discovery finds: an index built with others is not used. */
export type DiscoveryShape = Pick<ResolvedOptions, 'directories' | 'packages' | 'include' | 'exclude' | 'strict'>;

/** One skill as stored. Paths are encoded (see `encodePath`). */
export interface PrebuiltSkillRecord extends SkillStamp {
  directory: string;
  /** Only when SKILL.md is not `<directory>/SKILL.md`. */
  file?: string;
  metadata: SkillMetadata;
  /** Numbers in `metadata` that JSON turned into null, restored on reading. */
  specials?: SpecialNumber[];
}

/**
 * The ranker's index over the skills the model may activate (see
 * `rankedSkills`), as `RankerData` in text: typed arrays as base64 of their
 * little-endian bytes, terms joined by spaces (a term is letters and digits
 * only). Loading it decodes the arrays and tokenises nothing. Fields may be
 * added (a reader ignores what it does not know); what terms and weights
 * mean is `scheme`'s, and data of another scheme is not used.
 */
export interface PrebuiltRanker {
  scheme: string;
  count: number;
  terms: string;
  offsets: string;
  /** 16 or 32: the width of each doc number in `docs`. */
  docBits: 16 | 32;
  docs: string;
  weights: string;
  /**
   * The ranked skills' doc numbers sorted by name (int32, base64): the order a
   * ranked catalog finds its entries in, so start-up does not sort 20,000 names.
   * Added within format 2: a reader without it sorts them itself.
   */
  nameOrder?: string;
  /** The instructions' index over the same skills (written unless `rankInstructions: false`). */
  body?: PrebuiltBody;
}

/**
 * The instructions' terms (src/catalog/body-terms.ts) in the ranker's text form, plus
 * each term's IDF (float32, base64), the IDF of a term one body holds, and
 * how many bodies were read. Data of another `scheme` (BODY_SCHEME) is not used:
 * the middleware then reads the bodies in the background, as after a scan.
 */
export interface PrebuiltBody {
  scheme: string;
  count: number;
  read: number;
  terms: string;
  offsets: string;
  docBits: 16 | 32;
  docs: string;
  weights: string;
  idf: string;
  rareIdf: number;
}

export interface PrebuiltIndexDocument {
  format: typeof PREBUILT_INDEX_FORMAT;
  version: typeof PREBUILT_INDEX_VERSION;
  /** The @sisu-ai/mw-skills version that wrote it (information: compatibility is `version`'s). */
  packageVersion: string;
  /** ISO date of the build. */
  createdAt: string;
  options: DiscoveryShape;
  scannedDirectories: string[];
  errors: Diagnostic[];
  warnings: Diagnostic[];
  skills: PrebuiltSkillRecord[];
  ranker: PrebuiltRanker;
  /** The skills' vectors (`sisu-skills index --embeddings`), by content key: src/meaning/vector-file.ts. Added within format 2. */
  vectors?: unknown;
}

/**
 * The skills a middleware's ranker ranks, in its order: the index's skills
 * (first of each name) that the model may activate, as `libraryOf` narrows
 * them. Doc numbers in the stored ranker are positions in this list.
 */
export function rankedSkills<S extends SkillEntry>(skills: readonly S[]): S[] {
  return firstOfEachName(skills).filter((entry) => isModelInvocable(entry.metadata));
}

/**
 * What every request needs from one index, worked out once per index: the
 * skills the model may see, their catalog and ranker, and which `always`
 * names exist. A loaded index builds its library once and owns it, with one
 * library per visible part it keeps (src/runtime/loaded-index.ts); a run
 * holds the library of the part it sees. What has been logged about a
 * library is kept apart from its data, in its `log`.
 */
import { isModelInvocable } from '../metadata/invocation.js';
import { bodiesOfPart, indexBodies, indexedAlready, type BodyIndexing } from '../catalog/body-indexer.js';
import type { PrebuiltRankerData } from '../index/prebuilt/codec-ranker.js';
import { BACKGROUND_DEFAULTS } from '../config/defaults.js';
import { catalogEntries, createCatalog, type Catalog, type CatalogMode } from '../catalog/catalog.js';
import type { ResolvedOptions } from '../config/options.js';
import type { BodyAwareRanker } from '../catalog/rank/score.js';
import type { RankerData } from '../base/ranker-data.js';
import { narrowIndex, type SkillIndex } from '../index/skill-index.js';
import { suggestNames } from '../catalog/suggest.js';
import { FIND_SKILLS_TOOL, USE_SKILL_TOOL } from '../base/tool-names.js';
import { SkillRanker } from '../catalog/skill-ranker.js';
import type { MeaningRuntime } from '../meaning/meaning-runtime.js';
import type { SkillMeaning } from '../meaning/skill-meaning.js';
import type { SkillEntry } from '../base/model.js';
import type { SkillsFileSystem } from '../base/fs.js';
import type { Diagnostic } from '../base/diagnostics.js';
import { isObjectUrl } from '../base/object-url.js';

/** What the middleware has logged about a library, so each request logs only what is new. */
export class LibraryLog {
  /** Discovery, by the first request that uses the index, even when the one that started the scan was aborted. */
  discovery = false;
  /** The instructions' indexing, by the first request after it ended. */
  bodies = false;
  /** The over-budget mode last logged at info level, so each library logs it once. */
  mode: CatalogMode | undefined;
  /** A prebuilt index's damaged postings (rankingDamage), by the first request after ranking found them. */
  damage = false;
}

export interface Library {
  readonly index: SkillIndex;
  /** The skills the model may see and activate (no `disable-model-invocation`). */
  readonly modelIndex: SkillIndex;
  readonly catalog: Catalog;
  /**
   * The ranker over `modelIndex`'s skills, built on first use: only ranked
   * catalogs, find_skills, autoActivate and suggestions need it. One per
   * library, so the catalog and find_skills always rank alike.
   */
  ranker(): BodyAwareRanker;
  /**
   * `ranker`, fused with meaning when the `embeddings` option is set: the
   * catalog, find_skills and suggestions rank with it; autoActivate and the
   * instructions' reading use `ranker` (words).
   */
  searchRanker(): BodyAwareRanker;
  /** Meaning over `modelIndex`'s skills (only theirs are compared); undefined without `embeddings`. */
  readonly meaning: SkillMeaning | undefined;
  /** The ranker over `index`'s skills (read_skill_resource's suggestions): `ranker` when every skill is model-invocable. */
  indexRanker(): BodyAwareRanker;
  /** Reading the instructions for the ranker, in the background (undefined with `rankInstructions: false`). */
  readonly bodies: BodyIndexing | undefined;
  /** Whether runs on this index get find_skills: the catalog names it exactly when it needs it (fixed per index, not per query). */
  readonly search: boolean;
  /** The `always` names this index has, and those it has not (warned about once per index). */
  readonly always: readonly string[];
  readonly unknownAlways: readonly string[];
  /**
   * The first of a prebuilt index's terms whose postings ranking found damaged
   * as it decoded them (a term at a time, when first asked for: that term then
   * ranks nothing), as one INDEX_UNUSABLE warning; undefined while none is.
   */
  rankingDamage(): Diagnostic | undefined;
  /**
   * For a whole index: the SKILL.md files reading the instructions will GET from a bucket, when a prebuilt index
   * that does not hold them stands for the skills (bucketReadsOf); 0 for a visible part. Logged once, with how to avoid it.
   */
  readonly bucketReads: number;
  /** What has been logged about this library. */
  readonly log: LibraryLog;
}

/** What a prebuilt index saved for a whole index: the ranker's data over its model-invocable skills, and its vectors block. */
export interface SavedRanking {
  ranker?: PrebuiltRankerData | undefined;
  /** As stored (src/meaning/vector-file.ts decodes it). */
  vectors?: unknown;
}

/** Makes the libraries of one middleware: whole indexes' (the newest reads the instructions in the background) and their visible parts'. */
export class Libraries {
  /** The newest whole library: a newer index stops its background reading, and that of its visible parts. */
  private latest: Library | undefined;

  constructor(
    private readonly options: ResolvedOptions,
    /** Meaning (the `embeddings` option). */
    private readonly meaning?: MeaningRuntime,
  ) {}

  /** The library of a whole index, seeded with what its prebuilt index saved: now the newest. */
  whole(index: SkillIndex, saved: SavedRanking = {}): Library {
    const meaning = this.meaning && { runtime: this.meaning, vectors: saved.vectors };
    const library = libraryOf(index, this.options, meaning, { whole: true, saved: saved.ranker });
    this.latest?.bodies?.stop();
    this.latest = library;
    return library;
  }

  /** The library of `part`, a visible part of the index whose library is `whole`: it shares the whole's reading of the instructions. */
  part(whole: Library, part: SkillIndex): Library {
    // A part's meaning compares only its skills; the vectors are the whole's.
    const meaning = this.meaning && { runtime: this.meaning, vectors: undefined };
    return libraryOf(part, this.options, meaning, { whole: false, of: whole });
  }

  /** Stops reading the instructions in the background (the middleware was closed): ranking stays as it is. */
  close(): void {
    this.latest?.bodies?.stop();
  }

  /** Resolves when the newest index's instructions are ranked, starting their reading now if it waits (nothing to wait for before a first request). */
  async instructionsRanked(): Promise<void> {
    const bodies = this.latest?.bodies;
    if (!bodies) return;
    bodies.start();
    await bodies.done;
  }
}

/** The middleware's meaning, and the prebuilt index's vectors block for a whole index (undefined for a part or without one). */
interface MeaningOf {
  runtime: MeaningRuntime;
  vectors: unknown;
}

/**
 * What a library starts from. A whole index's: the ranker a prebuilt index
 * holds over its model-invocable skills (`saved`), used instead of building
 * one. A visible part's: the library of the whole index (`of`), whose
 * reading of the instructions it shares.
 */
type LibraryBasis = { whole: true; saved: PrebuiltRankerData | undefined } | { whole: false; of: Library };

function libraryOf(index: SkillIndex, options: ResolvedOptions, meaningOf: MeaningOf | undefined, basis: LibraryBasis): Library {
  const saved = basis.whole ? basis.saved : undefined;
  const modelIndex = narrowIndex(index, (entry) => isModelInvocable(entry.metadata));
  // With `rankInstructions: false`, instructions' terms an index holds are not used either.
  const ranking = new SkillRanker(modelIndex.skills);
  if (saved) ranking.seed(options.rankInstructions ? saved : withoutInstructions(saved));
  const ranker = (): BodyAwareRanker => ranking.get();
  const { meaning, searchRanker } = withMeaning(modelIndex.skills, ranker, basis.whole, meaningOf);
  const catalog = createCatalog(catalogEntries(modelIndex.skills), {
    budget: options.catalogBudget,
    ranker: searchRanker,
    toolName: USE_SKILL_TOOL,
    // null: find_skills is never registered, so the catalog must not name it.
    findToolName: options.findSkills === false ? null : FIND_SKILLS_TOOL,
    // The index's ranked skills are modelIndex.skills, in this order (rankedSkills).
    nameOrder: saved?.nameOrder,
    // An index's names are distinct (firstOfEachName).
    uniqueNames: true,
  });
  const bodies = basis.whole ? bodiesOf(modelIndex, ranker, saved, options) : bodiesOfWhole(basis.of, modelIndex, ranker);
  const indexRanking = modelIndex === index ? undefined : new SkillRanker(index.skills);
  return Object.freeze({
    index,
    modelIndex,
    ranker,
    searchRanker,
    meaning,
    indexRanker: indexRanking ? () => indexRanking.get() : ranker,
    bodies,
    catalog,
    search: (options.findSkills ?? catalog.needsSearch) && modelIndex.skills.length > 0,
    always: options.always.filter((name) => index.get(name) !== undefined),
    unknownAlways: options.always.filter((name) => index.get(name) === undefined),
    rankingDamage: () => saved?.pending?.damage ?? saved?.body?.pending?.damage,
    bucketReads: basis.whole ? bucketReadsOf(modelIndex, bodies, saved, options.directories) : 0,
    log: new LibraryLog(),
  });
}

/** A whole index's reading of the instructions: none to do when its prebuilt index gave the ranker their terms, else in the background. */
function bodiesOf(
  modelIndex: SkillIndex,
  ranker: () => BodyAwareRanker,
  saved: PrebuiltRankerData | undefined,
  options: { rankInstructions: boolean; fs: SkillsFileSystem },
): BodyIndexing | undefined {
  // A prebuilt index built with the instructions gave the ranker their terms: nothing to read.
  if (saved?.body !== undefined && options.rankInstructions && ranker().bodyAware) return indexedAlready(saved.body.read);
  if (!options.rankInstructions || modelIndex.skills.length === 0) return undefined;
  return indexBodies({ skills: modelIndex.skills, ranker, fs: options.fs, delayMs: BACKGROUND_DEFAULTS.instructionsIndexDelayMs });
}

/** A visible part's reading of the instructions: the whole's, as far as it concerns the part's skills. */
function bodiesOfWhole(whole: Library, modelIndex: SkillIndex, ranker: () => BodyAwareRanker): BodyIndexing | undefined {
  return (
    whole.bodies &&
    bodiesOfPart({
      whole: whole.bodies,
      wholeRanker: () => whole.ranker(),
      wholeNames: whole.modelIndex.skills.map((entry) => entry.metadata.name),
      ranker,
      names: modelIndex.skills.map((entry) => entry.metadata.name),
    })
  );
}

/** Meaning over `skills` and the ranker fusing it with `ranker`'s words; `ranker` itself without `embeddings`. */
function withMeaning(
  skills: readonly SkillEntry[],
  ranker: () => BodyAwareRanker,
  whole: boolean,
  meaningOf: MeaningOf | undefined,
): { meaning: SkillMeaning | undefined; searchRanker: () => BodyAwareRanker } {
  if (!meaningOf) return { meaning: undefined, searchRanker: ranker };
  const { runtime, vectors } = meaningOf;
  const meaning = runtime.over(skills, whole, vectors);
  let hybrid: BodyAwareRanker | undefined;
  return { meaning, searchRanker: () => (hybrid ??= runtime.hybrid(ranker(), meaning)) };
}

function withoutInstructions({ scheme, count, terms, offsets, docs, weights, pending }: RankerData): RankerData {
  return { scheme, count, terms, offsets, docs, weights, ...(pending ? { pending } : {}) };
}

/**
 * The SKILL.md files reading a whole index's instructions will GET from a bucket: its ranked skills in s3:// places,
 * when it reads the files (not the instructions' terms a prebuilt index holds) and a prebuilt index stands for them.
 * After a scan, discovery has read those files already; 0 when nothing is read (`rankInstructions: false`).
 */
function bucketReadsOf(
  modelIndex: SkillIndex,
  bodies: BodyIndexing | undefined,
  saved: PrebuiltRankerData | undefined,
  directories: readonly string[],
): number {
  const readsFiles = bodies !== undefined && bodies.outcome?.from !== 'index';
  // Skills lie in the configured directories (an index's outside them is refused): with no bucket among them, none
  // is in a bucket, and 20,000 skills' paths need no look (3 ms of the first request from an index, profiled).
  if (!saved || !readsFiles || !directories.some(isObjectUrl)) return 0;
  return modelIndex.skills.filter((entry) => isObjectUrl(entry.path)).length;
}

/** Up to three known names for an unknown `name`, for a warning (rare: built only then). */
export function suggestionsFor(library: Library, name: string): string[] {
  const names = library.index.skills.map((entry) => entry.metadata.name);
  return suggestNames(
    {
      names,
      rank: (query, limit) =>
        library
          .searchRanker()
          .rank(query, limit)
          .map((r) => r.name),
    },
    name,
    3,
  );
}

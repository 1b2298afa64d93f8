/**
 * What every request needs from one index, worked out once per index: the
 * skills the model may see, their catalog and ranker, and which `always`
 * names exist. Also what has been logged about the index, so each request
 * logs only what is new.
 */
import { isModelInvocable } from '../metadata/invocation.js';
import { bodiesOfPart, indexBodies, indexedAlready, type BodyIndexing } from '../catalog/body-indexer.js';
import type { PrebuiltRankerData } from './prebuilt/ranker-block.js';
import { BACKGROUND_DEFAULTS } from '../config/defaults.js';
import { catalogEntries, createCatalog, type Catalog, type CatalogMode } from '../catalog/catalog.js';
import type { ResolvedOptions } from '../config/options.js';
import type { BodyAwareRanker } from '../catalog/rank/score.js';
import type { RankerData } from '../base/ranker-data.js';
import { narrowIndex, type SkillIndex } from '../index/skill-index.js';
import { suggestNames } from '../catalog/suggest.js';
import { FIND_SKILLS_TOOL, USE_SKILL_TOOL } from '../base/tool-names.js';
import { SkillRanker } from '../catalog/skill-ranker.js';
import { visibilityKey, withoutSkills } from '../run/visibility.js';
import type { MeaningRuntime } from './meaning.js';
import type { SkillMeaning } from '../meaning/skill-meaning.js';
import type { SkillEntry } from '../base/model.js';
import { isS3Url } from '../base/s3-url.js';

/**
 * Distinct visible sets kept per index (most recently used first). Each holds
 * its own catalog and, once a request needs it, its own ranker (whose
 * postings grow with the terms queries ask for): a server whose users fall
 * into a few groups keeps each group's.
 */
export const KEPT_VISIBLE_SETS = 16;

export interface Library {
  index: SkillIndex;
  /** The skills the model may see and activate (no `disable-model-invocation`). */
  modelIndex: SkillIndex;
  catalog: Catalog;
  /**
   * The ranker over `modelIndex`'s skills, built on first use: only ranked
   * catalogs, find_skills, autoActivate and suggestions need it. One per
   * library, so the catalog and find_skills always rank alike.
   */
  ranker: () => BodyAwareRanker;
  /**
   * `ranker`, fused with meaning when the `embeddings` option is set: the
   * catalog, find_skills and suggestions rank with it; autoActivate and the
   * instructions' reading use `ranker` (words).
   */
  searchRanker: () => BodyAwareRanker;
  /** Meaning over `modelIndex`'s skills (only theirs are compared); undefined without `embeddings`. */
  meaning: SkillMeaning | undefined;
  /** The ranker over `index`'s skills (read_skill_resource's suggestions): `ranker` when every skill is model-invocable. */
  indexRanker: () => BodyAwareRanker;
  /** Reading the instructions for the ranker, in the background (undefined with `rankInstructions: false`). */
  bodies: BodyIndexing | undefined;
  /** Whether runs on this index get find_skills: the catalog names it exactly when it needs it (fixed per index, not per query). */
  search: boolean;
  /** The `always` names this index has, and those it has not (warned about once per index). */
  always: string[];
  unknownAlways: string[];
  /** How long the discovery that built the index took, in milliseconds. */
  durationMs?: number;
  /** Discovery is logged by the first request that uses the index, even when the one that started the scan was aborted. */
  logged: boolean;
  /**
   * For a whole index: the SKILL.md files reading the instructions will GET from a bucket, when a prebuilt index
   * that does not hold them stands for the skills (bucketReadsOf). Logged once, with how to avoid it.
   */
  bucketReads?: number;
  /** The instructions' indexing is logged by the first request after it ended. */
  loggedBodies?: boolean;
  /** The over-budget mode last logged at info level, so each index logs it once. */
  loggedMode?: CatalogMode;
  /** The parts of this index that requests with `visible` saw, by hidden set (visibilityKey), least recently used first. */
  views: Map<string, SkillIndex>;
}

/**
 * `prebuilt`: the ranker a prebuilt index holds over `index`'s model-invocable
 * skills, used instead of building one. `whole`: the library of the index
 * `index` is a visible part of, whose reading of the instructions it shares.
 */
export function libraryOf(
  index: SkillIndex,
  options: ResolvedOptions,
  prebuilt?: PrebuiltRankerData,
  whole?: Library,
  meaningOf?: MeaningOf,
): Library {
  const modelIndex = narrowIndex(index, (entry) => isModelInvocable(entry.metadata));
  // With `rankInstructions: false`, instructions' terms an index holds are not used either.
  const ranking = new SkillRanker(modelIndex.skills);
  if (prebuilt) ranking.seed(options.rankInstructions ? prebuilt : withoutInstructions(prebuilt));
  const ranker = (): BodyAwareRanker => ranking.get();
  const { meaning, searchRanker } = withMeaning(modelIndex.skills, ranker, whole === undefined, meaningOf);
  const catalog = createCatalog(catalogEntries(modelIndex.skills), {
    budget: options.catalogBudget,
    ranker: searchRanker,
    toolName: USE_SKILL_TOOL,
    // null: find_skills is never registered, so the catalog must not name it.
    findToolName: options.findSkills === false ? null : FIND_SKILLS_TOOL,
    // The index's ranked skills are modelIndex.skills, in this order (rankedSkills).
    nameOrder: prebuilt?.nameOrder,
  });
  // A prebuilt index built with the instructions gave the ranker their terms: nothing to read.
  const fromIndex = prebuilt?.body !== undefined && options.rankInstructions && ranker().bodyAware;
  const bodies = whole
    ? whole.bodies &&
      bodiesOfPart({
        whole: whole.bodies,
        wholeRanker: whole.ranker,
        wholeNames: whole.modelIndex.skills.map((entry) => entry.metadata.name),
        ranker,
        names: modelIndex.skills.map((entry) => entry.metadata.name),
      })
    : fromIndex
      ? indexedAlready(prebuilt?.body?.read ?? 0)
      : options.rankInstructions && modelIndex.skills.length > 0
        ? indexBodies({
            skills: modelIndex.skills,
            ranker,
            fs: options.fs,
            delayMs: BACKGROUND_DEFAULTS.instructionsIndexDelayMs,
          })
        : undefined;
  const indexRanking = modelIndex === index ? undefined : new SkillRanker(index.skills);
  return {
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
    logged: false,
    views: new Map(),
  };
}

/** The middleware's meaning, and the prebuilt index's vectors block for a whole index (undefined for a part or without one). */
export interface MeaningOf {
  runtime: MeaningRuntime;
  vectors: unknown;
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

function withoutInstructions({ scheme, count, terms, offsets, docs, weights }: RankerData): RankerData {
  return { scheme, count, terms, offsets, docs, weights };
}

/**
 * The SKILL.md files reading `library`'s instructions will GET from a bucket: its ranked skills in s3:// places,
 * when it reads the files (not the instructions' terms a prebuilt index holds) and a prebuilt index stands for them.
 * After a scan, discovery has read those files already; 0 when nothing is read (`rankInstructions: false`).
 */
function bucketReadsOf(library: Library, prebuilt: PrebuiltRankerData | undefined): number {
  const readsFiles = library.bodies !== undefined && library.bodies.outcome?.from !== 'index';
  return prebuilt && readsFiles ? library.modelIndex.skills.filter((entry) => isS3Url(entry.path)).length : 0;
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

/** One Library per index, kept as long as the index: a rebuilt index gets a new one. */
export class Libraries {
  // Keyed by our own index objects, so an old index's library is collected with it.
  private readonly byIndex = new WeakMap<SkillIndex, Library>();
  /** The newest library: a newer index stops its background reading, and that of its visible parts. */
  private latest: Library | undefined;
  /** The whole index of each part `visiblePart` made. */
  private readonly wholeOf = new WeakMap<SkillIndex, SkillIndex>();

  /** `rankerDataOf`: the ranker a prebuilt index held for an index (SkillSource.rankerDataOf). */
  constructor(
    private readonly options: ResolvedOptions,
    private readonly rankerDataOf: (index: SkillIndex) => PrebuiltRankerData | undefined = () => undefined,
    /** Meaning (the `embeddings` option) and the vectors block a prebuilt index held for an index. */
    private readonly meaning?: { runtime: MeaningRuntime; vectorsOf: (index: SkillIndex) => unknown },
  ) {}

  of(index: SkillIndex): Library {
    let library = this.byIndex.get(index);
    if (!library) {
      const whole = this.wholeOf.get(index);
      // A visible part shares the whole index's reading of the instructions; only a new whole index replaces it.
      const meaning = this.meaning && { runtime: this.meaning.runtime, vectors: whole ? undefined : this.meaning.vectorsOf(index) };
      library = whole
        ? libraryOf(index, this.options, undefined, this.of(whole), meaning)
        : libraryOf(index, this.options, this.rankerDataOf(index), undefined, meaning);
      this.byIndex.set(index, library);
      if (!whole) {
        this.latest?.bodies?.stop();
        this.latest = library;
        library.bucketReads = bucketReadsOf(library, this.rankerDataOf(index));
      }
    }
    return library;
  }

  /**
   * The part of `index` without the skills at `hidden` (positions in
   * `index.skills`): the same object for the same set while it is among the
   * KEPT_VISIBLE_SETS most recently used, so its library (catalog, ranker) is
   * reused. `index` itself when nothing is hidden.
   */
  visiblePart(index: SkillIndex, hidden: readonly number[]): SkillIndex {
    if (hidden.length === 0) return index;
    const { views } = this.of(index);
    const key = visibilityKey(hidden);
    let part = views.get(key);
    if (part) {
      views.delete(key);
    } else {
      part = withoutSkills(index, hidden);
      this.wholeOf.set(part, index);
      if (views.size >= KEPT_VISIBLE_SETS) views.delete(views.keys().next().value as string);
    }
    views.set(key, part);
    return part;
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

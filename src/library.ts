/**
 * What every request needs from one index, worked out once per index: the
 * skills the model may see, their catalog and ranker, and which `always`
 * names exist. Also what has been logged about the index, so each request
 * logs only what is new.
 */
import { isModelInvocable } from './activation.js';
import { indexBodies, indexedAlready, type BodyIndexing } from './body-indexer.js';
import { BACKGROUND_DEFAULTS } from './defaults.js';
import { catalogEntries, createCatalog, type Catalog, type CatalogMode } from './catalog.js';
import type { ResolvedOptions } from './options.js';
import type { BodyAwareRanker, RankerData } from './rank.js';
import { narrowIndex, type SkillIndex } from './skill-index.js';
import { suggestNames } from './suggest.js';
import { FIND_SKILLS_TOOL, USE_SKILL_TOOL } from './tool-names.js';
import { rankerForSkills, seedRanker } from './tools/find-skills.js';

export interface Library {
  index: SkillIndex;
  /** The skills the model may see and activate (no `disable-model-invocation`). */
  modelIndex: SkillIndex;
  catalog: Catalog;
  /** Built on first use: only ranked catalogs, find_skills, autoActivate and suggestions need it. */
  ranker: () => BodyAwareRanker;
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
  /** The instructions' indexing is logged by the first request after it ended. */
  loggedBodies?: boolean;
  /** The over-budget mode last logged at info level, so each index logs it once. */
  loggedMode?: CatalogMode;
}

/** `prebuilt`: the ranker a prebuilt index holds over `index`'s model-invocable skills, used instead of building one. */
export function libraryOf(index: SkillIndex, options: ResolvedOptions, prebuilt?: RankerData): Library {
  const modelIndex = narrowIndex(index, (entry) => isModelInvocable(entry.metadata));
  // With `rankInstructions: false`, instructions' terms an index holds are not used either.
  if (prebuilt) seedRanker(modelIndex.skills, options.rankInstructions ? prebuilt : withoutInstructions(prebuilt));
  const ranker = (): BodyAwareRanker => rankerForSkills(modelIndex.skills);
  const catalog = createCatalog(catalogEntries(modelIndex.skills), {
    budget: options.catalogBudget,
    ranker,
    toolName: USE_SKILL_TOOL,
    // null: find_skills is never registered, so the catalog must not name it.
    findToolName: options.findSkills === false ? null : FIND_SKILLS_TOOL,
  });
  // A prebuilt index built with the instructions gave the ranker their terms: nothing to read.
  const fromIndex = prebuilt?.body !== undefined && options.rankInstructions && ranker().bodyAware;
  const bodies = fromIndex
    ? indexedAlready(prebuilt?.body?.read ?? 0)
    : options.rankInstructions && modelIndex.skills.length > 0
      ? indexBodies({
          skills: modelIndex.skills,
          ranker,
          fs: options.fs,
          delayMs: BACKGROUND_DEFAULTS.instructionsIndexDelayMs,
        })
      : undefined;
  return {
    index,
    modelIndex,
    ranker,
    bodies,
    catalog,
    search: (options.findSkills ?? catalog.needsSearch) && modelIndex.skills.length > 0,
    always: options.always.filter((name) => index.get(name) !== undefined),
    unknownAlways: options.always.filter((name) => index.get(name) === undefined),
    logged: false,
  };
}

function withoutInstructions({ scheme, count, terms, offsets, docs, weights }: RankerData): RankerData {
  return { scheme, count, terms, offsets, docs, weights };
}

/** Up to three known names for an unknown `name`, for a warning (rare: built only then). */
export function suggestionsFor(library: Library, name: string): string[] {
  const names = library.index.skills.map((entry) => entry.metadata.name);
  return suggestNames(
    {
      names,
      rank: (query, limit) =>
        library
          .ranker()
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
  /** The newest library: a newer index stops its background reading. */
  private latest: Library | undefined;

  /** `rankerDataOf`: the ranker a prebuilt index held for an index (SkillSource.rankerDataOf). */
  constructor(
    private readonly options: ResolvedOptions,
    private readonly rankerDataOf: (index: SkillIndex) => RankerData | undefined = () => undefined,
  ) {}

  of(index: SkillIndex): Library {
    let library = this.byIndex.get(index);
    if (!library) {
      library = libraryOf(index, this.options, this.rankerDataOf(index));
      this.byIndex.set(index, library);
      this.latest?.bodies?.stop();
      this.latest = library;
    }
    return library;
  }

  /** Resolves when the newest index's instructions are ranked, starting their reading now if it waits (nothing to wait for before a first request). */
  async instructionsRanked(): Promise<void> {
    const bodies = this.latest?.bodies;
    if (!bodies) return;
    bodies.start();
    await bodies.done;
  }
}

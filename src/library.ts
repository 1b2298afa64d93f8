/**
 * What every request needs from one index, worked out once per index: the
 * skills the model may see, their catalog and ranker, and which `always`
 * names exist. Also what has been logged about the index, so each request
 * logs only what is new.
 */
import { isModelInvocable } from './activation.js';
import { catalogEntries, createCatalog, type Catalog, type CatalogMode } from './catalog.js';
import type { ResolvedOptions } from './options.js';
import type { Ranker, RankerData } from './rank.js';
import { narrowIndex, type SkillIndex } from './skill-index.js';
import { suggestNames } from './suggest.js';
import { FIND_SKILLS_TOOL, USE_SKILL_TOOL } from './tool-names.js';
import { rankerForSkills, seedRanker } from './tools/find-skills.js';
import { visibilityKey, withoutSkills } from './visibility.js';

/**
 * Distinct visible sets kept per index (most recently used first). Each holds
 * its own catalog and, once a request needs it, its own ranker (about 65 ms to
 * build at 2,000 skills): a server whose users fall into a few groups builds
 * each group's once.
 */
export const KEPT_VISIBLE_SETS = 16;

export interface Library {
  index: SkillIndex;
  /** The skills the model may see and activate (no `disable-model-invocation`). */
  modelIndex: SkillIndex;
  catalog: Catalog;
  /** Built on first use: only ranked catalogs, find_skills, autoActivate and suggestions need it. */
  ranker: () => Ranker;
  /** Whether runs on this index get find_skills: the catalog names it exactly when it needs it (fixed per index, not per query). */
  search: boolean;
  /** The `always` names this index has, and those it has not (warned about once per index). */
  always: string[];
  unknownAlways: string[];
  /** How long the discovery that built the index took, in milliseconds. */
  durationMs?: number;
  /** Discovery is logged by the first request that uses the index, even when the one that started the scan was aborted. */
  logged: boolean;
  /** The over-budget mode last logged at info level, so each index logs it once. */
  loggedMode?: CatalogMode;
  /** The parts of this index that requests with `visible` saw, by hidden set (visibilityKey), least recently used first. */
  views: Map<string, SkillIndex>;
}

/** `prebuilt`: the ranker a prebuilt index holds over `index`'s model-invocable skills, used instead of building one. */
export function libraryOf(index: SkillIndex, options: ResolvedOptions, prebuilt?: RankerData): Library {
  const modelIndex = narrowIndex(index, (entry) => isModelInvocable(entry.metadata));
  if (prebuilt) seedRanker(modelIndex.skills, prebuilt);
  const ranker = (): Ranker => rankerForSkills(modelIndex.skills);
  const catalog = createCatalog(catalogEntries(modelIndex.skills), {
    budget: options.catalogBudget,
    ranker,
    toolName: USE_SKILL_TOOL,
    // null: find_skills is never registered, so the catalog must not name it.
    findToolName: options.findSkills === false ? null : FIND_SKILLS_TOOL,
  });
  return {
    index,
    modelIndex,
    ranker,
    catalog,
    search: (options.findSkills ?? catalog.needsSearch) && modelIndex.skills.length > 0,
    always: options.always.filter((name) => index.get(name) !== undefined),
    unknownAlways: options.always.filter((name) => index.get(name) === undefined),
    logged: false,
    views: new Map(),
  };
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
      if (views.size >= KEPT_VISIBLE_SETS) views.delete(views.keys().next().value as string);
    }
    views.set(key, part);
    return part;
  }
}

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
}

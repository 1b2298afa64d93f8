/**
 * The ranker over one list of skills, built on first use and kept by the
 * object that holds the list: a Library for each of the middleware's indexes,
 * a hand-wired tool for the skills it was made with. Nothing is kept anywhere
 * else, so a rebuilt index (a new Library) gets a new ranker and the old one
 * goes with its Library.
 */
import { catalogEntries } from './catalog.js';
import { createRanker, type BodyAwareRanker } from './rank/score.js';
import { RANKER_SCHEME, rankerFromData } from './rank/data.js';
import type { RankerData } from '../base/ranker-data.js';
import type { SkillEntry } from '../base/model.js';

export class SkillRanker {
  private ranker: BodyAwareRanker | undefined;

  /** `instructions`: the skills' instructions, by position, when they are at hand (a hand-wired tool's skills). */
  constructor(
    private readonly skills: readonly SkillEntry[],
    private readonly instructions?: ReadonlyArray<string | undefined>,
  ) {}

  /**
   * The ranker, built on first use. It ranks the catalog's entries
   * (catalogEntries), so find_skills and a ranked catalog over the same
   * skills always agree.
   */
  get(): BodyAwareRanker {
    this.ranker ??= createRanker(catalogEntries(this.skills), this.instructions);
    return this.ranker;
  }

  /**
   * Make `data` (a prebuilt index's ranker, built over these skills' catalog
   * entries) the ranker, so nothing is tokenised at start-up. Data of another
   * scheme or over another number of skills is not used, nor is any once a
   * ranker exists (the ranker is then built from the skills as usual);
   * returns whether it was.
   */
  seed(data: RankerData): boolean {
    if (data.scheme !== RANKER_SCHEME || data.count !== this.skills.length || this.ranker) return false;
    this.ranker = rankerFromData(
      this.skills.map((entry) => entry.metadata.name),
      data,
    );
    return true;
  }
}

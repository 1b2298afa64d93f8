/**
 * One loaded index: the skills, where they came from (a scan, an index file,
 * an index object in a bucket), how long loading took, and what a prebuilt
 * index carried (the SKILL.md stamps, the ranker's data, the vectors). It
 * builds its library once, on first use, and owns it, with the libraries of
 * the visible parts requests asked for (the most recently used
 * KEPT_VISIBLE_SETS). A rebuilt index is a new LoadedIndex: nothing about an
 * index is kept anywhere but here.
 */
import type { SkillIndex } from '../index/skill-index.js';
import type { PrebuiltRankerData } from '../index/prebuilt/codec-ranker.js';
import type { SkillStamps } from '../index/prebuilt/stamps.js';
import { originOf, type IndexOrigin, type SkillsLoad } from '../index/skills-load.js';
import type { Libraries, Library } from '../run/library.js';
import { visibilityKey, withoutSkills } from '../run/visibility.js';

/**
 * Distinct visible sets kept per index (most recently used first). Each holds
 * its own catalog and, once a request needs it, its own ranker (whose
 * postings grow with the terms queries ask for): a server whose users fall
 * into a few groups keeps each group's.
 */
export const KEPT_VISIBLE_SETS = 16;

/** What is known of an index when it is loaded. */
export interface IndexFacts {
  readonly index: SkillIndex;
  readonly origin: IndexOrigin;
  /** How long the load that made it took, in milliseconds. */
  readonly durationMs: number;
  /** Each SKILL.md as a prebuilt index's build saw it: activation refuses one changed since. */
  readonly stamps?: SkillStamps | undefined;
  /** The ranker's data a prebuilt index holds over the model-invocable skills. */
  readonly ranker?: PrebuiltRankerData | undefined;
  /** The vectors block a prebuilt index holds, as stored. */
  readonly vectors?: unknown;
}

export class LoadedIndex implements IndexFacts {
  readonly index: SkillIndex;
  readonly origin: IndexOrigin;
  readonly durationMs: number;
  readonly stamps: SkillStamps | undefined;
  readonly ranker: PrebuiltRankerData | undefined;
  readonly vectors: unknown;
  private whole: Library | undefined;
  /** The visible parts' libraries, by hidden set (visibilityKey), least recently used first. */
  private readonly parts = new Map<string, Library>();

  constructor(
    facts: IndexFacts,
    private readonly libraries: Libraries,
  ) {
    this.index = facts.index;
    this.origin = facts.origin;
    this.durationMs = facts.durationMs;
    this.stamps = facts.stamps;
    this.ranker = facts.ranker;
    this.vectors = facts.vectors;
  }

  /** The library of the whole index, built on first use (the newest library from then on). */
  get library(): Library {
    this.whole ??= this.libraries.whole(this.index, { ranker: this.ranker, vectors: this.vectors });
    return this.whole;
  }

  /**
   * The library of the part without the skills at `hidden` (positions in
   * `index.skills`): the same for the same set while it is among the
   * KEPT_VISIBLE_SETS most recently used, so its catalog and ranker are
   * reused. The whole index's library when nothing is hidden.
   */
  visiblePart(hidden: readonly number[]): Library {
    const whole = this.library;
    if (hidden.length === 0) return whole;
    const key = visibilityKey(hidden);
    let part = this.parts.get(key);
    if (part) {
      this.parts.delete(key);
    } else {
      part = this.libraries.part(whole, withoutSkills(this.index, hidden));
      const oldest = this.parts.keys().next();
      if (this.parts.size >= KEPT_VISIBLE_SETS && !oldest.done) this.parts.delete(oldest.value);
    }
    this.parts.set(key, part);
    return part;
  }
}

/** The loaded index over `index`, made from `load` in `durationMs`. */
export function loadedIndexOf(load: SkillsLoad, index: SkillIndex, durationMs: number, libraries: Libraries): LoadedIndex {
  const facts: IndexFacts =
    load.from === 'scan'
      ? { index, origin: originOf(load), durationMs }
      : {
          index,
          origin: originOf(load),
          durationMs,
          stamps: load.discovery.stamps,
          ranker: load.discovery.ranker,
          vectors: load.discovery.vectors,
        };
  return new LoadedIndex(facts, libraries);
}

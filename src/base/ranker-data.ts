/**
 * A ranker's index as plain data: typed arrays and strings, nothing that
 * needs the ranker to read. The ranker makes it and ranks with it
 * (src/catalog/rank/data.ts); a prebuilt index encodes, stores, decodes and
 * carries it (src/index/prebuilt/) from a layer below the ranker, without
 * knowing what its terms and weights mean. Whether a block can be ranked
 * with is the ranker's to say: a reader is given a RankerFormat, a builder a
 * RankerBuilder. Types only.
 */
import type { Diagnostic } from './diagnostics.js';
import type { SkillEntry } from './model.js';

/**
 * Postings grouped by term, as stored: term t's postings are positions
 * offsets[t] to offsets[t + 1] - 1 of `docs` and `weights`.
 */
export interface PostingsData {
  /** The vocabulary, distinct and sorted by code unit: term id = position. */
  terms: readonly string[];
  /** terms.length + 1 of them, from 0 to docs.length. */
  offsets: Int32Array;
  /** Doc numbers, ascending within a term; 16 bits up to 65,536 entries. */
  docs: Uint16Array | Uint32Array;
  /** The saturated weight x 65,535, at least 1. */
  weights: Uint16Array;
  /**
   * Set when the postings are decoded a term at a time, as ranking first asks
   * for each term (a prebuilt index's: a first request asks a few of some
   * 30,000 terms): until a term is decoded its docs and weights are zeros.
   * Whoever reads docs or weights asks it first (PackedPostings does).
   */
  pending?: PendingPostings;
}

/** Postings a reader decodes and checks a term at a time, when first asked for (see PostingsData.pending). */
export interface PendingPostings {
  /**
   * Term `term`'s postings decoded into docs and weights (once; later calls
   * cost a look-up): true when they are, false when they are damaged (the
   * term then has no postings, and `damage` says so).
   */
  decode(term: number): boolean;
  /** The first damaged term found, as the one INDEX_UNUSABLE warning to log; undefined while none is. */
  readonly damage: Diagnostic | undefined;
}

/**
 * A built ranker's index: what the ranker ranks with, no text read again.
 * Field lengths and weights are folded into each posting's saturated weight
 * when it is built, so they are not kept apart.
 */
export interface RankerData extends PostingsData {
  /** The ranker scheme of the version that built it (RankerFormat.scheme). */
  scheme: string;
  /** Entries ranked: doc numbers are positions in the entry list (0 to count - 1). */
  count: number;
  /** The instructions' index over the same entries, when it was built with them: ranking reads it at once. */
  body?: BodyData;
}

/** The instructions' index (src/catalog/body-terms.ts) over a ranker's entries, as stored. */
export interface BodyData extends PostingsData {
  /** The body scheme of the version that built it (RankerFormat.bodyScheme). */
  scheme: string;
  /** Entries (docs) it was built for, read or not: the ranker's count. */
  count: number;
  /** Entries whose body it holds. */
  read: number;
  /** Each term's IDF over the bodies, as stored (32 bits). */
  idf: Float32Array;
  /** The IDF of a term only one body holds. */
  rareIdf: number;
}

/**
 * What a reader of stored ranker data needs from the ranker above it
 * (src/catalog/rank/data.ts gives RANKER_FORMAT): which schemes this version
 * ranks with (data of another is left out, not decoded), and why a decoded
 * block of that scheme cannot be ranked with, checked posting by posting (a
 * file is not trusted).
 */
export interface RankerFormat {
  readonly scheme: string;
  readonly bodyScheme: string;
  /**
   * The ranker's postings' problem, or undefined when they can be ranked with (its `body` is bodyProblem's).
   * `decoded`: the reader's decoding has checked every posting already (PostingsChecked), so only the terms,
   * offsets and counts are left to check, not one more pass over every posting.
   */
  problem(data: RankerData, decoded?: PostingsChecked): string | undefined;
  bodyProblem(body: BodyData, decoded?: PostingsChecked): string | undefined;
}

/**
 * What a reader promises of postings it decodes itself: within each term the
 * docs ascend strictly and lie under the entry count, and no weight is 0
 * (checked as each term is decoded, when the postings are `pending`).
 */
export const POSTINGS_CHECKED = 'postings-checked';
export type PostingsChecked = typeof POSTINGS_CHECKED;

/**
 * What an index builder below the ranker needs from it
 * (src/catalog/saved-ranker.ts gives RANKER_BUILDER): the ranker's data over
 * the skills it will rank, and the instructions' data from their bodies.
 */
export interface RankerBuilder {
  /** The ranker's data over `skills` (doc numbers are positions in it). */
  rankerData(skills: readonly SkillEntry[]): RankerData;
  /**
   * Collects the instructions' data over `count` skills, a body at a time as
   * each is read (the builder never holds every body at once: at 21,110
   * skills that was 160 MB of text).
   */
  bodies(count: number): BodyCollecting;
}

/** The instructions' data in the making: `add` each skill's body (SKILL.md after its frontmatter), in doc order; then `data`. */
export interface BodyCollecting {
  add(doc: number, body: string): void;
  /** The data over the bodies added; undefined when none was (the ranker then reads metadata only). */
  data(): BodyData | undefined;
}

/**
 * The ranker's saved form: a whole build as RankerData (src/base/ranker-data.ts),
 * which a prebuilt index stores, the schemes that say how its terms and
 * weights were made, the checks a stored block must pass, and a ranker made
 * from one without tokenising anything again. Loading it skips tokenising.
 */
import {
  POSTINGS_CHECKED,
  type BodyData,
  type PostingsChecked,
  type PostingsData,
  type RankerData,
  type RankerFormat,
} from '../../base/ranker-data.js';
import { bodyIndexOf, type BodyIndex } from '../body-terms.js';
import { buildIndex, FIELDS, K1, wholeIndex, type RankEntry } from './build.js';
import { PackedPostings } from './postings.js';
import { bodyAware, Bm25Ranker, RANK_TUNING, type BodyAwareRanker } from './score.js';
import { TOKENIZER_REVISION } from './tokenize.js';

/**
 * How a ranker's terms and weights were made: the tokenizer's revision, the
 * unit of field lengths (characters; earlier builds counted words), K1, and
 * each field's weight and b. Data made under another scheme (an index
 * written by another version) is not used: the ranker ranks from the
 * entries instead, as after a scan (INDEX_RANKER_OUTDATED says so).
 */
export const RANKER_SCHEME = `bm25f/${TOKENIZER_REVISION} length=chars k1=${K1} ${FIELDS.map((f) => `${f.key}:${f.weight}:${f.b}`).join(',')}`;

/** How a body index's terms and weights were made (RANK_TUNING.body and the tokenizer): stored body data of another scheme is not used. */
export const BODY_SCHEME = `body/${TOKENIZER_REVISION} k1=${K1} ${Object.entries(RANK_TUNING.body)
  .map(([key, value]) => `${key}:${String(value)}`)
  .join(',')}`;

/** What a prebuilt index's reader is given to judge the ranker data it holds (see RankerFormat). */
export const RANKER_FORMAT: RankerFormat = Object.freeze({
  scheme: RANKER_SCHEME,
  bodyScheme: BODY_SCHEME,
  problem: rankerDataProblem,
  bodyProblem: bodyDataProblem,
});

/** Build the ranker's index over `entries` now, as data (the prebuilt index stores it). */
export function buildRankerData(entries: ReadonlyArray<RankEntry>): RankerData {
  const { terms, postings } = buildIndex(entries, RANK_TUNING.fields);
  const { offsets, docs, weights } = postings;
  return { scheme: RANKER_SCHEME, count: entries.length, terms, offsets, docs, weights };
}

/** The instructions' index as data (a prebuilt index stores it), IDFs kept in 32 bits. */
export function bodyData(index: BodyIndex): BodyData {
  const { offsets, docs, weights } = index.postings;
  return {
    scheme: BODY_SCHEME,
    count: index.size,
    read: index.read,
    terms: index.terms,
    offsets,
    docs,
    weights,
    idf: Float32Array.from(index.idf),
    rareIdf: index.rareIdf,
  };
}

/**
 * Why `data` cannot be ranked with, or undefined when it can: every posting
 * is checked (a file is not trusted), so a query never reads out of range
 * nor counts a doc twice. The scheme is the caller's to compare.
 */
export function rankerDataProblem(data: PostingsData & { count: number }, decoded?: PostingsChecked): string | undefined {
  const { count, terms, offsets, docs, weights } = data;
  if (!Number.isInteger(count) || count < 0) return 'the entry count is not a whole number';
  for (let t = 1; t < terms.length; t++) {
    if (!((terms[t - 1] as string) < (terms[t] as string))) return `terms are not sorted and distinct (at ${t})`;
  }
  if (offsets.length !== terms.length + 1 || offsets[0] !== 0 || offsets[terms.length] !== docs.length) {
    return 'the term offsets do not span the postings';
  }
  if (weights.length !== docs.length) return 'there are not as many weights as postings';
  for (let t = 0; t < terms.length; t++) if ((offsets[t + 1] ?? 0) < (offsets[t] ?? 0)) return 'the term offsets go backwards';
  // A prebuilt index's reader checked each posting as it decoded it: a second pass cost 3-5 ms of a first request at 20,000 skills.
  if (decoded === POSTINGS_CHECKED) return undefined;
  for (let t = 0; t < terms.length; t++) {
    const end = offsets[t + 1] ?? 0;
    let previous = -1;
    for (let p = offsets[t] ?? 0; p < end; p++) {
      const doc = docs[p] ?? 0;
      if (doc <= previous || doc >= count || weights[p] === 0) return `a posting of "${terms[t]}" is out of range`;
      previous = doc;
    }
  }
  return undefined;
}

/** Why stored instructions' data cannot be ranked with, or undefined: its postings as rankerDataProblem checks them, then its IDFs and counts. */
export function bodyDataProblem(body: BodyData, decoded?: PostingsChecked): string | undefined {
  const { count, terms, idf, read, rareIdf } = body;
  const postings = rankerDataProblem(body, decoded);
  if (postings) return postings;
  if (idf.length !== terms.length) return 'there are not as many IDFs as terms';
  if (!idf.every((value) => Number.isFinite(value) && value >= 0)) return 'an IDF is not a number of 0 or more';
  if (!Number.isFinite(rareIdf) || rareIdf < 0) return 'the rare-term IDF is not a number of 0 or more';
  if (!Number.isInteger(read) || read < 0 || read > count) return 'the count of bodies read is not a number of skills';
  return undefined;
}

/**
 * A ranker over entries named `names` from `data` built over those entries
 * (check it with RANKER_FORMAT first): ranks exactly as `createRanker` over
 * them does, without tokenising them again; with the instructions' index
 * when `data` holds one over as many entries.
 */
export function rankerFromData(names: readonly string[], data: RankerData): BodyAwareRanker {
  const postings = new PackedPostings(data.offsets, data.docs, data.weights, data.pending);
  const index = wholeIndex(names, { terms: data.terms, postings });
  const ranker = new Bm25Ranker({ index, learn: () => undefined }, RANK_TUNING);
  if (data.body && data.body.count === names.length) ranker.useBodies(bodyIndexFromData(data.body));
  return bodyAware(ranker, names.length);
}

/** The instructions' index `body` holds, as ranking reads it. */
function bodyIndexFromData(body: BodyData): BodyIndex {
  const { terms, offsets, docs, weights, pending, idf, count, read, rareIdf } = body;
  return bodyIndexOf({
    terms,
    postings: new PackedPostings(offsets, docs, weights, pending),
    idf: Float64Array.from(idf),
    size: count,
    read,
    rareIdf,
  });
}

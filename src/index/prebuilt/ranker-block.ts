/**
 * The ranker's index in the file (`PrebuiltRanker`): the builder's RankerData
 * and its instructions' BodyData (src/base/ranker-data.ts) as text, and back.
 * What the data means is the ranker's: the RankerFormat a reader is given
 * (catalog's RANKER_FORMAT) says which schemes it reads and checks a decoded
 * block. Reading checks every array and
 * posting (a file is not trusted): damage makes the index unusable, while
 * data of another scheme is left unused (ranking then reads the skills'
 * texts, as after a scan).
 */
import type { BodyData, RankerData, RankerFormat } from '../../base/ranker-data.js';
import { arrayOf, base64Of } from './codec-arrays.js';
import type { PrebuiltBody, PrebuiltRanker } from './format.js';
import { isCount, isRecord } from './json-checks.js';

/** The stored ranker as read: RankerData, plus the ranked skills' positions sorted by name when the index holds them. */
export interface PrebuiltRankerData extends RankerData {
  nameOrder?: Int32Array;
}

export function encodeBody(body: BodyData): PrebuiltBody {
  return {
    scheme: body.scheme,
    count: body.count,
    read: body.read,
    terms: body.terms.join(' '),
    offsets: base64Of(body.offsets),
    docBits: body.docs instanceof Uint16Array ? 16 : 32,
    docs: base64Of(body.docs),
    weights: base64Of(body.weights),
    idf: base64Of(body.idf),
    rareIdf: body.rareIdf,
  };
}

/** The stored body index, if there is one of this version's scheme over `count` skills; or why it is damaged. */
function decodeInstructions(
  value: unknown,
  count: number,
  format: RankerFormat,
): { ok: true; body?: BodyData } | { ok: false; problem: string } {
  if (value === undefined) return { ok: true };
  if (!isRecord(value)) return { ok: false, problem: '"ranker.body" is not an object' };
  if (value.scheme !== format.bodyScheme) return { ok: true };
  const { terms, read, rareIdf } = value;
  if (value.count !== count) return { ok: false, problem: '"ranker.body.count" is not the ranker\'s' };
  if (typeof terms !== 'string' || !isCount(read) || typeof rareIdf !== 'number') {
    return { ok: false, problem: '"ranker.body" terms, read or rareIdf are missing' };
  }
  const { offsets, docs, weights } = postingArrays(value);
  const idf = arrayOf(value.idf, (n) => new Float32Array(n));
  if (!offsets || !docs || !weights || !idf) return { ok: false, problem: '"ranker.body" arrays are not base64 arrays' };
  const list = terms === '' ? [] : terms.split(' ');
  const body: BodyData = { scheme: format.bodyScheme, count, read, terms: list, offsets, docs, weights, idf, rareIdf };
  const problem = format.bodyProblem(body);
  if (problem) return { ok: false, problem: `"ranker.body": ${problem}` };
  return { ok: true, body };
}

export function encodeRanker(data: RankerData): PrebuiltRanker {
  return {
    scheme: data.scheme,
    count: data.count,
    terms: data.terms.join(' '),
    offsets: base64Of(data.offsets),
    docBits: data.docs instanceof Uint16Array ? 16 : 32,
    docs: base64Of(data.docs),
    weights: base64Of(data.weights),
  };
}

/** Stored postings' typed arrays (undefined where one is missing or not base64 of its type). */
function postingArrays(value: Record<string, unknown>): {
  offsets: Int32Array | undefined;
  docs: Uint16Array | Uint32Array | undefined;
  weights: Uint16Array | undefined;
} {
  const { docBits } = value;
  return {
    offsets: arrayOf(value.offsets, (n) => new Int32Array(n)),
    docs:
      docBits === 16
        ? arrayOf(value.docs, (n) => new Uint16Array(n))
        : docBits === 32
          ? arrayOf(value.docs, (n) => new Uint32Array(n))
          : undefined,
    weights: arrayOf(value.weights, (n) => new Uint16Array(n)),
  };
}

/**
 * The stored ranker as RankerData: `{ ok: true, data }` (data undefined when
 * the document has none, or one of another scheme, named by `otherScheme`:
 * ranking then reads the skills, as after a scan), or why it is damaged.
 */
export function decodeRanker(
  value: unknown,
  skills: number,
  format: RankerFormat,
): { ok: true; data?: PrebuiltRankerData; otherScheme?: string } | { ok: false; problem: string } {
  if (value === undefined) return { ok: true };
  if (!isRecord(value)) return { ok: false, problem: '"ranker" is not an object' };
  if (value.scheme !== format.scheme) return { ok: true, otherScheme: JSON.stringify(value.scheme ?? null) };
  const { count, terms } = value;
  if (!isCount(count) || count > skills) return { ok: false, problem: '"ranker.count" is not a number of skills' };
  if (typeof terms !== 'string') return { ok: false, problem: '"ranker.terms" is not a string' };
  const { offsets, docs, weights } = postingArrays(value);
  if (!offsets || !docs || !weights) return { ok: false, problem: '"ranker" offsets, docs or weights are not base64 arrays' };
  const data: RankerData = { scheme: format.scheme, count, terms: terms === '' ? [] : terms.split(' '), offsets, docs, weights };
  const problem = format.problem(data);
  if (problem) return { ok: false, problem: `"ranker": ${problem}` };
  // Whether it is the order of these names is checked where it is used (nameLookup): a wrong one is sorted again.
  const nameOrder = value.nameOrder === undefined ? undefined : arrayOf(value.nameOrder, (n) => new Int32Array(n));
  if (value.nameOrder !== undefined && nameOrder?.length !== count) {
    return { ok: false, problem: '"ranker.nameOrder" is not base64 of one int32 per ranked skill' };
  }
  const body = decodeInstructions(value.body, count, format);
  if (!body.ok) return body;
  return { ok: true, data: { ...data, ...(body.body ? { body: body.body } : {}), ...(nameOrder ? { nameOrder } : {}) } };
}

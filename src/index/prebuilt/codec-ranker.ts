/**
 * The ranker's index in two sections: `ranker` (the RankerData of
 * src/base/ranker-data.ts: its scheme and entry count, the ranked skills'
 * order by name, the postings) and `ranker.body` (the instructions' BodyData:
 * scheme, counts, IDFs, postings). What the data means is the ranker's: the
 * reader is given its RankerFormat, which says which schemes it ranks with
 * and checks a decoded block. Data of another scheme is left undecoded (the
 * ranker then ranks from the skills' texts, as after a scan); damage makes
 * the index unusable.
 */
import { POSTINGS_CHECKED, type BodyData, type RankerData, type RankerFormat } from '../../base/ranker-data.js';
import { ByteReader, ByteWriter, DamagedIndexError } from './codec-bytes.js';
import { readPostings, writePostings } from './codec-postings.js';

/** The stored ranker as read: RankerData, plus the ranked skills' positions sorted by name when the index holds them. */
export interface PrebuiltRankerData extends RankerData {
  nameOrder?: Int32Array;
}

export function writeRanker(data: PrebuiltRankerData): Uint8Array {
  const out = new ByteWriter().json({ scheme: data.scheme, count: data.count });
  out.typed(data.nameOrder ?? new Int32Array(0));
  writePostings(data, data.count, out);
  return out.result();
}

export function writeBody(body: BodyData): Uint8Array {
  const out = new ByteWriter().json({ scheme: body.scheme, count: body.count, read: body.read, rareIdf: body.rareIdf });
  out.typed(body.idf);
  writePostings(body, body.count, out);
  return out.result();
}

export type RankerRead = { ok: true; data?: PrebuiltRankerData; otherScheme?: string } | { ok: false; problem: string };

/**
 * The stored ranker over `skills` skills (at most: its count is the ranked
 * ones), with its instructions' index when `body` holds one of this
 * version's scheme; `{ ok: true }` without data for a ranker of another
 * scheme (named by `otherScheme`); or why it is damaged. Postings are
 * decoded a term at a time, when first asked for (codec-postings.ts); `file`
 * names the index in the warning for a term found damaged then.
 */
export function readRanker(
  ranker: Uint8Array,
  body: Uint8Array | undefined,
  skills: number,
  format: RankerFormat,
  file = 'the index',
): RankerRead {
  try {
    const input = new ByteReader(ranker, 'section "ranker"');
    const head = input.json();
    const { scheme, count } = (typeof head === 'object' && head !== null ? head : {}) as Record<string, unknown>;
    if (scheme !== format.scheme) return { ok: true, otherScheme: JSON.stringify(scheme ?? null) };
    if (!Number.isInteger(count) || (count as number) < 0 || (count as number) > skills)
      throw input.damaged('has no count of the skills it ranks');
    const order = input.typed(Int32Array);
    if (order.length !== 0 && order.length !== count) throw input.damaged('has a name order of another length');
    const data: PrebuiltRankerData = { scheme, count: count as number, ...readPostings(input, count as number, file) };
    input.end();
    const problem = format.problem(data, POSTINGS_CHECKED);
    if (problem) return { ok: false, problem: `the ranker's postings: ${problem}` };
    if (order.length > 0) data.nameOrder = order;
    if (body) {
      const instructions = readBody(body, count as number, format, file);
      if (!instructions.ok) return instructions;
      if (instructions.body) data.body = instructions.body;
    }
    return { ok: true, data };
  } catch (error) {
    if (error instanceof DamagedIndexError) return { ok: false, problem: error.message };
    throw error;
  }
}

/** The stored instructions' index over `count` skills, if of this version's scheme; or why it is damaged. */
function readBody(
  bytes: Uint8Array,
  count: number,
  format: RankerFormat,
  file: string,
): { ok: true; body?: BodyData } | { ok: false; problem: string } {
  const input = new ByteReader(bytes, 'section "ranker.body"');
  const head = input.json();
  const { scheme, count: stored, read, rareIdf } = (typeof head === 'object' && head !== null ? head : {}) as Record<string, unknown>;
  // Another version's: the middleware reads the bodies in the background, as after a scan.
  if (scheme !== format.bodyScheme) return { ok: true };
  if (stored !== count) throw input.damaged(`is over ${String(stored)} skills, the ranker over ${count}`);
  if (!Number.isInteger(read) || typeof rareIdf !== 'number') throw input.damaged('has no count of bodies read or rare-term IDF');
  const idf = input.typed(Float32Array);
  const postings = readPostings(input, count, file);
  input.end();
  if (idf.length !== postings.terms.length) throw input.damaged('has not one IDF a term');
  const body: BodyData = { scheme, count, read: read as number, rareIdf, idf, ...postings };
  const problem = format.bodyProblem(body, POSTINGS_CHECKED);
  return problem ? { ok: false, problem: `the instructions' postings: ${problem}` } : { ok: true, body };
}

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
import { Buffer } from 'node:buffer';
import type { BodyData, RankerData, RankerFormat } from '../../base/ranker-data.js';
import { ByteReader, ByteWriter, DamagedIndexError } from './codec-bytes.js';
import { readPostings, writePostings } from './codec-postings.js';

/** The stored ranker as read: RankerData, plus the ranked skills' positions sorted by name when the index holds them. */
export interface StoredRankerData extends RankerData {
  nameOrder?: Int32Array;
}

export function writeRanker(data: StoredRankerData): Uint8Array {
  const out = new ByteWriter().strings([data.scheme]).varint(data.count);
  const order = data.nameOrder;
  out.varint(order ? 1 : 0);
  if (order) for (const doc of order) out.varint(doc);
  writePostings(data, data.count, out);
  return out.result();
}

export function writeBody(body: BodyData): Uint8Array {
  const out = new ByteWriter().strings([body.scheme]).varint(body.count).varint(body.read).float64(body.rareIdf);
  const idf = Buffer.alloc(body.idf.length * 4);
  body.idf.forEach((value, i) => idf.writeFloatLE(value, i * 4));
  out.block(idf);
  writePostings(body, body.count, out);
  return out.result();
}

export type RankerRead = { ok: true; data?: StoredRankerData; otherScheme?: string } | { ok: false; problem: string };

/**
 * The stored ranker over `skills` skills (at most: its count is the ranked
 * ones), with its instructions' index when `body` holds one of this
 * version's scheme; `{ ok: true }` without data for a ranker of another
 * scheme (named by `otherScheme`); or why it is damaged.
 */
export function readRanker(ranker: Uint8Array, body: Uint8Array | undefined, skills: number, format: RankerFormat): RankerRead {
  try {
    const input = new ByteReader(ranker, 'section "ranker"');
    const scheme = input.strings(1).get(0);
    if (scheme !== format.scheme) return { ok: true, otherScheme: JSON.stringify(scheme) };
    const count = input.count(skills, 'a ranked skill count of');
    const nameOrder = input.count(1, 'a name order flag') === 1 ? readOrder(input, count) : undefined;
    const data: StoredRankerData = { scheme, count, ...readPostings(input, count) };
    input.end();
    const problem = format.problem(data);
    if (problem) return { ok: false, problem: `the ranker's postings: ${problem}` };
    if (nameOrder) data.nameOrder = nameOrder;
    if (body) {
      const instructions = readBody(body, count, format);
      if (!instructions.ok) return instructions;
      if (instructions.body) data.body = instructions.body;
    }
    return { ok: true, data };
  } catch (error) {
    if (error instanceof DamagedIndexError) return { ok: false, problem: error.message };
    throw error;
  }
}

/** Whether it is the order of these names is checked where it is used (nameLookup): a wrong one is sorted again. */
function readOrder(input: ByteReader, count: number): Int32Array {
  if (count > input.left) throw input.damaged('ends inside the name order');
  const order = new Int32Array(count);
  for (let i = 0; i < count; i++) order[i] = input.count(count - 1, 'a ranked skill');
  return order;
}

/** The stored instructions' index over `count` skills, if of this version's scheme; or why it is damaged. */
function readBody(bytes: Uint8Array, count: number, format: RankerFormat): { ok: true; body?: BodyData } | { ok: false; problem: string } {
  const input = new ByteReader(bytes, 'section "ranker.body"');
  const scheme = input.strings(1).get(0);
  // Another version's: the middleware reads the bodies in the background, as after a scan.
  if (scheme !== format.bodyScheme) return { ok: true };
  const stored = input.varint();
  if (stored !== count) throw input.damaged(`is over ${stored} skills, the ranker over ${count}`);
  const read = input.count(count, 'a count of bodies read of');
  const rareIdf = input.float64();
  const idfBytes = input.block();
  const postings = readPostings(input, count);
  input.end();
  if (idfBytes.length !== postings.terms.length * 4) throw input.damaged('has not one IDF a term');
  const idf = new Float32Array(postings.terms.length);
  for (let i = 0; i < idf.length; i++) idf[i] = idfBytes.readFloatLE(i * 4);
  const body: BodyData = { scheme, count, read, rareIdf, idf, ...postings };
  const problem = format.bodyProblem(body);
  return problem ? { ok: false, problem: `the instructions' postings: ${problem}` } : { ok: true, body };
}

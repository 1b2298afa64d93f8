/**
 * Postings (src/base/ranker-data.ts: terms, and for each term its docs and
 * weights) in an index section, losslessly and small, in fixed-width typed
 * arrays a reader decodes in one pass (codec-bytes.ts says why no varints):
 * - the terms, a JSON list, and each term's number of postings;
 * - each doc as its gap from the one before it in its term (docs ascend
 *   within a term), in 16 bits up to 65,536 entries: mostly a zero high
 *   byte, which zlib all but removes;
 * - each weight as its position in its doc's table of distinct weights. A
 *   doc's weights come from few term frequencies over one length, so a doc
 *   has few (a median of 6 in descriptions, 12 in instructions, over the
 *   shared corpus): one byte a posting instead of two, and a byte zlib
 *   shrinks far more than a weight's low bits. Measured on the corpus's
 *   1,129 skills with their instructions: 0.36 MB of weights as they are,
 *   deflated, against 0.09 MB this way.
 * Decoding rebuilds the very arrays that were encoded (docs in 16 bits up to
 * 65,536 entries, as the ranker packs them), a term at a time when ranking
 * first asks for it (a first request asks for a few of some 30,000 terms:
 * decoding all of them was 4-6 ms of it at 20,000 skills), checking that
 * every doc is under the entry count, every weight position inside its
 * doc's table and no weight 0; docs ascend by construction (gaps are never
 * negative). That is every check a posting needs (the reader tells
 * RankerFormat so). A term found damaged then has no postings, and one
 * INDEX_UNUSABLE warning says so (PendingPostings.damage).
 */
import type { Diagnostic } from '../../base/diagnostics.js';
import type { PendingPostings, PostingsData } from '../../base/ranker-data.js';
import type { ByteReader, ByteWriter } from './codec-bytes.js';
import { damagedTerm } from './problems.js';

/** Write `data`, postings over `count` entries (docs 0 to count - 1). */
export function writePostings(data: PostingsData, count: number, out: ByteWriter): void {
  const { terms, offsets, docs, weights } = data;
  const lengths = new Uint32Array(terms.length);
  for (let t = 0; t < terms.length; t++) lengths[t] = (offsets[t + 1] as number) - (offsets[t] as number);
  out.json(terms).typed(lengths);
  const tables = weightTables(docs, weights, count);
  out.typed(Uint32Array.from(tables, (table) => table.length)).typed(Uint16Array.from(tables.flat()));
  const gaps = count <= 0x10000 ? new Uint16Array(docs.length) : new Uint32Array(docs.length);
  const wide = tables.some((table) => table.length > 0x100);
  const positions = wide ? new Uint16Array(docs.length) : new Uint8Array(docs.length);
  const positionOf = tables.map((table) => new Map(table.map((weight, i) => [weight, i])));
  for (let t = 0; t < terms.length; t++) {
    let previous = -1;
    for (let p = offsets[t] as number; p < (offsets[t + 1] as number); p++) {
      const doc = docs[p] as number;
      gaps[p] = doc - previous - 1;
      positions[p] = positionOf[doc]?.get(weights[p] as number) ?? 0;
      previous = doc;
    }
  }
  out.typed(gaps).typed(positions);
}

/** Each doc's distinct weights, ascending. */
function weightTables(docs: ArrayLike<number>, weights: ArrayLike<number>, count: number): number[][] {
  const sets = Array.from({ length: count }, () => new Set<number>());
  for (let p = 0; p < docs.length; p++) sets[docs[p] as number]?.add(weights[p] as number);
  return sets.map((set) => [...set].sort((a, b) => a - b));
}

/**
 * Postings over `count` entries, as `writePostings` wrote them, each term
 * decoded when first asked for (`pending`); `file` names the index in the
 * warning for a damaged term. Throws DamagedIndexError when the counts and
 * tables do not add up.
 */
export function readPostings(input: ByteReader, count: number, file = 'the index'): PostingsData {
  const terms = input.strings();
  const lengths = input.typed(Uint32Array, terms.length);
  const offsets = new Int32Array(terms.length + 1);
  for (let t = 0; t < terms.length; t++) {
    offsets[t + 1] = (offsets[t] as number) + (lengths[t] as number);
    // Each posting takes at least a byte below: a total past what is left is a lie (and would be allocated).
    if ((offsets[t + 1] as number) > input.left) throw input.damaged('has more postings than bytes');
  }
  const tableLengths = input.typed(Uint32Array, count);
  const values = input.typed(Uint16Array);
  const starts = new Uint32Array(count + 1);
  for (let doc = 0; doc < count; doc++) starts[doc + 1] = (starts[doc] as number) + (tableLengths[doc] as number);
  if (starts[count] !== values.length) throw input.damaged('has weight tables that do not add up to its weights');
  // Every posting's weight is one of these: none may be 0 (what RankerFormat's POSTINGS_CHECKED promises).
  if (values.includes(0)) throw input.damaged('has a weight of 0');
  const total = offsets[terms.length] as number;
  const gaps = count <= 0x10000 ? input.typed(Uint16Array, total) : input.typed(Uint32Array, total);
  const positions = tableLengths.some((n) => n > 0x100) ? input.typed(Uint16Array, total) : input.typed(Uint8Array, total);
  const docs = count <= 0x10000 ? new Uint16Array(total) : new Uint32Array(total);
  const weights = new Uint16Array(total);
  const stored = { offsets, gaps, positions, starts, values, count };
  // The section's name only: a closure over `input` would keep the whole inflated section alive with the ranker.
  const { what } = input;
  const pending = new TermDecoder(stored, docs, weights, (detail) => damagedTerm(file, `${what} ${detail}`));
  return { terms, offsets, docs, weights, pending };
}

/** The postings as stored: each doc as its gap, each weight as its position in its doc's table (`starts` into `values`). */
interface StoredPostings {
  offsets: Int32Array;
  gaps: Uint16Array | Uint32Array;
  positions: Uint8Array | Uint16Array;
  starts: Uint32Array;
  values: Uint16Array;
  count: number;
}

const UNREAD = 0;
const DECODED = 1;
const DAMAGED = 2;

/** Decodes stored postings into `docs` and `weights` a term at a time, as ranking first asks for each. */
class TermDecoder implements PendingPostings {
  damage: Diagnostic | undefined;
  /** Each term's state: UNREAD, DECODED or DAMAGED. */
  private readonly states: Uint8Array;

  constructor(
    private readonly stored: StoredPostings,
    private readonly docs: Uint16Array | Uint32Array,
    private readonly weights: Uint16Array,
    private readonly damaged: (detail: string) => Diagnostic,
  ) {
    this.states = new Uint8Array(stored.offsets.length - 1);
  }

  decode(term: number): boolean {
    const state = this.states[term];
    if (state === DECODED) return true;
    // A term past the vocabulary has no postings to decode (the ranker never asks for one).
    if (state !== UNREAD) return false;
    const bad = decodeTerm(this.stored, term, this.docs, this.weights);
    if (bad === -1) {
      this.states[term] = DECODED;
      return true;
    }
    this.states[term] = DAMAGED;
    this.damage ??= this.damaged(`has a posting past its docs or weights (posting ${bad}, of term ${term + 1})`);
    return false;
  }
}

/** Term `term`'s postings: docs from gaps, weights from positions. The first bad posting's number, or -1. */
function decodeTerm(stored: StoredPostings, term: number, docs: Uint16Array | Uint32Array, weights: Uint16Array): number {
  const { offsets, gaps, positions, starts, values, count } = stored;
  let doc = -1;
  const end = offsets[term + 1] as number;
  for (let p = offsets[term] as number; p < end; p++) {
    doc += (gaps[p] as number) + 1;
    if (doc >= count) return p;
    const at = (starts[doc] as number) + (positions[p] as number);
    if (at >= (starts[doc + 1] as number)) return p;
    docs[p] = doc;
    weights[p] = values[at] as number;
  }
  return -1;
}

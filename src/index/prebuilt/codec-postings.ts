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
 * 65,536 entries, as the ranker packs them), checking that every doc is
 * under the entry count, every weight position inside its doc's table and no
 * weight 0; docs ascend by construction (gaps are never negative). That is
 * every check a posting needs (the reader tells RankerFormat so).
 */
import type { PostingsData } from '../../base/ranker-data.js';
import type { ByteReader, ByteWriter } from './codec-bytes.js';

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

/** Postings over `count` entries, as `writePostings` wrote them. Throws DamagedIndexError when they do not decode or a doc is out of range. */
export function readPostings(input: ByteReader, count: number): PostingsData {
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
  const bad = decode(offsets, gaps, positions, starts, values, docs, weights, count);
  if (bad !== -1) throw input.damaged(`has a posting past its docs or weights (posting ${bad})`);
  return { terms, offsets, docs, weights };
}

/** One pass over every posting: docs from gaps, weights from positions. The first bad posting's number, or -1. */
function decode(
  offsets: Int32Array,
  gaps: Uint16Array | Uint32Array,
  positions: Uint8Array | Uint16Array,
  starts: Uint32Array,
  values: Uint16Array,
  docs: Uint16Array | Uint32Array,
  weights: Uint16Array,
  count: number,
): number {
  const terms = offsets.length - 1;
  for (let t = 0; t < terms; t++) {
    let doc = -1;
    const end = offsets[t + 1] as number;
    for (let p = offsets[t] as number; p < end; p++) {
      doc += (gaps[p] as number) + 1;
      if (doc >= count) return p;
      const at = (starts[doc] as number) + (positions[p] as number);
      if (at >= (starts[doc + 1] as number)) return p;
      docs[p] = doc;
      weights[p] = values[at] as number;
    }
  }
  return -1;
}

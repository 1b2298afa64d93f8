/**
 * Postings (src/base/ranker-data.ts: terms, and for each term its docs and
 * weights) in an index section, losslessly and small:
 * - the terms as a string table, then each term's number of postings;
 * - each doc as the gap from the one before it in its term (docs ascend
 *   within a term), a varint: mostly one byte;
 * - each weight as its position in its doc's table of distinct weights. A
 *   doc's weights come from few term frequencies over one length, so a doc
 *   has a few (a median of 6 in descriptions, 12 in instructions, over the
 *   shared corpus): one byte a posting instead of two, and a byte zlib
 *   shrinks far more than a weight's low bits. Measured on the corpus's
 *   1,129 skills with their instructions: 0.36 MB of weights as they are,
 *   deflated, against 0.09 MB this way.
 * Decoding rebuilds the very arrays that were encoded (docs in 16 bits up to
 * 65,536 entries, as the ranker packs them), checking as it goes that every
 * doc is under the entry count and every number within its section.
 */
import type { PostingsData } from '../../base/ranker-data.js';
import { ByteReader, ByteWriter } from './codec-bytes.js';

/** Write `data`, postings over `count` entries (docs 0 to count - 1). */
export function writePostings(data: PostingsData, count: number, out: ByteWriter): void {
  const { terms, offsets, docs, weights } = data;
  out.varint(terms.length).strings(terms);
  for (let t = 0; t < terms.length; t++) out.varint((offsets[t + 1] as number) - (offsets[t] as number));
  const tables = weightTables(docs, weights, count);
  for (const table of tables) {
    out.varint(table.length);
    let previous = 0;
    for (const weight of table) {
      out.varint(weight - previous);
      previous = weight;
    }
  }
  const gaps = new ByteWriter();
  const positions = new ByteWriter();
  const positionOf = tables.map((table) => new Map(table.map((weight, i) => [weight, i])));
  for (let t = 0; t < terms.length; t++) {
    let previous = -1;
    for (let p = offsets[t] as number; p < (offsets[t + 1] as number); p++) {
      const doc = docs[p] as number;
      gaps.varint(doc - previous - 1);
      positions.varint(positionOf[doc]?.get(weights[p] as number) ?? 0);
      previous = doc;
    }
  }
  out.block(gaps.result()).block(positions.result());
}

/** Each doc's distinct weights, ascending. */
function weightTables(docs: ArrayLike<number>, weights: ArrayLike<number>, count: number): number[][] {
  const sets = Array.from({ length: count }, () => new Set<number>());
  for (let p = 0; p < docs.length; p++) sets[docs[p] as number]?.add(weights[p] as number);
  return sets.map((set) => [...set].sort((a, b) => a - b));
}

/** Postings over `count` entries, as `writePostings` wrote them. Throws DamagedIndexError when they do not decode or a doc is out of range. */
export function readPostings(input: ByteReader, count: number): PostingsData {
  const termCount = input.count(input.left, 'terms');
  const terms = input.strings(termCount).all();
  const offsets = new Int32Array(termCount + 1);
  for (let t = 0; t < termCount; t++) {
    // Each posting takes at least one byte of the gaps below: a total past what is left is a lie.
    offsets[t + 1] = (offsets[t] as number) + input.count(input.left, 'a term with postings');
    if ((offsets[t + 1] as number) > input.left) throw input.damaged('has more postings than bytes');
  }
  const total = offsets[termCount] as number;
  const { starts, values } = readWeightTables(input, count);
  const gaps = new ByteReader(input.block(), `${input.what}'s gaps`);
  const positions = new ByteReader(input.block(), `${input.what}'s weight positions`);
  const docs = count <= 0x10000 ? new Uint16Array(total) : new Uint32Array(total);
  const weights = new Uint16Array(total);
  for (let t = 0; t < termCount; t++) {
    let doc = -1;
    for (let p = offsets[t] as number; p < (offsets[t + 1] as number); p++) {
      doc += gaps.varint() + 1;
      if (doc >= count) throw gaps.damaged(`names doc ${doc} of ${count}`);
      const start = starts[doc] as number;
      const position = positions.count((starts[doc + 1] as number) - start - 1, 'a weight position');
      docs[p] = doc;
      weights[p] = values[start + position] as number;
    }
  }
  gaps.end();
  positions.end();
  return { terms, offsets, docs, weights };
}

/** Each doc's table of weights: where it starts in `values` (count + 1 starts), and the weights. */
function readWeightTables(input: ByteReader, count: number): { starts: Uint32Array; values: Uint16Array } {
  if (count > input.left) throw input.damaged(`cannot hold ${count} weight tables`);
  const starts = new Uint32Array(count + 1);
  const all: number[] = [];
  for (let doc = 0; doc < count; doc++) {
    const length = input.count(input.left, 'a weight table of');
    starts[doc + 1] = (starts[doc] as number) + length;
    let weight = 0;
    for (let i = 0; i < length; i++) {
      weight += input.varint();
      if (weight > 0xffff) throw input.damaged('has a weight past 16 bits');
      all.push(weight);
    }
  }
  return { starts, values: Uint16Array.from(all) };
}

/**
 * Skill vectors in a prebuilt index: one block of packed little-endian
 * Float32 or Int8 values (base64), the content keys joined (22 characters
 * each), and for Int8 one Float32 scale a vector; with the model's name and
 * width, so an index made with another model is known. Reading copies
 * nothing per vector: each is a view into the one decoded block.
 */
import { Buffer } from 'node:buffer';
import { endianness } from 'node:os';
import type { SeedVectors } from './skill-vectors.js';
import { dimensionsOf, quantize, type UnitVector, type VectorEncoding } from './vectors.js';

/** Length of a content key (skill-text.ts). */
const KEY_LENGTH = 22;

export interface PrebuiltVectors {
  model: string;
  dimensions: number;
  encoding: VectorEncoding;
  count: number;
  keys: string;
  data: string;
  /** Int8 only: each vector's scale, Float32. */
  scales?: string;
}

/** The block for `vectors` (keyed), all of `dimensions`, in `encoding`. */
export function encodeVectors(
  model: string,
  dimensions: number,
  encoding: VectorEncoding,
  vectors: ReadonlyArray<readonly [string, UnitVector]>,
): PrebuiltVectors {
  const kept = vectors.filter(([key, vector]) => key.length === KEY_LENGTH && dimensionsOf(vector) === dimensions);
  const width = encoding === 'int8' ? 1 : 4;
  const data = Buffer.alloc(kept.length * dimensions * width);
  const scales = Buffer.alloc(encoding === 'int8' ? kept.length * 4 : 0);
  kept.forEach(([, vector], i) => {
    if (encoding === 'int8') {
      const q = vector instanceof Float32Array ? quantize(vector) : vector;
      Buffer.from(q.values.buffer, q.values.byteOffset, q.values.byteLength).copy(data, i * dimensions);
      scales.writeFloatLE(q.scale, i * 4);
    } else {
      const values = vector instanceof Float32Array ? vector : dequantize(vector.values, vector.scale);
      for (let d = 0; d < dimensions; d++) data.writeFloatLE(values[d] as number, (i * dimensions + d) * 4);
    }
  });
  return {
    model,
    dimensions,
    encoding,
    count: kept.length,
    keys: kept.map(([key]) => key).join(''),
    data: data.toString('base64'),
    ...(encoding === 'int8' ? { scales: scales.toString('base64') } : {}),
  };
}

function dequantize(values: Int8Array, scale: number): Float32Array {
  return Float32Array.from(values, (value) => value * scale);
}

/** An index's vectors block as seed vectors, or why it cannot be used. */
export function decodeVectors(value: unknown): { ok: true; seed: SeedVectors } | { ok: false; problem: string } {
  if (value === null || typeof value !== 'object') return { ok: false, problem: 'the vectors block is not an object' };
  const { model, dimensions, encoding, count, keys, data, scales } = value as Record<string, unknown>;
  if (typeof model !== 'string' || !isCount(dimensions) || dimensions === 0 || !isCount(count)) {
    return { ok: false, problem: 'the vectors block lacks its model, dimensions or count' };
  }
  if (encoding !== 'float32' && encoding !== 'int8') return { ok: false, problem: `unknown vector encoding ${JSON.stringify(encoding)}` };
  if (typeof keys !== 'string' || keys.length !== count * KEY_LENGTH)
    return { ok: false, problem: 'the vector keys do not match the count' };
  if (endianness() !== 'LE') return { ok: false, problem: 'vectors are stored little-endian and this machine is big-endian' };
  const width = encoding === 'int8' ? 1 : 4;
  const bytes = typeof data === 'string' ? Buffer.from(data, 'base64') : undefined;
  if (!bytes || bytes.length !== count * dimensions * width)
    return { ok: false, problem: 'the vector data does not match the count and dimensions' };
  // A copy into a fresh, aligned buffer: Float32 views need offsets in multiples of 4.
  const block = new Uint8Array(bytes).buffer;
  const scaleBytes = encoding === 'int8' && typeof scales === 'string' ? Buffer.from(scales, 'base64') : undefined;
  if (encoding === 'int8' && scaleBytes?.length !== count * 4) return { ok: false, problem: 'the vector scales do not match the count' };
  const scaleOf = scaleBytes ? new Float32Array(new Uint8Array(scaleBytes).buffer) : undefined;
  function* vectors(): Generator<readonly [string, UnitVector]> {
    for (let i = 0; i < (count as number); i++) {
      const key = (keys as string).slice(i * KEY_LENGTH, (i + 1) * KEY_LENGTH);
      const d = dimensions as number;
      const vector: UnitVector = scaleOf
        ? { values: new Int8Array(block, i * d, d), scale: scaleOf[i] as number }
        : new Float32Array(block, i * d * 4, d);
      yield [key, vector];
    }
  }
  return { ok: true, seed: { model, dimensions, vectors: vectors() } };
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

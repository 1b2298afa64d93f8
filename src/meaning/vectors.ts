/**
 * Vectors as the meaning layer keeps them: unit length, so a dot product is
 * the cosine, and either Float32 or Int8 (one byte a dimension and a scale a
 * vector) when Float32 would cost too much (QUANTIZE_ABOVE_DIMENSIONS).
 */

/** A unit vector: Float32, or Int8 values times `scale`. */
export type UnitVector = Float32Array | QuantizedVector;

export interface QuantizedVector {
  values: Int8Array;
  /** What a value of 1 stands for. */
  scale: number;
}

/**
 * Vectors wider than this are kept as Int8: at 20,000 skills Float32 held
 * 35 MB at 384 dimensions, 66 MB at 768 and would hold 123 MB at 1,536 (over
 * the 64 MB we allow); Int8 holds about a quarter, and cost no measured recall
 * (docs/embeddings.md, Memory).
 */
export const QUANTIZE_ABOVE_DIMENSIONS = 512;

export type VectorEncoding = 'float32' | 'int8';

export function encodingFor(dimensions: number): VectorEncoding {
  return dimensions > QUANTIZE_ABOVE_DIMENSIONS ? 'int8' : 'float32';
}

/** `values` scaled to unit length, or undefined when it is not a usable vector (empty, zero, or not all finite numbers). */
export function unitVector(values: readonly number[] | Float32Array): Float32Array | undefined {
  if (values.length === 0) return undefined;
  let sum = 0;
  for (let i = 0; i < values.length; i++) {
    const value = values[i] as number;
    if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
    sum += value * value;
  }
  if (sum === 0) return undefined;
  const norm = Math.sqrt(sum);
  const unit = new Float32Array(values.length);
  for (let i = 0; i < values.length; i++) unit[i] = (values[i] as number) / norm;
  return unit;
}

/** A unit vector as Int8: each value rounded to 1/127 of the largest magnitude. */
export function quantize(unit: Float32Array): QuantizedVector {
  let max = 0;
  for (const value of unit) max = Math.max(max, Math.abs(value));
  const scale = max === 0 ? 1 : max / 127;
  const values = new Int8Array(unit.length);
  for (let i = 0; i < unit.length; i++) values[i] = Math.round((unit[i] as number) / scale);
  return { values, scale };
}

/** The stored form of a unit vector under `encoding`. */
export function stored(unit: Float32Array, encoding: VectorEncoding): UnitVector {
  return encoding === 'int8' ? quantize(unit) : unit;
}

export function dimensionsOf(vector: UnitVector): number {
  return vector instanceof Float32Array ? vector.length : vector.values.length;
}

/** The cosine of a query (unit, Float32) and a stored unit vector of the same length. */
export function similarity(query: Float32Array, vector: UnitVector): number {
  return vector instanceof Float32Array ? dotFloat(query, vector) : dotInt8(query, vector.values) * vector.scale;
}

// Two loops, each over one array type, so each stays monomorphic (and fast) in V8.
function dotFloat(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] as number) * (b[i] as number);
  return sum;
}

function dotInt8(a: Float32Array, b: Int8Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] as number) * (b[i] as number);
  return sum;
}

/** Bytes a stored vector holds in its arrays. */
export function bytesOf(vector: UnitVector): number {
  return vector instanceof Float32Array ? vector.byteLength : vector.values.byteLength + 8;
}

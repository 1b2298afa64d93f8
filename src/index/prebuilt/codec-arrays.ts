/**
 * Typed arrays in JSON text: base64 of their little-endian bytes, decoded
 * straight into the array's memory (no per-number parsing), byte-swapped on a
 * big-endian machine.
 */
import { Buffer } from 'node:buffer';
import { endianness } from 'node:os';

const BIG_ENDIAN = endianness() === 'BE';

export type PackedArray = Int32Array | Uint16Array | Uint32Array | Float32Array;

/** `array`'s bytes as base64, little-endian whatever the machine. */
export function base64Of(array: PackedArray): string {
  const bytes = Buffer.from(array.buffer, array.byteOffset, array.byteLength);
  if (!BIG_ENDIAN) return bytes.toString('base64');
  const copy = Buffer.from(bytes);
  if (array.BYTES_PER_ELEMENT === 2) copy.swap16();
  else copy.swap32();
  return copy.toString('base64');
}

/**
 * The array `text` holds, decoded straight into its memory; undefined when
 * it is not whole elements of base64 (a character outside base64 shortens
 * what is decoded; values are checked after, by rankerDataProblem).
 */
export function arrayOf<A extends PackedArray>(text: unknown, make: (length: number) => A): A | undefined {
  if (typeof text !== 'string') return undefined;
  const byteLength = Buffer.byteLength(text, 'base64');
  const probe = make(0);
  if (byteLength % probe.BYTES_PER_ELEMENT !== 0) return undefined;
  const array = make(byteLength / probe.BYTES_PER_ELEMENT);
  const bytes = Buffer.from(array.buffer, array.byteOffset, array.byteLength);
  if (bytes.write(text, 'base64') !== byteLength) return undefined;
  if (BIG_ENDIAN) {
    if (array.BYTES_PER_ELEMENT === 2) bytes.swap16();
    else bytes.swap32();
  }
  return array;
}

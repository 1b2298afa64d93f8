/**
 * Bytes of an index section, laid out so that reading them is a few native
 * calls, not a loop per skill (a fresh process runs such loops uncompiled:
 * at 21,110 skills, decoding varints skill by skill cost more than parsing
 * the whole JSON index did): typed arrays as their little-endian bytes,
 * aligned so a reader views them where they lie; lists of strings and other
 * values as JSON, which JSON.parse reads natively (ASCII only: other
 * characters as `\uXXXX`, so the text is decoded at a byte a character);
 * and a few unsigned varints for counts.
 *
 * The writer grows its buffer as it goes; the reader checks every count and
 * length against what is left and throws DamagedIndexError past the end, so
 * a hostile length can neither read outside the section nor allocate more
 * than the section holds.
 */
import { Buffer } from 'node:buffer';
import { endianness } from 'node:os';

/** A section's bytes do not decode: the reader turns it into INDEX_UNUSABLE (malformed). */
export class DamagedIndexError extends Error {
  override readonly name = 'DamagedIndexError';
}

/** The typed arrays a section holds. */
export type StoredArray = Uint8Array | Uint16Array | Uint32Array | Int32Array | Float32Array | Float64Array;
type ArrayKind<A extends StoredArray> = { new (length: number): A; BYTES_PER_ELEMENT: number };

const BIG_ENDIAN = endianness() === 'BE';

export class ByteWriter {
  private bytes = Buffer.alloc(1 << 16);
  private length = 0;

  private room(more: number): void {
    if (this.length + more <= this.bytes.length) return;
    const grown = Buffer.alloc(Math.max(this.bytes.length * 2, this.length + more));
    this.bytes.copy(grown, 0, 0, this.length);
    this.bytes = grown;
  }

  /** `value`: a whole number from 0 to 2^32 - 1. */
  varint(value: number): this {
    this.room(5);
    let rest = value >>> 0;
    while (rest >= 0x80) {
      this.bytes[this.length++] = (rest & 0x7f) | 0x80;
      rest >>>= 7;
    }
    this.bytes[this.length++] = rest;
    return this;
  }

  raw(bytes: Uint8Array): this {
    this.room(bytes.length);
    this.bytes.set(bytes, this.length);
    this.length += bytes.length;
    return this;
  }

  /** `bytes` prefixed with their length, so a reader can take them whole. */
  block(bytes: Uint8Array): this {
    return this.varint(bytes.length).raw(bytes);
  }

  /** `array`: its length, zeros up to its element size, then its bytes, little-endian. */
  typed(array: StoredArray): this {
    this.varint(array.length);
    const width = array.BYTES_PER_ELEMENT;
    this.room(width);
    this.length += (width - (this.length % width)) % width;
    const bytes = Buffer.from(array.buffer, array.byteOffset, array.byteLength);
    return this.raw(BIG_ENDIAN ? swapped(Buffer.from(bytes), width) : bytes);
  }

  /**
   * `text`'s bytes as a block, written straight into the output: no Buffer of
   * them in between (the skills section's metadata JSON of 21,110 skills is 9 MB).
   * Latin-1 keeps each code unit's low byte, UTF-16LE each code unit as it is.
   */
  text(text: string, encoding: 'latin1' | 'utf16le'): this {
    const length = encoding === 'latin1' ? text.length : text.length * 2;
    this.varint(length).room(length);
    this.length += this.bytes.write(text, this.length, length, encoding);
    return this;
  }

  /** `value` as JSON, ASCII only. */
  json(value: unknown): this {
    return this.text(asciiJson(JSON.stringify(value)), 'latin1');
  }

  /** What was written (a view: write nothing more once taken). */
  result(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }
}

/**
 * JSON text with each character past ASCII as a `\uXXXX` escape. Outside
 * strings JSON has only ASCII, so every such character is inside a string,
 * where the escape means the same character; a surrogate pair becomes two
 * escapes, which JSON reads back as the same pair. A text with one
 * character past ASCII is decoded, and held, at two bytes a character: at
 * 20,000 real-shaped skills (3,415 such characters in 14.7 MB of JSON) that
 * took 35 ms of start-up instead of 10 ms.
 */
export function asciiJson(text: string): string {
  return text.replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function swapped(bytes: Buffer, width: number): Buffer {
  if (width === 2) bytes.swap16();
  else if (width === 4) bytes.swap32();
  else if (width === 8) bytes.swap64();
  return bytes;
}

export class ByteReader {
  private at = 0;
  private readonly bytes: Buffer;

  constructor(
    bytes: Uint8Array,
    /** What these bytes are, for the message when they do not decode ('section "skills"'). */
    readonly what: string,
  ) {
    this.bytes = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  damaged(detail: string): DamagedIndexError {
    return new DamagedIndexError(`${this.what} ${detail}`);
  }

  get left(): number {
    return this.bytes.length - this.at;
  }

  varint(): number {
    const bytes = this.bytes;
    let at = this.at;
    if (at >= bytes.length) throw this.damaged('ends inside a number');
    let byte = bytes[at++] as number;
    let value = byte & 0x7f;
    for (let shift = 7; byte >= 0x80; shift += 7) {
      if (at >= bytes.length) throw this.damaged('ends inside a number');
      byte = bytes[at++] as number;
      if (shift === 28) {
        // The fifth byte holds the top 4 of 32 bits: past that, no writer of this format made the number.
        if (byte > 0x0f) throw this.damaged('holds a number past 32 bits');
        value += byte * 0x10000000;
        break;
      }
      value |= (byte & 0x7f) << shift;
    }
    this.at = at;
    return value;
  }

  /** A varint of at most `max` (a count or position the caller will use to index or allocate). */
  count(max: number, what: string): number {
    const value = this.varint();
    if (value > max) throw this.damaged(`has ${what} ${value}, past ${max}`);
    return value;
  }

  /** The next `length` bytes, as a view. */
  raw(length: number): Buffer {
    if (length > this.left) throw this.damaged('ends before its data');
    const view = this.bytes.subarray(this.at, this.at + length);
    this.at += length;
    return view;
  }

  block(): Buffer {
    const length = this.varint();
    if (length > this.left) throw this.damaged(`ends before its data (a block of ${length} bytes, ${this.left} left)`);
    return this.raw(length);
  }

  /**
   * A typed array of `kind` as `typed` wrote it, of exactly `length`
   * elements when given: a copy, one memory copy (a view would keep the
   * whole section alive as long as the array: stamps kept the 9.8 MB skills
   * section of 21,110 skills).
   */
  typed<A extends StoredArray>(kind: ArrayKind<A>, length?: number): A {
    const count = this.varint();
    if (length !== undefined && count !== length) throw this.damaged(`holds ${count} values where ${length} belong`);
    const width = kind.BYTES_PER_ELEMENT;
    const pad = (width - (this.at % width)) % width;
    if (pad > this.left || count > (this.left - pad) / width) throw this.damaged('ends before its values');
    this.at += pad;
    const bytes = this.raw(count * width);
    const copy = new kind(count);
    const target = Buffer.from(copy.buffer, copy.byteOffset, copy.byteLength);
    bytes.copy(target);
    if (BIG_ENDIAN) swapped(target, width);
    return copy;
  }

  /** A JSON block, parsed. */
  json(): unknown {
    const text = this.block().toString('latin1');
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      throw this.damaged(`holds text that is not JSON (${error instanceof Error ? error.message : String(error)})`);
    }
  }

  /** A JSON block that must be a list of strings (of `count` when given). */
  strings(count?: number): string[] {
    const list = this.json();
    if (!Array.isArray(list) || (count !== undefined && list.length !== count) || !list.every((item) => typeof item === 'string')) {
      throw this.damaged(`does not hold ${count ?? 'a list of'} strings where they belong`);
    }
    return list as string[];
  }

  /** The reader must have read every byte: trailing bytes mean the counts before them were wrong. */
  end(): void {
    if (this.left !== 0) throw this.damaged(`has ${this.left} bytes past its data`);
  }
}

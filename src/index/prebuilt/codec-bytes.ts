/**
 * Bytes of an index section: unsigned varints (7 bits a byte, low first, at
 * most 32 bits), little-endian floats, and string tables (each string's UTF-8
 * length as a varint, then the strings' bytes one after another). The writer
 * grows its buffer as it goes; the reader checks every length against what
 * is left and throws DamagedIndexError past the end, so a hostile length can
 * neither read outside the section nor allocate more than the section holds.
 */
import { Buffer } from 'node:buffer';

/** A section's bytes do not decode: the reader turns it into INDEX_UNUSABLE (malformed). */
export class DamagedIndexError extends Error {
  override readonly name = 'DamagedIndexError';
}

export class ByteWriter {
  private bytes = Buffer.allocUnsafe(1 << 16);
  private length = 0;

  private room(more: number): void {
    if (this.length + more <= this.bytes.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.length + more));
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

  float64(value: number): this {
    this.room(8);
    this.length = this.bytes.writeDoubleLE(value, this.length);
    return this;
  }

  raw(bytes: Uint8Array): this {
    this.room(bytes.length);
    this.bytes.set(bytes, this.length);
    this.length += bytes.length;
    return this;
  }

  /** The strings as a table: every length first, then every string's bytes (lengths compress apart from text). */
  strings(values: readonly string[]): this {
    const encoded = values.map((value) => Buffer.from(value, 'utf8'));
    for (const bytes of encoded) this.varint(bytes.length);
    for (const bytes of encoded) this.raw(bytes);
    return this;
  }

  /** `bytes` prefixed with their length, so a reader can skip or take them whole. */
  block(bytes: Uint8Array): this {
    return this.varint(bytes.length).raw(bytes);
  }

  /** What was written (a view: write nothing more once taken). */
  result(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }
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
    // Plain integer steps, no powers: this runs for every posting (millions at 20,000 skills with instructions).
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

  float64(): number {
    if (this.left < 8) throw this.damaged('ends inside a number');
    const value = this.bytes.readDoubleLE(this.at);
    this.at += 8;
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
    return this.raw(this.count(this.left, 'a block of'));
  }

  /**
   * A table of `count` strings as StringTable (each decoded when asked for).
   * Every length is checked here, so a hostile one fails now, not later.
   */
  strings(count: number): StringTable {
    if (count > this.left) throw this.damaged(`cannot hold ${count} strings`);
    const ends = new Uint32Array(count);
    let end = 0;
    for (let i = 0; i < count; i++) {
      end += this.varint();
      ends[i] = end;
    }
    return new StringTable(this.raw(end), ends);
  }

  /** The reader must have read every byte: trailing bytes mean the counts before them were wrong. */
  end(): void {
    if (this.left !== 0) throw this.damaged(`has ${this.left} bytes past its data`);
  }
}

/** Strings stored as UTF-8 one after another, each decoded on demand (a string of ASCII is held at a byte a character). */
export class StringTable {
  constructor(
    private readonly bytes: Buffer,
    private readonly ends: Uint32Array,
  ) {}

  get length(): number {
    return this.ends.length;
  }

  get(i: number): string {
    return this.bytes.toString('utf8', i === 0 ? 0 : this.ends[i - 1], this.ends[i]);
  }

  all(): string[] {
    const values = new Array<string>(this.ends.length);
    for (let i = 0; i < values.length; i++) values[i] = this.get(i);
    return values;
  }
}

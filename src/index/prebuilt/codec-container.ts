/**
 * The index file's container: one line that names the format and its
 * version (`sisu-skills-index 3`, so `head -1` tells what a file is), the
 * header's length (4 bytes, little-endian), the header (JSON: what the
 * build knew, and where each section lies), then the sections. The header
 * and every section are zlib streams, whose Adler-32 checksum finds a
 * flipped byte when it is inflated.
 *
 * Reading trusts no length: the header and each section must lie inside the
 * file; a section's size as inflated is declared, refused past
 * MAX_INFLATED_BYTES or past what deflate can make of its bytes, and
 * inflating stops at it (a small file that claims gigabytes is refused
 * before anything is allocated, one that inflates past its claim is
 * stopped there). Sections a reader does not know are skipped, so a later
 * writer may add some (issue 41's manifests) without a new version.
 */
import { Buffer } from 'node:buffer';
import { deflateSync, inflateSync } from 'node:zlib';
import { DamagedIndexError } from './codec-bytes.js';
import { PREBUILT_INDEX_FORMAT } from './format.js';

/** The first line's start: the format's name and a space, then the version and a line feed. */
export const MAGIC = `${PREBUILT_INDEX_FORMAT} `;
/** A first line longer than this is not one this format writes. */
const MAX_MAGIC_LINE = 32;
/** The header is JSON of options, folders and a table of sections: far under this. */
export const MAX_HEADER_BYTES = 1 << 20;
/**
 * No section inflates past this, whatever its header says (with the
 * instructions at 21,110 real-shaped skills the largest is under 10 MB).
 */
export const MAX_INFLATED_BYTES = 512 * 1024 * 1024;
/** Deflate makes at most about 1,032 bytes of each byte it stores: a claim past that is a lie. */
const MAX_DEFLATE_RATIO = 1032;

/** Where a section lies: its first byte counted from the end of the header, its bytes as stored, its size inflated. */
export interface SectionEntry {
  at: number;
  bytes: number;
  size: number;
}

/** What `writeContainer` is given: a version, a header (any JSON object) and the named sections' bytes. */
export interface ContainerInput {
  version: number;
  header: Record<string, unknown>;
  /**
   * In the file's order. Each is compressed as it comes and not held after: given one at a time (a generator),
   * no more than one section's bytes are held uncompressed (the 21,110-skill index's are 25 MB together).
   */
  sections: Iterable<readonly [string, Uint8Array]>;
  /** zlib's level for the sections (1 fastest ... 9 smallest). */
  level: number;
}

/** The file's bytes: the first line, the header with its table of sections (`sections`), then each section. */
export function writeContainer({ version, header, sections, level }: ContainerInput): Buffer {
  const table: Record<string, SectionEntry> = {};
  const stored: Buffer[] = [];
  let at = 0;
  for (const [name, bytes] of sections) {
    if (Object.hasOwn(table, name)) throw new Error(`index section "${name}" given twice`);
    const deflated = deflateSync(bytes, { level });
    table[name] = { at, bytes: deflated.length, size: bytes.length };
    stored.push(deflated);
    at += deflated.length;
  }
  const packed = deflateSync(Buffer.from(JSON.stringify({ ...header, sections: table }), 'utf8'), { level: 9 });
  const length = Buffer.alloc(4);
  length.writeUInt32LE(packed.length);
  return Buffer.concat([Buffer.from(`${MAGIC}${version}\n`, 'latin1'), length, packed, ...stored]);
}

/** The first line's version: a number, `json` (an index of formats 1 and 2, which were JSON), or undefined (not an index). */
export function containerVersion(bytes: Uint8Array): number | 'json' | undefined {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, MAX_MAGIC_LINE)).toString('latin1');
  if (/^\s*\{/.test(head)) return 'json';
  const match = /^(\S+) (\d{1,9})\n/.exec(head);
  if (match?.[1] !== PREBUILT_INDEX_FORMAT) return undefined;
  return Number(match[2]);
}

/** A container opened: its header (checked to be a JSON object) and its sections, each inflated when asked for. */
export class Container {
  private constructor(
    /** The sections' bytes: everything after the header. */
    private readonly bytes: Buffer,
    /** Where the sections start in the file. */
    private readonly first: number,
    readonly header: Record<string, unknown>,
    private readonly table: ReadonlyMap<string, SectionEntry>,
  ) {}

  /** Open `bytes` (whose version the caller has checked): throws DamagedIndexError when the header or its table cannot be trusted. */
  static open(bytes: Uint8Array): Container {
    const file = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const start = file.indexOf(0x0a) + 1;
    if (start === 0 || start > MAX_MAGIC_LINE || file.length < start + 4) throw new DamagedIndexError('ends before its header');
    const length = file.readUInt32LE(start);
    if (length > file.length - start - 4) throw new DamagedIndexError(`has a header of ${length} bytes past its end`);
    const header = parseHeader(inflate(file.subarray(start + 4, start + 4 + length), MAX_HEADER_BYTES, 'its header'));
    const first = start + 4 + length;
    return new Container(file.subarray(first), first, header, sectionTable(header.sections, file.length - first));
  }

  has(name: string): boolean {
    return this.table.has(name);
  }

  /** The sections' names, in the file's order. */
  names(): string[] {
    return [...this.table.keys()];
  }

  /** Where section `name`'s bytes lie in the file as stored (deflated), or undefined when it has none. */
  stored(name: string): { start: number; end: number } | undefined {
    const entry = this.table.get(name);
    return entry && { start: this.first + entry.at, end: this.first + entry.at + entry.bytes };
  }

  /** Section `name` inflated, or undefined when the file has none. Throws DamagedIndexError when it does not inflate to its declared size. */
  section(name: string): Buffer | undefined {
    const entry = this.table.get(name);
    if (!entry) return undefined;
    const inflated = inflate(this.bytes.subarray(entry.at, entry.at + entry.bytes), entry.size, `section "${name}"`);
    if (inflated.length !== entry.size) {
      throw new DamagedIndexError(`section "${name}" inflates to ${inflated.length} bytes, not the ${entry.size} its header says`);
    }
    return inflated;
  }
}

function inflate(bytes: Uint8Array, limit: number, what: string): Buffer {
  try {
    // One output chunk of the declared size: no chunks to gather and copy (at 21,110 skills that was most of the time inflating).
    return inflateSync(bytes, { maxOutputLength: Math.max(1, limit), chunkSize: Math.max(64, Math.min(limit, 64 * 1024 * 1024)) });
  } catch (error) {
    const reason = (error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE' ? `inflates past ${limit} bytes` : 'does not inflate';
    throw new DamagedIndexError(`${what} ${reason} (${error instanceof Error ? error.message : String(error)})`);
  }
}

function parseHeader(bytes: Buffer): Record<string, unknown> {
  let header: unknown;
  try {
    header = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw new DamagedIndexError(`header is not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header)) throw new DamagedIndexError('header is not an object');
  return header as Record<string, unknown>;
}

/** The header's table of sections, each checked to lie inside the `end` bytes after the header, with a size it could inflate to. */
function sectionTable(value: unknown, end: number): Map<string, SectionEntry> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new DamagedIndexError('header has no table of sections');
  const table = new Map<string, SectionEntry>();
  for (const [name, entry] of Object.entries(value)) {
    const { at, bytes, size } = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<string, unknown>;
    if (!isWhole(at) || !isWhole(bytes) || !isWhole(size)) throw new DamagedIndexError(`section "${name}" has no place in the file`);
    if (at + bytes > end) throw new DamagedIndexError(`section "${name}" lies past the file's end (${at + bytes} of ${end} bytes)`);
    if (size > MAX_INFLATED_BYTES || size > bytes * MAX_DEFLATE_RATIO + 64) {
      throw new DamagedIndexError(
        `section "${name}" claims ${size} bytes inflated from ${bytes}, more than deflate makes or this reader takes`,
      );
    }
    table.set(name, { at, bytes, size });
  }
  return table;
}

function isWhole(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

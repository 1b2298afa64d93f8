/**
 * The skills in an index section, column by column (a column of like values
 * compresses far better than records side by side), in the skills' order,
 * each column read with one native call (codec-bytes.ts):
 * - metadata, one JSON list, as JSON.parse reads it back: `__proto__` stays
 *   an own key; numbers JSON cannot carry are null there, listed apart;
 * - folders as a list of parent folders, each skill's parent (a Uint32Array)
 *   and own folder name ("" when it is the skill's name, as it mostly is),
 *   so only the parents (a few hundred at 20,000 skills) are decoded and
 *   checked against the configured folders;
 * - each SKILL.md's size and mtime (Float64Arrays);
 * - the few exceptions, as lists of [skill, value]: a SKILL.md not named
 *   SKILL.md in its folder, and the numbers JSON cannot carry
 *   (codec-numbers.ts);
 * - the descriptions (most of the bytes), out of the metadata's JSON (a 0
 *   holds each one's place, so its keys keep their order): each skill's
 *   kind (0: left in the JSON; 1: of characters up to U+00FF; 2: any
 *   other) and length, then each kind's texts one after another, in Latin-1
 *   and in UTF-16 (every code unit as it is). The reader gives each skill
 *   a slice of its kind's one string: twenty thousand small strings that
 *   JSON.parse would make in the young heap, and the garbage collector
 *   copy twice, cost more than a quarter of a first request from the index.
 * Nothing here knows what paths mean: they are stored as the builder's
 * pathEncoder wrote them and given back encoded.
 */
import type { SkillMetadata } from '../../base/model.js';
import type { ByteReader, ByteWriter } from './codec-bytes.js';
import type { SpecialNumber } from './codec-numbers.js';

/** A skill as stored (paths encoded, see codec-paths.ts), as the builder hands it over. */
export interface SkillRecord {
  metadata: SkillMetadata;
  directory: string;
  /** Only when SKILL.md is not `<directory>/SKILL.md`. */
  file?: string;
  size: number;
  mtimeMs: number;
  /** Numbers in `metadata` that JSON cannot carry (stored there as null). */
  specials?: SpecialNumber[];
}

export function writeSkills(records: readonly SkillRecord[], out: ByteWriter): void {
  const descriptions = new DescriptionColumns(records.length);
  out.json(records.map((record, i) => descriptions.take(record.metadata, i)));
  writeFolders(records, out);
  out.typed(Float64Array.from(records, (record) => record.size));
  out.typed(Float64Array.from(records, (record) => record.mtimeMs));
  out.json(records.flatMap((record, i) => (record.file === undefined ? [] : [[i, record.file]])));
  out.json(records.flatMap((record, i) => (record.specials ? [[i, record.specials]] : [])));
  descriptions.write(out);
}

const NARROW = 1;
const WIDE = 2;

/** The descriptions taken out of the metadata as it is written (see the module's comment). */
class DescriptionColumns {
  readonly kinds: Uint8Array;
  readonly lengths: Uint32Array;
  private readonly narrow: string[] = [];
  private readonly wide: string[] = [];

  constructor(count: number) {
    this.kinds = new Uint8Array(count);
    this.lengths = new Uint32Array(count);
  }

  /** Skill `i`'s metadata as its JSON is written: a string description replaced by 0 in its place, and kept here. */
  take(metadata: SkillMetadata, i: number): SkillMetadata | Record<string, unknown> {
    const { description } = metadata as { description?: unknown };
    if (typeof description !== 'string') return metadata;
    const narrow = !/[\u0100-\u{10ffff}]/u.test(description);
    (narrow ? this.narrow : this.wide).push(description);
    this.kinds[i] = narrow ? NARROW : WIDE;
    this.lengths[i] = description.length;
    return { ...metadata, description: 0 };
  }

  write(out: ByteWriter): void {
    out.typed(this.kinds).typed(this.lengths).text(this.narrow.join(''), 'latin1').text(this.wide.join(''), 'utf16le');
  }
}

/** Puts each skill's description back into its metadata, as a slice of its kind's text; throws when the columns do not add up. */
function placeDescriptions(input: ByteReader, metadata: ReadonlyArray<Record<string, unknown>>): void {
  const count = metadata.length;
  const kinds = input.typed(Uint8Array, count);
  const lengths = input.typed(Uint32Array, count);
  const narrowBytes = input.block();
  const wideBytes = input.block();
  if (wideBytes.length % 2 !== 0) throw input.damaged('holds wide descriptions of an odd number of bytes');
  const texts = ['', narrowBytes.toString('latin1'), wideBytes.toString('utf16le')];
  const at = [0, 0, 0];
  for (let i = 0; i < count; i++) {
    const kind = kinds[i] as number;
    if (kind === 0) continue;
    const record = metadata[i];
    const text = texts[kind];
    const start = at[kind] as number;
    const end = start + (lengths[i] as number);
    if (
      text === undefined ||
      typeof record !== 'object' ||
      record === null ||
      !Object.hasOwn(record, 'description') ||
      record.description !== 0 ||
      end > text.length
    ) {
      throw input.damaged(`has no place for skill ${i + 1}'s description`);
    }
    record.description = text.slice(start, end);
    at[kind] = end;
  }
  if (at[NARROW] !== texts[NARROW]?.length || at[WIDE] !== texts[WIDE]?.length) throw input.damaged('holds descriptions no skill has');
}

/** Parents and own folder names; a folder with no `/` before its name (another drive, a bare name) is stored whole, under parent 0. */
function writeFolders(records: readonly SkillRecord[], out: ByteWriter): void {
  const parents = new Map<string, number>();
  const parentOf = new Uint32Array(records.length);
  const leaves: string[] = [];
  records.forEach(({ directory, metadata }, i) => {
    const cut = directory.lastIndexOf('/');
    const leaf = directory.slice(cut + 1);
    if (cut <= 0 || leaf === '' || leaf === '.' || leaf === '..') {
      leaves.push(directory);
      return;
    }
    const parent = directory.slice(0, cut);
    let id = parents.get(parent);
    if (id === undefined) parents.set(parent, (id = parents.size + 1));
    parentOf[i] = id;
    leaves.push(leaf === metadata.name ? '' : leaf);
  });
  out
    .json([...parents.keys()])
    .typed(parentOf)
    .json(leaves);
}

/** The skills of a section, checked for shape (counts, lengths, types); what values mean is the reader's to check. */
export class SkillTable {
  readonly metadata: Array<Record<string, unknown>>;
  readonly parents: string[];
  private readonly parentOf: Uint32Array;
  private readonly leaves: string[];
  readonly sizes: Float64Array;
  readonly mtimes: Float64Array;
  private readonly files: ReadonlyMap<number, string>;
  private readonly specialsOf: ReadonlyMap<number, unknown>;

  constructor(
    input: ByteReader,
    readonly count: number,
  ) {
    const metadata = input.json();
    if (!Array.isArray(metadata) || metadata.length !== count) throw input.damaged(`does not hold ${count} skills' metadata`);
    this.metadata = metadata as Array<Record<string, unknown>>;
    this.parents = input.strings();
    this.parentOf = input.typed(Uint32Array, count);
    this.leaves = input.strings(count);
    this.sizes = input.typed(Float64Array, count);
    this.mtimes = input.typed(Float64Array, count);
    this.files = exceptions(input, count, 'SKILL.md paths', (value): value is string => typeof value === 'string' && value !== '');
    this.specialsOf = exceptions(input, count, 'special numbers', (_value): _value is unknown => true);
    placeDescriptions(input, this.metadata);
    input.end();
  }

  /**
   * Skill `i`'s folder's parent as stored: 0 when `leaf(i)` is the whole
   * folder, else its id, at most `parents.length` (the reader checks). Two
   * accessors, not one object of both: 20,000 objects made and dropped at a
   * first request were garbage the collector copied.
   */
  parent(i: number): number {
    return this.parentOf[i] as number;
  }

  /** Skill `i`'s own folder name as stored ("": the skill's name), or its whole folder when `parent(i)` is 0. */
  leaf(i: number): string {
    return this.leaves[i] as string;
  }

  /** Skill `i`'s SKILL.md path as stored, when it is not SKILL.md in its folder. */
  file(i: number): string | undefined {
    return this.files.get(i);
  }

  /** Skill `i`'s special numbers as stored (codec-numbers.ts checks them), or undefined. */
  specials(i: number): unknown {
    return this.specialsOf.get(i);
  }
}

/** A JSON list of [skill, value] pairs, skills ascending and under `count`. */
function exceptions<T>(input: ByteReader, count: number, what: string, valid: (value: unknown) => value is T): Map<number, T> {
  const list = input.json();
  const found = new Map<number, T>();
  if (!Array.isArray(list)) throw input.damaged(`does not list ${what}`);
  let previous = -1;
  for (const pair of list) {
    const [i, value] = Array.isArray(pair) && pair.length === 2 ? (pair as [unknown, unknown]) : [undefined, undefined];
    if (!Number.isInteger(i) || (i as number) <= previous || (i as number) >= count || !valid(value))
      throw input.damaged(`lists ${what} it should not`);
    found.set(i as number, value);
    previous = i as number;
  }
  return found;
}

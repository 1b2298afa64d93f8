/**
 * The skills in an index section, column by column (a column of like values
 * compresses far better than records side by side), in the skills' order:
 * - names, a string table;
 * - metadata, one JSON text a skill, without its name when the name is its
 *   first key (the name column has it; it is put back in front, so keys keep
 *   their order), as JSON.parse reads it back: `__proto__` stays an own key;
 * - folders as a table of parent folders and each skill's parent and own
 *   folder name, so only the parents (a few hundred at 20,000 skills) are
 *   decoded and checked against the configured folders;
 * - each SKILL.md's size and mtime;
 * - the few exceptions, as lists of (skill, value): a SKILL.md not named
 *   SKILL.md in its folder, and numbers JSON cannot carry (codec-numbers.ts).
 * Nothing here knows what paths mean: they are stored as the builder's
 * pathEncoder wrote them and given back encoded.
 */
import type { SkillMetadata } from '../../base/model.js';
import { ByteReader, ByteWriter, DamagedIndexError, type StringTable } from './codec-bytes.js';
import type { SpecialNumber } from './codec-numbers.js';

/** A skill as stored (paths encoded, see codec-paths.ts), as the builder hands it over. */
export interface SkillRecord {
  metadata: SkillMetadata;
  directory: string;
  /** Only when SKILL.md is not `<directory>/SKILL.md`. */
  file?: string;
  size: number;
  mtimeMs: number;
  specials?: SpecialNumber[];
}

/** Metadata of this skill is stored whole (its name was not its first key). */
const WHOLE = 1;

export function writeSkills(records: readonly SkillRecord[], out: ByteWriter): void {
  const names = records.map((record) => record.metadata.name);
  const texts: string[] = [];
  const shapes = new ByteWriter();
  for (const { metadata } of records) {
    const text = JSON.stringify(metadata);
    const head = `{"name":${JSON.stringify(metadata.name)}`;
    const first = text.startsWith(head) && (text[head.length] === ',' || text[head.length] === '}');
    shapes.varint(first ? 0 : WHOLE);
    texts.push(first ? `{${text.slice(head.length + 1)}` : text);
  }
  out.strings(names).block(shapes.result()).strings(texts);
  writeFolders(records, out);
  for (const record of records) out.varint(record.size);
  for (const record of records) out.float64(record.mtimeMs);
  const files = records.flatMap((record, i) => (record.file === undefined ? [] : [[i, record.file] as const]));
  out.varint(files.length);
  for (const [i, file] of files) out.varint(i).strings([file]);
  const specials = records.flatMap((record, i) => (record.specials ? [[i, JSON.stringify(record.specials)] as const] : []));
  out.varint(specials.length);
  for (const [i, text] of specials) out.varint(i).strings([text]);
}

/** Parents and own folder names: a folder with no `/` (another drive, a bare name) is stored whole, under parent 0. */
function writeFolders(records: readonly SkillRecord[], out: ByteWriter): void {
  const parents = new Map<string, number>();
  const parentOf = new ByteWriter();
  const leaves: string[] = [];
  for (const { directory } of records) {
    const cut = directory.lastIndexOf('/');
    const leaf = directory.slice(cut + 1);
    if (cut <= 0 || leaf === '' || leaf === '.' || leaf === '..') {
      parentOf.varint(0);
      leaves.push(directory);
      continue;
    }
    const parent = directory.slice(0, cut);
    let id = parents.get(parent);
    if (id === undefined) parents.set(parent, (id = parents.size + 1));
    parentOf.varint(id);
    leaves.push(leaf);
  }
  out
    .varint(parents.size)
    .strings([...parents.keys()])
    .block(parentOf.result())
    .strings(leaves);
}

/** The skills of a section, each field decoded when asked for. Building it checks every count and length. */
export class SkillTable {
  private readonly whole: Uint8Array;
  private readonly parentOf: Uint32Array;
  private readonly sizes: Float64Array;
  private readonly mtimes: Float64Array;
  private readonly files: ReadonlyMap<number, string>;
  private readonly specialsOf: ReadonlyMap<number, string>;
  readonly names: StringTable;
  /** Stored parent folders (encoded), for parent ids 1 and up. */
  readonly parents: string[];
  private readonly metadataTexts: StringTable;
  private readonly leaves: StringTable;

  constructor(
    input: ByteReader,
    readonly count: number,
  ) {
    this.names = input.strings(count);
    this.whole = flags(new ByteReader(input.block(), `${input.what}'s metadata shapes`), count);
    this.metadataTexts = input.strings(count);
    this.parents = input.strings(input.count(count, 'parent folders')).all();
    const parentIds = new ByteReader(input.block(), `${input.what}'s folders`);
    this.parentOf = new Uint32Array(count);
    for (let i = 0; i < count; i++) this.parentOf[i] = parentIds.count(this.parents.length, 'a parent folder');
    parentIds.end();
    this.leaves = input.strings(count);
    this.sizes = new Float64Array(count);
    for (let i = 0; i < count; i++) this.sizes[i] = input.varint();
    if (input.left < count * 8) throw input.damaged('ends before its modification times');
    this.mtimes = new Float64Array(count);
    for (let i = 0; i < count; i++) this.mtimes[i] = input.float64();
    this.files = exceptions(input, count, 'SKILL.md paths');
    this.specialsOf = exceptions(input, count, 'special numbers');
    input.end();
  }

  name(i: number): string {
    return this.names.get(i);
  }

  /** Skill `i`'s metadata, parsed now (a fresh object each call). Throws DamagedIndexError when its text is not a JSON object. */
  metadata(i: number): Record<string, unknown> {
    const text = this.metadataTexts.get(i);
    const json =
      this.whole[i] === WHOLE ? text : `{"name":${JSON.stringify(this.names.get(i))}${text === '{}' ? '}' : `,${text.slice(1)}`}`;
    return parseObject(json, i);
  }

  /** Skill `i`'s folder as stored: its parent's id (0: `leaf` is the whole folder) and its own name. */
  folder(i: number): { parent: number; leaf: string } {
    return { parent: this.parentOf[i] as number, leaf: this.leaves.get(i) };
  }

  /** Skill `i`'s SKILL.md path as stored, when it is not SKILL.md in its folder. */
  file(i: number): string | undefined {
    return this.files.get(i);
  }

  size(i: number): number {
    return this.sizes[i] as number;
  }

  mtimeMs(i: number): number {
    return this.mtimes[i] as number;
  }

  /** Skill `i`'s special numbers as stored (codec-numbers.ts checks them), or undefined. */
  specials(i: number): unknown {
    const text = this.specialsOf.get(i);
    return text === undefined ? undefined : JSON.parse(text);
  }
}

function flags(input: ByteReader, count: number): Uint8Array {
  const values = new Uint8Array(count);
  for (let i = 0; i < count; i++) values[i] = input.count(WHOLE, 'a metadata shape');
  input.end();
  return values;
}

/** A list of (skill, string) pairs, skills ascending. */
function exceptions(input: ByteReader, count: number, what: string): Map<number, string> {
  const found = new Map<number, string>();
  const length = input.count(count, what);
  let previous = -1;
  for (let n = 0; n < length; n++) {
    const i = input.count(count - 1, `a skill with ${what}`);
    if (i <= previous) throw input.damaged(`lists ${what} out of order`);
    found.set(i, input.strings(1).get(0));
    previous = i;
  }
  return found;
}

function parseObject(text: string, i: number): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new DamagedIndexError(`skill ${i + 1}'s metadata is not a JSON object`);
  }
  return value as Record<string, unknown>;
}

/**
 * A prebuilt skill index: what start-up needs (each skill's metadata and
 * folder, its SKILL.md's size and mtime, the diagnostics, and the options
 * that shaped discovery) written once at build time as one versioned JSON
 * document, so a cold start reads one file instead of walking every folder.
 *
 * Reading never throws: it gives `{ ok: true, result }`, a DiscoveryResult a
 * lazy index is built from, or `{ ok: false, reason, message, diagnostic }`,
 * after which the caller scans as usual and logs the one warning. Bodies are
 * still read at activation, where `checkSkillFile` tells whether a SKILL.md
 * changed or vanished since the build. Skills added later are not seen until
 * the index is rebuilt.
 *
 * Paths are stored relative to the index file's folder, so an application
 * moved whole (built in CI, run from /var/task) still finds its skills.
 */
import { Buffer } from 'node:buffer';
import { endianness } from 'node:os';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { version as packageVersion } from '../../package.json';
import { isModelInvocable } from '../run/activation.js';
import { catalogEntries } from '../catalog/catalog.js';
import { createLimiter, MAX_CONCURRENT_FS_CALLS } from '../base/concurrency.js';
import { createDiagnostic, type Diagnostic } from '../base/diagnostics.js';
import { errorCode, errorReason, type FileStats, type SkillsFileSystem } from '../base/fs.js';
import { FolderSet } from '../base/paths.js';
import { isS3Url } from '../storage/s3-url.js';
import { discoverOnce } from './bucket-source.js';
import { SKILL_FILE } from '../base/skill-file.js';
import { resolveOptions, type ResolvedOptions, type SkillsOptions } from '../config/options.js';
import { bodyIndexOf, bodyIndexProblem, type BodyIndex } from '../catalog/body-terms.js';
import { PackedPostings, sortedByName } from '../base/compact.js';
import { splitFrontmatter } from '../frontmatter/split.js';
import { BODY_SCHEME, bodyCollectorFor, buildRankerData, RANKER_SCHEME, rankerDataProblem, type RankerData } from '../catalog/rank.js';
import { firstOfEachName } from '../index/skill-index.js';
import type { DiscoveryResult, Skill, SkillEntry, SkillMetadata } from '../index/types.js';

export const PREBUILT_INDEX_FORMAT = 'sisu-skills-index';
/**
 * Bump whenever the document's shape or meaning changes. 2 added `ranker`;
 * a reader also takes the versions in READABLE_VERSIONS (1: no ranker, which
 * then ranks as after a scan, from the skills' texts).
 */
export const PREBUILT_INDEX_VERSION = 2;
const READABLE_VERSIONS: readonly unknown[] = [1, PREBUILT_INDEX_VERSION];

/** What a SKILL.md looked like when the index was built. */
export interface SkillStamp {
  size: number;
  mtimeMs: number;
}

/** Each stored skill's SKILL.md stamp. */
export interface SkillStamps {
  /** The stamp of `entry` (an index's skill: the first of its name), or undefined when the index holds no such skill. */
  of(entry: SkillEntry): SkillStamp | undefined;
}

/**
 * Stamps kept in the skills' order, two numbers each. The lookup is built on
 * the first call (an activation), not at start-up, and by name, not by path:
 * names are short and already hashed, while a path as a key is first copied
 * flat (a Map by path held about 3 MB at 20,000 skills, and took 10 ms to
 * build). An index serves the first skill of each name, so the first wins.
 */
class StampTable implements SkillStamps {
  private byName: Map<string, number> | undefined;
  private readonly names: string[] = [];
  private readonly paths: string[] = [];
  private readonly sizes: Float64Array;
  private readonly mtimes: Float64Array;

  constructor(capacity: number) {
    this.sizes = new Float64Array(capacity);
    this.mtimes = new Float64Array(capacity);
  }

  add(name: string, path: string, size: number, mtimeMs: number): void {
    this.sizes[this.paths.length] = size;
    this.mtimes[this.paths.length] = mtimeMs;
    this.names.push(name);
    this.paths.push(path);
  }

  of(entry: SkillEntry): SkillStamp | undefined {
    if (!this.byName) {
      this.byName = new Map();
      for (let i = 0; i < this.names.length; i++) {
        const name = this.names[i] as string;
        if (!this.byName.has(name)) this.byName.set(name, i);
      }
    }
    const at = this.byName.get(entry.metadata.name);
    if (at === undefined || this.paths[at] !== entry.path) return undefined;
    return { size: this.sizes[at] as number, mtimeMs: this.mtimes[at] as number };
  }
}

/** The options that decide which skills discovery finds: an index built with others is not used. */
export type DiscoveryShape = Pick<ResolvedOptions, 'directories' | 'packages' | 'include' | 'exclude' | 'strict'>;

/** A special number at `path` inside a skill's metadata, which JSON cannot carry (stored there as null). */
type SpecialNumber = [path: Array<string | number>, value: 'NaN' | 'Infinity' | '-Infinity' | '-0'];

/** One skill as stored. Paths are encoded (see `encodePath`). */
export interface PrebuiltSkillRecord extends SkillStamp {
  directory: string;
  /** Only when SKILL.md is not `<directory>/SKILL.md`. */
  file?: string;
  metadata: SkillMetadata;
  /** Numbers in `metadata` that JSON turned into null, restored on reading. */
  specials?: SpecialNumber[];
}

/**
 * The ranker's index over the skills the model may activate (see
 * `rankedSkills`), as `RankerData` in text: typed arrays as base64 of their
 * little-endian bytes, terms joined by spaces (a term is letters and digits
 * only). Loading it decodes the arrays and tokenises nothing. Fields may be
 * added (a reader ignores what it does not know); what terms and weights
 * mean is `scheme`'s, and data of another scheme is not used.
 */
export interface PrebuiltRanker {
  scheme: string;
  count: number;
  terms: string;
  offsets: string;
  /** 16 or 32: the width of each doc number in `docs`. */
  docBits: 16 | 32;
  docs: string;
  weights: string;
  /**
   * The ranked skills' doc numbers sorted by name (int32, base64): the order a
   * ranked catalog finds its entries in, so start-up does not sort 20,000 names.
   * Added within format 2: a reader without it sorts them itself.
   */
  nameOrder?: string;
  /** The instructions' index over the same skills (written unless `rankInstructions: false`). */
  body?: PrebuiltBody;
}

/** The stored ranker as read: RankerData, plus the ranked skills' positions sorted by name when the index holds them. */
export interface PrebuiltRankerData extends RankerData {
  nameOrder?: Int32Array;
}

/**
 * The instructions' terms (src/catalog/body-terms.ts) in the ranker's text form, plus
 * each term's IDF (float32, base64), the IDF of a term one body holds, and
 * how many bodies were read. Data of another `scheme` (BODY_SCHEME) is not used:
 * the middleware then reads the bodies in the background, as after a scan.
 */
export interface PrebuiltBody {
  scheme: string;
  count: number;
  read: number;
  terms: string;
  offsets: string;
  docBits: 16 | 32;
  docs: string;
  weights: string;
  idf: string;
  rareIdf: number;
}

export interface PrebuiltIndexDocument {
  format: typeof PREBUILT_INDEX_FORMAT;
  version: typeof PREBUILT_INDEX_VERSION;
  /** The @sisu-ai/mw-skills version that wrote it (information: compatibility is `version`'s). */
  packageVersion: string;
  /** ISO date of the build. */
  createdAt: string;
  options: DiscoveryShape;
  scannedDirectories: string[];
  errors: Diagnostic[];
  warnings: Diagnostic[];
  skills: PrebuiltSkillRecord[];
  ranker: PrebuiltRanker;
  /** The skills' vectors (`sisu-skills index --embeddings`), by content key: src/meaning/vector-file.ts. Added within format 2. */
  vectors?: unknown;
}

/** What reading an index gave: discovery's result, plus what each SKILL.md looked like at the build. */
export interface PrebuiltDiscovery extends DiscoveryResult {
  /** Each skill's stamp, which `checkSkillFile` compares with. */
  stamps: SkillStamps;
  file: string;
  createdAt: string;
  packageVersion: string;
  /** The ranker over `rankedSkills(skills)`, when the index holds one of this version's scheme. */
  ranker?: PrebuiltRankerData;
  /** The skills' vectors block as stored, when the index holds one (decoded by the middleware's meaning). */
  vectors?: unknown;
}

export type PrebuiltIndexReason =
  'missing' | 'unreadable' | 'not-json' | 'wrong-format' | 'incompatible-version' | 'other-options' | 'malformed';

export type PrebuiltIndexRead =
  | { ok: true; result: PrebuiltDiscovery }
  | {
      ok: false;
      reason: PrebuiltIndexReason;
      /** For the operator: what is wrong and how to fix it. */
      message: string;
      /** The same, as the one warning to log (code INDEX_UNUSABLE). */
      diagnostic: Diagnostic;
    };

// ---------------------------------------------------------------------------
// Writing

/**
 * Discover the skills `options` name (lazily: frontmatter only) and the stamp
 * of each SKILL.md, as the document to write at `output`. Throws
 * SkillsConfigError on invalid options, like the middleware; skill problems
 * are in the document's diagnostics.
 */
export async function buildPrebuiltIndex(
  options: SkillsOptions,
  output: string,
  now: () => Date = () => new Date(),
  build: IndexBuildOptions = {},
): Promise<PrebuiltIndexDocument> {
  const resolved = resolveOptions(options);
  const result = await discoverOnce(resolved, { frontmatterOnly: true });
  return prebuiltIndexFrom(result, resolved, output, now(), build);
}

/** What goes into an index beyond what discovery finds. */
export interface IndexBuildOptions {
  /**
   * Store the instructions' terms too (every SKILL.md read at build time),
   * so ranking reads them from the first request instead of reading the
   * files in the background. `sisu-skills index --instructions`.
   * @default false: the index stays as small, and loads as fast, as without.
   */
  instructions?: boolean;
}

/** The document for a discovery already made with `options`. Stats each SKILL.md; one that vanished in between is left out with an error. */
export async function prebuiltIndexFrom(
  result: Pick<DiscoveryResult, 'scannedDirectories' | 'errors' | 'warnings'> & { skills: readonly SkillEntry[] },
  options: DiscoveryShape & Pick<ResolvedOptions, 'fs'>,
  output: string,
  createdAt: Date,
  build: IndexBuildOptions = {},
): Promise<PrebuiltIndexDocument> {
  const encode = pathEncoder(output);
  const run = createLimiter(MAX_CONCURRENT_FS_CALLS);
  const errors = [...result.errors];
  const stamped = await Promise.all(
    result.skills.map(async (entry) => {
      try {
        const stats = await run(() => options.fs.stat(entry.path));
        return { entry, stamp: { size: stats.size, mtimeMs: stats.mtimeMs } };
      } catch (error) {
        errors.push(vanishedAtBuild(entry, error));
        return undefined;
      }
    }),
  );
  const skills: PrebuiltSkillRecord[] = [];
  const kept: SkillEntry[] = [];
  for (const item of stamped) {
    if (item) {
      skills.push(recordOf(item.entry, item.stamp, encode));
      kept.push(item.entry);
    }
  }
  const encodeDiagnostic = (d: Diagnostic): Diagnostic => ({ ...d, file: encode(d.file) });
  return {
    format: PREBUILT_INDEX_FORMAT,
    version: PREBUILT_INDEX_VERSION,
    packageVersion,
    createdAt: createdAt.toISOString(),
    options: {
      directories: options.directories.map(encode),
      packages: [...options.packages],
      include: [...options.include],
      exclude: [...options.exclude],
      strict: options.strict,
    },
    scannedDirectories: result.scannedDirectories.map(encode),
    errors: errors.map(encodeDiagnostic),
    warnings: result.warnings.map(encodeDiagnostic),
    skills,
    ranker: await rankerOf(rankedSkills(kept), options.fs, build.instructions === true, run),
  };
}

/** The stored ranker over `ranked`: its postings and, with `instructions`, the instructions' index (bodies read now). */
async function rankerOf(
  ranked: readonly SkillEntry[],
  fs: SkillsFileSystem,
  instructions: boolean,
  run: <T>(task: () => Promise<T>) => Promise<T>,
): Promise<PrebuiltRanker> {
  const ranker = encodeRanker(buildRankerData(catalogEntries(ranked)));
  ranker.nameOrder = base64Of(sortedByName(ranked.length, (doc) => (ranked[doc] as SkillEntry).metadata.name));
  if (!instructions) return ranker;
  // A body that cannot be read now is left out: that skill is ranked by its metadata.
  const bodies = await Promise.all(
    ranked.map((entry) =>
      run(() => fs.readFile(entry.path, 'utf8')).then(
        (text) => splitFrontmatter(text).body,
        () => undefined,
      ),
    ),
  );
  const collector = bodyCollectorFor(ranked.length);
  bodies.forEach((body, doc) => body !== undefined && collector.add(doc, body));
  // No body read (none could be): nothing to store, the ranker reads metadata only.
  return collector.count === 0 ? ranker : { ...ranker, body: encodeBody(collector.build()) };
}

/**
 * The skills a middleware's ranker ranks, in its order: the index's skills
 * (first of each name) that the model may activate, as `libraryOf` narrows
 * them. Doc numbers in the stored ranker are positions in this list.
 */
export function rankedSkills<S extends SkillEntry>(skills: readonly S[]): S[] {
  return firstOfEachName(skills).filter((entry) => isModelInvocable(entry.metadata));
}

/**
 * The document as the file's text: one line per skill, so a diff of two
 * builds reads skill by skill; the ranker last. ASCII only: every other
 * character is written as a JSON `\\uXXXX` escape, the same value to any JSON
 * reader. A text with one character past ASCII is decoded from UTF-8, and
 * held, at two bytes a character: at 20,000 real-shaped skills (3,415 such
 * characters in 14.7 MB) that took 35 ms of start-up instead of 10 ms, and
 * the text held 29 MB instead of 14.7 MB while it was parsed.
 */
export function serializePrebuiltIndex(document: PrebuiltIndexDocument): string {
  const { skills, ranker, ...head } = document;
  const top = JSON.stringify(head, null, 2).slice(0, -2);
  const lines = skills.map((skill) => `    ${JSON.stringify(skill)}`);
  const rankerText = JSON.stringify(ranker, null, 2).split('\n').join('\n  ');
  const text = `${top},\n  "skills": [${lines.length > 0 ? `\n${lines.join(',\n')}\n  ` : ''}],\n  "ranker": ${rankerText}\n}\n`;
  return asciiJson(text);
}

/**
 * JSON text with each character past ASCII as a `\\uXXXX` escape. Outside
 * strings JSON has only ASCII, so every such character is inside a string,
 * where the escape means the same character; a surrogate pair becomes two
 * escapes, which JSON reads back as the same pair.
 */
function asciiJson(text: string): string {
  return text.replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function recordOf(entry: SkillEntry, stamp: SkillStamp, encode: (path: string) => string): PrebuiltSkillRecord {
  const record: PrebuiltSkillRecord = {
    directory: encode(entry.directory),
    size: stamp.size,
    mtimeMs: stamp.mtimeMs,
    metadata: entry.metadata,
  };
  if (entry.path !== skillFileIn(entry.directory)) record.file = encode(entry.path);
  const specials: SpecialNumber[] = [];
  if (!jsonCarries(entry.metadata)) {
    record.metadata = withoutSpecials(entry.metadata, [], specials) as SkillMetadata;
    if (specials.length > 0) record.specials = specials;
  }
  return record;
}

function vanishedAtBuild(entry: SkillEntry, error: unknown): Diagnostic {
  return createDiagnostic(
    'SKILL_UNREADABLE',
    entry.path,
    `cannot read ${SKILL_FILE} while building the index: ${errorReason(error)}. Check the file, then build the index again; the skill was left out.`,
  );
}

// ---------------------------------------------------------------------------
// Paths: relative to the index file's folder

const SKILL_SUFFIX = sep + SKILL_FILE;
const skillFileIn = (directory: string): string => (directory.endsWith(sep) ? directory + SKILL_FILE : directory + sep + SKILL_FILE);

/**
 * How paths are written into an index bound for `output`: relative to its
 * folder on disk; as they are (absolute, or `s3://`) for an index published
 * to a bucket, whose folder is no place on any machine.
 */
function pathEncoder(output: string): (path: string) => string {
  if (isS3Url(output)) return (path) => path;
  const base = dirname(resolve(output));
  return (path) => encodePath(path, base);
}

/** Where an index was read from: an absolute path, or its `s3://bucket/key` as it is. */
function indexLocation(file: string): string {
  return isS3Url(file) ? file : resolve(file);
}

/** `./a/b` or `../a/b` (always `/`) for an absolute path; anything else (`<options>`, another drive) as it is. */
function encodePath(path: string, base: string): string {
  if (!isAbsolute(path)) return path;
  const rel = relative(base, path);
  if (isAbsolute(rel)) return path;
  const posix = sep === '/' ? rel : rel.split(sep).join('/');
  if (posix === '') return '.';
  return posix.startsWith('../') || posix === '..' ? posix : `./${posix}`;
}

/** Decodes paths for one index file; each `../` depth is resolved once, and clean remainders are appended as they are. */
function pathDecoder(base: string): (path: string) => string {
  const ups: string[] = [base];
  const upTo = (depth: number): string => {
    while (ups.length <= depth) ups.push(dirname(ups[ups.length - 1] ?? base));
    return ups[depth] ?? base;
  };
  return (path) => {
    if (path === '.') return base;
    let rest: string;
    let depth = 0;
    if (path.startsWith('./')) rest = path.slice(2);
    else if (path === '..' || path.startsWith('../')) {
      rest = path;
      while (rest === '..' || rest.startsWith('../')) {
        depth++;
        rest = rest.slice(3);
      }
    } else return path;
    // Anything path.relative would not have written (`.`, `..` or empty segments inside) goes the slow, normalising way.
    if (rest === '' || /(^|\/)\.{0,2}(\/|$)/.test(rest)) return resolve(base, path);
    const folder = upTo(depth);
    const tail = sep === '/' ? rest : rest.split('/').join(sep);
    // join gives one flat string: `+` would give a pair of pieces, which the first look at its
    // characters (the root check) copies flat anyway, keeping the pair as well.
    return folder.endsWith(sep) ? [folder, tail].join('') : [folder, tail].join(sep);
  };
}

// ---------------------------------------------------------------------------
// Metadata numbers JSON cannot carry (NaN, ±Infinity, -0)

function jsonCarries(value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0);
  if (typeof value !== 'object' || value === null) return true;
  if (Array.isArray(value)) return value.every(jsonCarries);
  return Object.values(value).every(jsonCarries);
}

function withoutSpecials(value: unknown, path: Array<string | number>, found: SpecialNumber[]): unknown {
  if (typeof value === 'number' && !jsonCarries(value)) {
    found.push([path, Object.is(value, -0) ? '-0' : Number.isNaN(value) ? 'NaN' : value > 0 ? 'Infinity' : '-Infinity']);
    return null;
  }
  if (Array.isArray(value)) return value.map((item, i) => withoutSpecials(item, [...path, i], found));
  if (typeof value === 'object' && value !== null) {
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      // defineProperty: `__proto__` stays an own key, as the parser made it.
      Object.defineProperty(copy, key, {
        value: withoutSpecials(item, [...path, key], found),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return copy;
  }
  return value;
}

const SPECIAL_VALUES: Record<SpecialNumber[1], number> = { NaN: Number.NaN, Infinity: Infinity, '-Infinity': -Infinity, '-0': -0 };

/** Put the special numbers back; false when a path does not lead to a null the writer left. */
function restoreSpecials(metadata: Record<string, unknown>, specials: unknown): boolean {
  if (!Array.isArray(specials)) return false;
  for (const special of specials) {
    if (!Array.isArray(special) || special.length !== 2) return false;
    const [path, name] = special as [unknown, unknown];
    if (!Array.isArray(path) || path.length === 0 || typeof name !== 'string' || !Object.hasOwn(SPECIAL_VALUES, name)) return false;
    let holder: unknown = metadata;
    for (const key of path.slice(0, -1)) {
      holder =
        typeof holder === 'object' && holder !== null && (typeof key === 'string' || typeof key === 'number')
          ? (holder as Record<string, unknown>)[key]
          : undefined;
    }
    const last: unknown = path[path.length - 1];
    if (typeof holder !== 'object' || holder === null || (typeof last !== 'string' && typeof last !== 'number')) return false;
    if (!Object.hasOwn(holder, last) || (holder as Record<string, unknown>)[last] !== null) return false;
    (holder as Record<string, unknown>)[last] = SPECIAL_VALUES[name as SpecialNumber[1]];
  }
  return true;
}

// ---------------------------------------------------------------------------
// The ranker: typed arrays as base64 of little-endian bytes

const BIG_ENDIAN = endianness() === 'BE';

type PackedArray = Int32Array | Uint16Array | Uint32Array | Float32Array;

function encodeBody(index: BodyIndex): PrebuiltBody {
  const { offsets, docs, weights } = index.postings;
  return {
    scheme: BODY_SCHEME,
    count: index.size,
    read: index.read,
    terms: index.terms.join(' '),
    offsets: base64Of(offsets),
    docBits: docs instanceof Uint16Array ? 16 : 32,
    docs: base64Of(docs),
    weights: base64Of(weights),
    idf: base64Of(Float32Array.from(index.idf)),
    rareIdf: index.rareIdf,
  };
}

/** The stored body index, if there is one of this version's scheme over `count` skills; or why it is damaged. */
function decodeInstructions(value: unknown, count: number): { ok: true; body?: BodyIndex } | { ok: false; problem: string } {
  if (value === undefined) return { ok: true };
  if (!isRecord(value)) return { ok: false, problem: '"ranker.body" is not an object' };
  if (value.scheme !== BODY_SCHEME) return { ok: true };
  const { terms, read, rareIdf } = value;
  if (value.count !== count) return { ok: false, problem: '"ranker.body.count" is not the ranker\'s' };
  if (typeof terms !== 'string' || !isCount(read) || typeof rareIdf !== 'number') {
    return { ok: false, problem: '"ranker.body" terms, read or rareIdf are missing' };
  }
  const { offsets, docs, weights } = postingArrays(value);
  const idf = arrayOf(value.idf, (n) => new Float32Array(n));
  if (!offsets || !docs || !weights || !idf) return { ok: false, problem: '"ranker.body" arrays are not base64 arrays' };
  const list = terms === '' ? [] : terms.split(' ');
  const problem =
    rankerDataProblem({ scheme: RANKER_SCHEME, count, terms: list, offsets, docs, weights }) ??
    bodyIndexProblem({ terms: list, idf: Float64Array.from(idf), size: count, read, rareIdf });
  if (problem) return { ok: false, problem: `"ranker.body": ${problem}` };
  return {
    ok: true,
    body: bodyIndexOf({
      terms: list,
      postings: new PackedPostings(offsets, docs, weights),
      idf: Float64Array.from(idf),
      size: count,
      read,
      rareIdf,
    }),
  };
}

function encodeRanker(data: RankerData): PrebuiltRanker {
  return {
    scheme: data.scheme,
    count: data.count,
    terms: data.terms.join(' '),
    offsets: base64Of(data.offsets),
    docBits: data.docs instanceof Uint16Array ? 16 : 32,
    docs: base64Of(data.docs),
    weights: base64Of(data.weights),
  };
}

function base64Of(array: PackedArray): string {
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
function arrayOf<A extends PackedArray>(text: unknown, make: (length: number) => A): A | undefined {
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

/** Stored postings' typed arrays (undefined where one is missing or not base64 of its type). */
function postingArrays(value: Record<string, unknown>): {
  offsets: Int32Array | undefined;
  docs: Uint16Array | Uint32Array | undefined;
  weights: Uint16Array | undefined;
} {
  const { docBits } = value;
  return {
    offsets: arrayOf(value.offsets, (n) => new Int32Array(n)),
    docs:
      docBits === 16
        ? arrayOf(value.docs, (n) => new Uint16Array(n))
        : docBits === 32
          ? arrayOf(value.docs, (n) => new Uint32Array(n))
          : undefined,
    weights: arrayOf(value.weights, (n) => new Uint16Array(n)),
  };
}

/**
 * The stored ranker as RankerData: `{ ok: true, data }` (data undefined when
 * the document has none, or one of another scheme, named by `otherScheme`:
 * ranking then reads the skills, as after a scan), or why it is damaged.
 */
function decodeRanker(
  value: unknown,
  skills: number,
): { ok: true; data?: PrebuiltRankerData; otherScheme?: string } | { ok: false; problem: string } {
  if (value === undefined) return { ok: true };
  if (!isRecord(value)) return { ok: false, problem: '"ranker" is not an object' };
  if (value.scheme !== RANKER_SCHEME) return { ok: true, otherScheme: JSON.stringify(value.scheme ?? null) };
  const { count, terms } = value;
  if (!isCount(count) || count > skills) return { ok: false, problem: '"ranker.count" is not a number of skills' };
  if (typeof terms !== 'string') return { ok: false, problem: '"ranker.terms" is not a string' };
  const { offsets, docs, weights } = postingArrays(value);
  if (!offsets || !docs || !weights) return { ok: false, problem: '"ranker" offsets, docs or weights are not base64 arrays' };
  const data: RankerData = { scheme: RANKER_SCHEME, count, terms: terms === '' ? [] : terms.split(' '), offsets, docs, weights };
  const problem = rankerDataProblem(data);
  if (problem) return { ok: false, problem: `"ranker": ${problem}` };
  // Whether it is the order of these names is checked where it is used (nameLookup): a wrong one is sorted again.
  const nameOrder = value.nameOrder === undefined ? undefined : arrayOf(value.nameOrder, (n) => new Int32Array(n));
  if (value.nameOrder !== undefined && nameOrder?.length !== count) {
    return { ok: false, problem: '"ranker.nameOrder" is not base64 of one int32 per ranked skill' };
  }
  const body = decodeInstructions(value.body, count);
  if (!body.ok) return body;
  return { ok: true, data: { ...data, ...(body.body ? { body: body.body } : {}), ...(nameOrder ? { nameOrder } : {}) } };
}

// ---------------------------------------------------------------------------
// Reading

/**
 * Read the index at `file` for a middleware configured with `options`. Never
 * throws: anything that keeps the index from being used is `{ ok: false }`
 * with a message saying how to fix it.
 */
export async function readPrebuiltIndex(file: string, options: DiscoveryShape & Pick<ResolvedOptions, 'fs'>): Promise<PrebuiltIndexRead> {
  const path = resolve(file);
  let text: string;
  try {
    text = await options.fs.readFile(path, 'utf8');
  } catch (error) {
    const missing = errorCode(error) === 'ENOENT';
    return unusable(
      path,
      missing ? 'missing' : 'unreadable',
      missing ? 'does not exist' : `cannot be read (${errorReason(error)})`,
      missing ? 'Build it with `sisu-skills index` before start-up, or leave the `index` option out.' : REBUILD,
    );
  }
  return parsePrebuiltIndex(text, path, options);
}

const REBUILD =
  'Rebuild it with `sisu-skills index <directory...> -o <file>` using the same directories, packages, include, exclude and strict as the middleware.';

/** `readPrebuiltIndex` for text already read; `file` is where it came from (paths inside are relative to its folder). */
export function parsePrebuiltIndex(text: string, file: string, options: DiscoveryShape): PrebuiltIndexRead {
  const path = indexLocation(file);
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    const at = jsonErrorPosition(text, error);
    return unusable(path, 'not-json', `is not valid JSON (${error instanceof Error ? error.message : String(error)})`, REBUILD, at);
  }
  if (!isRecord(document) || document.format !== PREBUILT_INDEX_FORMAT) {
    return unusable(
      path,
      'wrong-format',
      `is not a skills index (no "format": "${PREBUILT_INDEX_FORMAT}")`,
      'Point the `index` option at the file `sisu-skills index -o` wrote.',
    );
  }
  if (!READABLE_VERSIONS.includes(document.version)) {
    const by = typeof document.packageVersion === 'string' ? ` by @sisu-ai/mw-skills ${document.packageVersion}` : '';
    return unusable(
      path,
      'incompatible-version',
      `was written${by} in index format ${JSON.stringify(document.version)}; this ` +
        `version (${packageVersion}) reads formats ${READABLE_VERSIONS.join(' and ')} only`,
      REBUILD,
    );
  }
  // A published index holds its paths as they are (see pathEncoder).
  const decode = isS3Url(path) ? (stored: string) => stored : pathDecoder(dirname(path));
  const shape = decodeShape(document.options, decode);
  if (!shape) return malformed(path, '"options" is missing or not { directories, packages, include, exclude, strict }');
  const difference = shapeDifference(shape, options);
  if (difference) return unusable(path, 'other-options', `was built for other options: ${difference}`, REBUILD);
  return decodeBody(document, path, decode, options);
}

function decodeBody(
  document: Record<string, unknown>,
  path: string,
  decode: (path: string) => string,
  options: DiscoveryShape,
): PrebuiltIndexRead {
  const { skills, errors, warnings, scannedDirectories, createdAt } = document;
  if (!isStringList(scannedDirectories)) return malformed(path, '"scannedDirectories" is not a list of strings');
  const scanned = scannedDirectories.map(decode);
  // Package roots were resolved at the build (after the directories, in scannedDirectories): with
  // packages configured, skills may lie under those too; without, only under the directories.
  const roots = options.packages.length > 0 ? [...options.directories, ...scanned] : options.directories;
  if (typeof createdAt !== 'string') return malformed(path, '"createdAt" is not a string');
  if (!decodeDiagnostics(errors, 'error', decode) || !decodeDiagnostics(warnings, 'warning', decode)) {
    return malformed(path, '"errors" and "warnings" must be lists of diagnostics, with those severities');
  }
  if (!Array.isArray(skills)) return malformed(path, '"skills" is not a list');
  const decoded: Skill[] = [];
  const stamps = new StampTable(skills.length);
  const inside = new FolderSet(roots);
  for (let i = 0; i < skills.length; i++) {
    const record: unknown = skills[i];
    const problem = checkRecord(record);
    if (problem) return malformed(path, `skill ${i + 1}: ${problem}`);
    const { directory, file, size, mtimeMs, metadata, specials } = record as PrebuiltSkillRecord;
    const folder = decode(directory);
    // An entry outside every configured directory was not written by discovery: never follow it.
    if (!inside.holds(folder)) {
      return malformed(path, `skill ${i + 1} (${JSON.stringify(metadata.name)}) lies outside the configured directories`);
    }
    if (specials !== undefined && !restoreSpecials(metadata, specials))
      return malformed(path, `skill ${i + 1}: "specials" does not match its metadata`);
    // `folder + SKILL_SUFFIX` shares the folder's characters (see createLazySkillIndex's `compact`).
    const skillPath = file !== undefined ? decode(file) : folder.endsWith(sep) ? folder + SKILL_FILE : folder + SKILL_SUFFIX;
    decoded.push({ metadata, path: skillPath, directory: folder, instructions: '', resources: [] });
    stamps.add(metadata.name, skillPath, size, mtimeMs);
  }
  const ranker = decodeRanker(document.ranker, decoded.length);
  if (!ranker.ok) return malformed(path, ranker.problem);
  return {
    ok: true,
    result: {
      skills: decoded,
      scannedDirectories: scanned,
      errors,
      warnings: ranker.otherScheme === undefined ? warnings : [...warnings, rankerOutdated(path, ranker.otherScheme)],
      stamps,
      file: path,
      createdAt,
      packageVersion: typeof document.packageVersion === 'string' ? document.packageVersion : 'unknown',
      ...(ranker.data ? { ranker: ranker.data } : {}),
      ...(document.vectors === undefined ? {} : { vectors: document.vectors }),
    },
  };
}

/**
 * The warning for an index whose ranking data another version wrote: the
 * index still serves, but ranking reads the skills' texts for each new word
 * on every start, as after a scan (what a prebuilt index spares a large
 * library), until it is rebuilt.
 */
function rankerOutdated(path: string, scheme: string): Diagnostic {
  return createDiagnostic(
    'INDEX_RANKER_OUTDATED',
    path,
    `The skills index holds ranking data of another version (scheme ${scheme}; this version ${packageVersion} ranks with ${JSON.stringify(RANKER_SCHEME)}): ` +
      `the index is used, but ranking reads the skills' texts for each new word on every start, as after a scan. ${REBUILD}`,
  );
}

/** A character `String.prototype.trim` keeps (it strips exactly what `\s` matches). */
const NOT_BLANK = /\S/;

/** Why `record` is not a stored skill, or undefined when it is one. */
function checkRecord(record: unknown): string | undefined {
  if (!isRecord(record)) return 'not an object';
  const { directory, file, size, mtimeMs, metadata } = record;
  if (typeof directory !== 'string' || directory === '') return '"directory" is not a path';
  if (file !== undefined && (typeof file !== 'string' || file === '')) return '"file" is not a path';
  if (!isCount(size) || typeof mtimeMs !== 'number' || !Number.isFinite(mtimeMs)) return '"size" and "mtimeMs" must be numbers';
  if (!isRecord(metadata) || Array.isArray(metadata)) return '"metadata" is not an object';
  // A test, not trim(): a description ending in a newline (any block scalar) would be copied by trim, 20,000 times.
  if (typeof metadata.name !== 'string' || !NOT_BLANK.test(metadata.name)) return 'metadata has no name';
  if (typeof metadata.description !== 'string' || !NOT_BLANK.test(metadata.description)) return 'metadata has no description';
  return undefined;
}

/** Checks each diagnostic in `list` and decodes its file in place; false when one is not a diagnostic. */
function decodeDiagnostics(list: unknown, severity: Diagnostic['severity'], decode: (path: string) => string): list is Diagnostic[] {
  if (!Array.isArray(list)) return false;
  for (const item of list) {
    if (!isRecord(item)) return false;
    const { code, file, line, column, message } = item;
    if (typeof code !== 'string' || item.severity !== severity || typeof file !== 'string' || typeof message !== 'string') return false;
    if (!isCount(line) || !isCount(column)) return false;
    item.file = decode(file);
  }
  return true;
}

function decodeShape(value: unknown, decode: (path: string) => string): DiscoveryShape | undefined {
  if (!isRecord(value)) return undefined;
  const { directories, packages, include, exclude, strict } = value;
  if (
    !isStringList(directories) ||
    !isStringList(packages) ||
    !isStringList(include) ||
    !isStringList(exclude) ||
    typeof strict !== 'boolean'
  )
    return undefined;
  return { directories: directories.map(decode), packages, include, exclude, strict };
}

/** What differs between the options an index was built with and the middleware's, for the message; undefined when nothing does. */
function shapeDifference(built: DiscoveryShape, wanted: DiscoveryShape): string | undefined {
  const list = (items: readonly string[]) => JSON.stringify(items);
  // Order is precedence (the first wins a name clash), so it must match too.
  if (list(built.directories) !== list(wanted.directories))
    return `directories ${list(built.directories)}, the middleware has ${list(wanted.directories)}`;
  if (list(built.packages) !== list(wanted.packages))
    return `packages ${list(built.packages)}, the middleware has ${list(wanted.packages)}`;
  for (const key of ['include', 'exclude'] as const) {
    // Pattern order changes nothing.
    const a = [...new Set(built[key])].sort();
    const b = [...new Set(wanted[key])].sort();
    if (list(a) !== list(b)) return `${key} ${list(a)}, the middleware has ${list(b)}`;
  }
  if (built.strict !== wanted.strict) return `strict ${built.strict}, the middleware has ${wanted.strict}`;
  return undefined;
}

/** The warning for a published index that cannot be read for a reason storage will not mend by itself (missing, access denied). */
export function publishedIndexUnreadable(url: string, error: unknown): Diagnostic {
  const missing = errorCode(error) === 'ENOENT';
  const fix = missing
    ? 'Publish it with `sisu-skills index <sources> -o ' + url + '`, or leave the `index` option out.'
    : 'Fix the access named, or leave the `index` option out.';
  return unusable(url, missing ? 'missing' : 'unreadable', missing ? 'does not exist' : `cannot be read (${errorReason(error)})`, fix)
    .diagnostic;
}

function malformed(path: string, detail: string): PrebuiltIndexRead {
  return unusable(path, 'malformed', `is damaged: ${detail}`, REBUILD);
}

function unusable(
  path: string,
  reason: PrebuiltIndexReason,
  what: string,
  fix: string,
  at = { line: 0, column: 0 },
): Extract<PrebuiltIndexRead, { ok: false }> {
  const message = `skills index ${path} ${what}. ${fix} Until then skills are found by scanning the directories.`;
  return { ok: false, reason, message, diagnostic: createDiagnostic('INDEX_UNUSABLE', { file: path, ...at }, message) };
}

/** Line and column of a JSON.parse error, from the offset V8 puts in its message. */
function jsonErrorPosition(text: string, error: unknown): { line: number; column: number } {
  const offset = /at position (\d+)/.exec(error instanceof Error ? error.message : '')?.[1];
  // V8 says nothing about where for an empty text or a text that ends early: point at its end.
  const at = offset === undefined ? text.length : Math.min(Number(offset), text.length);
  let line = 1;
  let start = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < at; i = text.indexOf('\n', i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, column: at - start + 1 };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

// ---------------------------------------------------------------------------
// Activation: did SKILL.md change since the build?

export type SkillFileCheck =
  | { status: 'unchanged' }
  | {
      /** changed: other size or mtime (or no longer a regular file); vanished: gone; unreadable: stat failed otherwise. */
      status: 'changed' | 'vanished' | 'unreadable';
      skill: string;
      path: string;
      /** Briefly, what differs: "size 120 -> 98 bytes". */
      detail: string;
      /** For the model, in place of the skill's text. */
      message: string;
      /** For the operator (code INDEX_STALE). */
      diagnostic: Diagnostic;
    };

/**
 * Copies that keep timestamps through a double (node's `fs.cp`, `utimes`) move
 * mtime by a fraction of a millisecond; an edit after the build moves it by
 * far more. Copies that keep whole seconds only (tar, zip) still count as changed.
 */
export const MTIME_TOLERANCE_MS = 1;

/** Compare `entry`'s SKILL.md as it is now (`current`, from stat) with its stamp from the index. */
export function compareSkillStamp(entry: SkillEntry, recorded: SkillStamp, current: FileStats): SkillFileCheck {
  if (!current.isFile()) return stale(entry, 'changed', 'it is no longer a regular file');
  const changes: string[] = [];
  if (current.size !== recorded.size) changes.push(`size ${recorded.size} -> ${current.size} bytes`);
  if (Math.abs(current.mtimeMs - recorded.mtimeMs) >= MTIME_TOLERANCE_MS)
    changes.push(`modified ${isoOf(recorded.mtimeMs)} -> ${isoOf(current.mtimeMs)}`);
  return changes.length === 0 ? { status: 'unchanged' } : stale(entry, 'changed', changes.join(', '));
}

/** Stat `entry`'s SKILL.md through `fs` and compare it with its stamp. Never throws. */
export async function checkSkillFile(fs: SkillsFileSystem, entry: SkillEntry, recorded: SkillStamp): Promise<SkillFileCheck> {
  let current: FileStats;
  try {
    current = await fs.stat(entry.path);
  } catch (error) {
    const code = errorCode(error);
    return stale(entry, code === 'ENOENT' || code === 'ENOTDIR' ? 'vanished' : 'unreadable', errorReason(error));
  }
  return compareSkillStamp(entry, recorded, current);
}

function isoOf(ms: number): string {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? String(ms) : date.toISOString();
}

function stale(entry: SkillEntry, status: 'changed' | 'vanished' | 'unreadable', detail: string): SkillFileCheck {
  const skill = entry.metadata.name;
  const what =
    status === 'vanished'
      ? `was removed after the skills index was built (${detail})`
      : status === 'changed'
        ? `changed after the skills index was built (${detail}), so what the catalog says about it may be wrong`
        : `cannot be checked against the skills index (${detail})`;
  const message =
    `Skill "${skill}" is not available: its ${SKILL_FILE} ${what}. Continue without it or choose ` +
    `another skill; the operator must rebuild the skills index (sisu-skills index) to use it.`;
  return {
    status,
    skill,
    path: entry.path,
    detail,
    message,
    diagnostic: createDiagnostic(
      'INDEX_STALE',
      entry.path,
      `${SKILL_FILE} of skill "${skill}" ${what}. Rebuild the index with \`sisu-skills index\` after changing skills.`,
    ),
  };
}

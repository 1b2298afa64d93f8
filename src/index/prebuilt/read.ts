/**
 * Reading a prebuilt index: what start-up needs (each skill's metadata and
 * folder, its SKILL.md's stamp, the diagnostics, the options that shaped
 * discovery, the ranker's index, the vectors) from the one file the builder
 * wrote, so a cold start reads one file instead of walking every folder.
 *
 * Reading never throws: it gives `{ ok: true, result }`, a DiscoveryResult a
 * lazy index is built from, or `{ ok: false, reason, message, diagnostic }`,
 * after which the caller scans as usual and logs the one warning. Every field
 * is checked: a file is not trusted (codec-container.ts bounds what a hostile
 * length or a decompression bomb could make it allocate; zlib's checksums
 * find a flipped byte). Bodies are still read at activation,
 * where `stamps.ts` tells whether a SKILL.md changed or vanished since the
 * build. Skills added later are not seen until the index is rebuilt.
 */
import { Buffer } from 'node:buffer';
import { resolve } from 'node:path';
import { version as packageVersion } from '../../../package.json';
import type { RankerFormat } from '../../base/ranker-data.js';
import { errorCode, errorReason, readFileBytes, type SkillsFileSystem } from '../../base/fs.js';
import type { ResolvedOptions } from '../../config/options.js';
import type { DiscoveryResult, SkillEntry } from '../../base/model.js';
import { ByteReader, DamagedIndexError } from './codec-bytes.js';
import { Container, containerVersion, MAX_INFLATED_BYTES } from './codec-container.js';
import { indexLocation, pathDecoderFor } from './codec-paths.js';
import { readRanker, type PrebuiltRankerData } from './codec-ranker.js';
import { SkillTable } from './codec-skills.js';
import { OWN_SECTIONS, PREBUILT_INDEX_VERSION, SECTIONS, type DiscoveryShape } from './format.js';
import { isCount, isRecord, isStringList } from './json-checks.js';
import { malformed, rankerOutdated, REBUILD, unusable, type UnusableIndex } from './problems.js';
import { decodeDiagnostics, decodeShape, shapeDifference } from './read-header.js';
import { decodeSkills, skillRoots } from './read-skills.js';
import type { SkillStamps } from './stamps.js';

/** What reading an index gave: discovery's result, plus what each SKILL.md looked like at the build. */
export interface PrebuiltDiscovery extends DiscoveryResult<SkillEntry> {
  /** Each skill's stamp, which `checkSkillFile` compares with. */
  stamps: SkillStamps;
  file: string;
  createdAt: string;
  packageVersion: string;
  /** The ranker over `rankedSkills(skills)`, when the index holds one of this version's scheme. */
  ranker?: PrebuiltRankerData;
  /** The skills' vectors block as stored, when the index holds one (decoded by the middleware's meaning). */
  vectors?: unknown;
  /**
   * A section this package does not read itself (another feature's data:
   * issue 41's `manifests`), inflated when asked for, so the first request
   * pays nothing for it; undefined when the file has none, or when it does
   * not inflate to the size its header declares.
   */
  section(name: string): Uint8Array | undefined;
}

export type PrebuiltIndexRead = { ok: true; result: PrebuiltDiscovery } | UnusableIndex;

/** Reads index files for a ranker of `format` (catalog's RANKER_FORMAT): its data of another scheme is left unused, damaged data refused. */
export interface PrebuiltReader {
  /**
   * Read the index at `file` for a middleware configured with `options`. Never
   * throws: anything that keeps the index from being used is `{ ok: false }`
   * with a message saying how to fix it.
   */
  read(file: string, options: DiscoveryShape & Pick<ResolvedOptions, 'fs'>): Promise<PrebuiltIndexRead>;
  /** `read` for bytes already read; `file` is where they came from (paths inside are relative to its folder). */
  parse(bytes: Uint8Array, file: string, options: DiscoveryShape): PrebuiltIndexRead;
}

export function prebuiltReader(format: RankerFormat): PrebuiltReader {
  const parse = (bytes: Uint8Array, file: string, options: DiscoveryShape): PrebuiltIndexRead =>
    parsePrebuiltIndex(bytes, file, options, format);
  return {
    read: async (file, options) => {
      const path = resolve(file);
      const bytes = await readIndexBytes(path, options.fs);
      return bytes instanceof Uint8Array ? parse(bytes, path, options) : bytes;
    },
    parse,
  };
}

/** No index file is read past this many bytes, whatever it claims (a device or a pipe swapped in must not fill memory). */
export const MAX_INDEX_FILE_BYTES = MAX_INFLATED_BYTES;

/** The bytes of the index file at `path` (bounded by MAX_INDEX_FILE_BYTES), or why they cannot be read. */
export async function readIndexBytes(path: string, fs: SkillsFileSystem): Promise<Uint8Array | UnusableIndex> {
  try {
    return await readWhole(fs, path);
  } catch (error) {
    const missing = errorCode(error) === 'ENOENT';
    return unusable(
      path,
      missing ? 'missing' : 'unreadable',
      missing ? 'does not exist' : `cannot be read (${errorReason(error)})`,
      missing ? 'Build it with `sisu-skills index` before start-up, or leave the `index` option out.' : REBUILD,
    );
  }
}

/** The whole file through one handle (base/fs.ts), bounded by MAX_INDEX_FILE_BYTES. */
function readWhole(fs: SkillsFileSystem, path: string): Promise<Uint8Array> {
  return readFileBytes(fs, path, MAX_INDEX_FILE_BYTES, 'an index may be');
}

function parsePrebuiltIndex(bytes: Uint8Array, file: string, options: DiscoveryShape, format: RankerFormat): PrebuiltIndexRead {
  const path = indexLocation(file);
  const version = containerVersion(bytes);
  if (version !== PREBUILT_INDEX_VERSION) return otherVersion(bytes, path, version);
  try {
    const container = Container.open(bytes);
    const decode = pathDecoderFor(path);
    const { header } = container;
    const shape = decodeShape(header.options, decode);
    if (!shape) return malformed(path, 'its header has no options { directories, packages, include, exclude, strict }');
    const difference = shapeDifference(shape, options);
    if (difference) return unusable(path, 'other-options', `was built for other options: ${difference}`, REBUILD);
    return decodeContent(container, path, decode, options, format);
  } catch (error) {
    if (error instanceof DamagedIndexError) return malformed(path, error.message);
    throw error;
  }
}

/** Why an index that is not of this version's format is not used: another version's, the JSON of formats 1 and 2, or no index at all. */
function otherVersion(bytes: Uint8Array, path: string, version: number | 'json' | undefined): UnusableIndex {
  if (version === undefined) {
    return unusable(
      path,
      'wrong-format',
      'is not a skills index (its first line is not "sisu-skills-index <version>")',
      'Point the `index` option at the file `sisu-skills index -o` wrote.',
    );
  }
  // Formats 1 and 2 were JSON: what they say of themselves is near the start of the file.
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 4096)).toString('latin1');
  const written = version === 'json' ? /"version"\s*:\s*(\d+)/.exec(head)?.[1] : String(version);
  const by = /"packageVersion"\s*:\s*"([^"\\]{1,40})"/.exec(head)?.[1];
  return unusable(
    path,
    'incompatible-version',
    `was written${by ? ` by @sisu-ai/mw-skills ${by}` : ''} in index format ${written ?? 'unknown'}${version === 'json' ? ' (JSON)' : ''}; ` +
      `this version (${packageVersion}) reads format ${PREBUILT_INDEX_VERSION} only`,
    REBUILD,
  );
}

function decodeContent(
  container: Container,
  path: string,
  decode: (path: string) => string,
  options: DiscoveryShape,
  format: RankerFormat,
): PrebuiltIndexRead {
  const { scannedDirectories, createdAt, skillCount } = container.header;
  if (!isStringList(scannedDirectories)) return malformed(path, 'its header\'s "scannedDirectories" is not a list of strings');
  if (typeof createdAt !== 'string') return malformed(path, 'its header\'s "createdAt" is not a string');
  if (!isCount(skillCount)) return malformed(path, 'its header\'s "skillCount" is not a count');
  const scanned = scannedDirectories.map(decode);
  const diagnostics = jsonSection(container, SECTIONS.diagnostics);
  const { errors, warnings } = isRecord(diagnostics) ? diagnostics : { errors: undefined, warnings: undefined };
  if (!decodeDiagnostics(errors, 'error', decode) || !decodeDiagnostics(warnings, 'warning', decode)) {
    return malformed(path, 'its "errors" and "warnings" must be lists of diagnostics, with those severities');
  }
  const skillBytes = container.section(SECTIONS.skills);
  if (!skillBytes) throw new DamagedIndexError('has no section "skills"');
  const roots = skillRoots(options, scanned);
  const { skills, stamps } = decodeSkills(new SkillTable(new ByteReader(skillBytes, 'section "skills"'), skillCount), decode, roots);
  const rankerBytes = container.section(SECTIONS.ranker);
  const ranker = rankerBytes
    ? readRanker(rankerBytes, container.section(SECTIONS.body), skills.length, format, path)
    : { ok: true as const };
  if (!ranker.ok) return malformed(path, ranker.problem);
  const vectors = container.has(SECTIONS.vectors) ? jsonSection(container, SECTIONS.vectors) : undefined;
  return {
    ok: true,
    result: {
      skills,
      scannedDirectories: scanned,
      errors,
      warnings: ranker.otherScheme === undefined ? warnings : [...warnings, rankerOutdated(path, ranker.otherScheme, format.scheme)],
      stamps,
      file: path,
      createdAt,
      packageVersion: typeof container.header.packageVersion === 'string' ? container.header.packageVersion : 'unknown',
      ...(ranker.data ? { ranker: ranker.data } : {}),
      ...(vectors === undefined ? {} : { vectors }),
      section: otherSections(container),
    },
  };
}

/** A section holding JSON, parsed (undefined when the file has none); DamagedIndexError when it is not JSON. */
function jsonSection(container: Container, name: string): unknown {
  const bytes = container.section(name);
  if (!bytes) return undefined;
  try {
    // ASCII only, as write.ts wrote it: decoded at a byte a character.
    return JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1')) as unknown;
  } catch {
    throw new DamagedIndexError(`section "${name}" is not JSON`);
  }
}

/**
 * Another feature's sections, each inflated when asked for (undefined when
 * absent, this reader's own, or damaged). An index with none keeps no hold
 * on the file's bytes.
 */
function otherSections(container: Container): (name: string) => Uint8Array | undefined {
  if (container.names().every((name) => OWN_SECTIONS.has(name))) return () => undefined;
  return (name) => {
    if (OWN_SECTIONS.has(name)) return undefined;
    try {
      return container.section(name);
    } catch (error) {
      if (error instanceof DamagedIndexError) return undefined;
      throw error;
    }
  };
}

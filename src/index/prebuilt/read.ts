/**
 * Reading a prebuilt index: what start-up needs (each skill's metadata and
 * folder, its SKILL.md's stamp, the diagnostics, the options that shaped
 * discovery, the ranker's index, the vectors) from the one file the builder
 * wrote, so a cold start reads one file instead of walking every folder.
 *
 * Reading never throws: it gives `{ ok: true, result }`, a DiscoveryResult a
 * lazy index is built from, or `{ ok: false, reason, message, diagnostic }`,
 * after which the caller scans as usual and logs the one warning. Every field
 * is checked: a file is not trusted. Bodies are still read at activation,
 * where `stamps.ts` tells whether a SKILL.md changed or vanished since the
 * build. Skills added later are not seen until the index is rebuilt.
 */
import { resolve, sep } from 'node:path';
import { version as packageVersion } from '../../../package.json';
import type { Diagnostic } from '../../base/diagnostics.js';
import type { RankerFormat } from '../../base/ranker-data.js';
import { errorCode, errorReason, type SkillsFileSystem } from '../../base/fs.js';
import { FolderSet } from '../../base/paths.js';
import { SKILL_FILE } from '../../base/skill-file.js';
import type { ResolvedOptions } from '../../config/options.js';
import type { DiscoveryResult, SkillEntry } from '../../base/model.js';
import { restoreSpecials } from './codec-numbers.js';
import { indexLocation, pathDecoderFor, SKILL_SUFFIX } from './codec-paths.js';
import { PREBUILT_INDEX_FORMAT, READABLE_VERSIONS, type DiscoveryShape, type PrebuiltSkillRecord } from './format.js';
import { isCount, isRecord, isStringList } from './json-checks.js';
import { jsonErrorPosition, malformed, rankerOutdated, REBUILD, unusable, type UnusableIndex } from './problems.js';
import { decodeRanker, type PrebuiltRankerData } from './ranker-block.js';
import { StampTable, type SkillStamps } from './stamps.js';

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
  /** `read` for text already read; `file` is where it came from (paths inside are relative to its folder). */
  parse(text: string, file: string, options: DiscoveryShape): PrebuiltIndexRead;
}

export function prebuiltReader(format: RankerFormat): PrebuiltReader {
  const parse = (text: string, file: string, options: DiscoveryShape): PrebuiltIndexRead => parsePrebuiltIndex(text, file, options, format);
  return {
    read: async (file, options) => {
      const path = resolve(file);
      const text = await readIndexText(path, options.fs);
      return typeof text === 'string' ? parse(text, path, options) : text;
    },
    parse,
  };
}

/** The text of the index file at `path`, or why it cannot be read. */
async function readIndexText(path: string, fs: SkillsFileSystem): Promise<string | UnusableIndex> {
  try {
    return await fs.readFile(path, 'utf8');
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

function parsePrebuiltIndex(text: string, file: string, options: DiscoveryShape, format: RankerFormat): PrebuiltIndexRead {
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
  const decode = pathDecoderFor(path);
  const shape = decodeShape(document.options, decode);
  if (!shape) return malformed(path, '"options" is missing or not { directories, packages, include, exclude, strict }');
  const difference = shapeDifference(shape, options);
  if (difference) return unusable(path, 'other-options', `was built for other options: ${difference}`, REBUILD);
  return decodeBody(document, path, decode, options, format);
}

function decodeBody(
  document: Record<string, unknown>,
  path: string,
  decode: (path: string) => string,
  options: DiscoveryShape,
  format: RankerFormat,
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
  const decoded: SkillEntry[] = [];
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
    decoded.push({ metadata, path: skillPath, directory: folder });
    stamps.add(metadata.name, skillPath, size, mtimeMs);
  }
  const ranker = decodeRanker(document.ranker, decoded.length, format);
  if (!ranker.ok) return malformed(path, ranker.problem);
  return {
    ok: true,
    result: {
      skills: decoded,
      scannedDirectories: scanned,
      errors,
      warnings: ranker.otherScheme === undefined ? warnings : [...warnings, rankerOutdated(path, ranker.otherScheme, format.scheme)],
      stamps,
      file: path,
      createdAt,
      packageVersion: typeof document.packageVersion === 'string' ? document.packageVersion : 'unknown',
      ...(ranker.data ? { ranker: ranker.data } : {}),
      ...(document.vectors === undefined ? {} : { vectors: document.vectors }),
    },
  };
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

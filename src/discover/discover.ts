/**
 * options -> scan -> parse -> validate -> Skill[] + diagnostics.
 * Never fails on bad skills or folders: those become diagnostics.
 */
import { basename, sep } from 'node:path';
import { isError, type Diagnostic } from '../diagnostics.js';
import { SkillUnavailableError } from '../errors.js';
import { errorCode, errorReason, NOT_A_FILE } from '../fs.js';
import { parseFrontmatter } from '../frontmatter/parse.js';
import { foldName } from '../names.js';
import { matchesPattern, resolveOptions, type ResolvedOptions, type SkillsOptions } from '../options.js';
import { expectedSkillName, resolvePackages } from '../packages.js';
import { validateMetadata, type ValidationContext } from '../schema.js';
import type { DiscoveryResult, Skill, SkillEntry, SkillMetadata } from '../types.js';
import { readSkillHead } from './head.js';
import { listResources } from './resources.js';
import {
  createLimiter,
  limitConcurrency,
  MAX_CONCURRENT_FS_CALLS,
  memoizeReaddir,
  scanDirectories,
  SKILL_FILE,
  type FoundSkill,
  type SkillLocation,
} from './scan.js';

/** Public entry: check options (throws SkillsConfigError on mistakes), then discover. */
export async function discoverSkills(options: SkillsOptions): Promise<DiscoveryResult> {
  return discover(resolveOptions(options));
}

/** What reading one SKILL.md gave. */
interface Loaded {
  location: SkillLocation;
  /** The real folder's name: the one the folder-name rule judges (an alias must not decide it). */
  folderName: string;
  /** Names include/exclude match: the folder as reached and as it really is, and the declared name. */
  names: string[];
  /** Set when the skill is valid. */
  metadata?: SkillMetadata;
  instructions: string;
  /** 1-based line on which the instructions start, when the whole file was read. */
  instructionsLine?: number;
  diagnostics: Diagnostic[];
  /** Left out by exclude before it was read. */
  excluded: boolean;
}

export interface DiscoverMode {
  /**
   * Keep frontmatter only: no instructions, no resource listing (both are read
   * by `loadSkillContent` when the skill is activated). The skills come back
   * with empty `instructions` and `resources`.
   */
  lazy?: boolean;
}

/** Discover skills with already-resolved options (the middleware's cache calls this). */
export async function discover(options: ResolvedOptions, mode: DiscoverMode = {}): Promise<DiscoveryResult> {
  const lazy = mode.lazy === true;
  // One limit for every call: single calls, and a head read's open + reads + close as one.
  const run = createLimiter(MAX_CONCURRENT_FS_CALLS);
  // Listings are kept for the resource listing to reuse; lazy discovery lists no resources,
  // and keeping every folder's entries to the end would only add work for the collector.
  const limited = limitConcurrency(options.fs, run);
  const fs = lazy ? limited : memoizeReaddir(limited);
  // Only a SKILL.md that is a link needs its type checked when opened: for the rest the listing said "file".
  const read = (found: FoundSkill): Promise<string> =>
    lazy ? run(() => readSkillHead(options.fs, found.file, { checkType: found.fileType === 'link' })) : fs.readFile(found.file, 'utf8');

  // Each SKILL.md is read as soon as the walk finds it, so the disk stays busy while the walk
  // goes on; parsing waits for the walk, with which it would compete for the one JS thread
  // (parsing as files arrived was measured slower at 2,000 skills on 2 CPUs).
  // By real folder (the walk lists each once); undefined: the folder is excluded and not read at all.
  const reads = new Map<string, Promise<string> | undefined>();
  const startRead = (found: FoundSkill): void => {
    // The real name only: the path a folder is first listed through may not be the one it is kept at.
    if (matchesAny([basename(found.realDirectory)], options.exclude)) {
      reads.set(found.realDirectory, undefined);
      return;
    }
    // A pipe, socket or device is never opened: it could block or never end.
    const text = found.fileType === 'other' ? Promise.reject(notAFile(found.file)) : read(found);
    // Only marks a rejection as handled until loadSkill awaits it and reports it.
    text.catch(() => undefined);
    reads.set(found.realDirectory, text);
  };
  // Packages are resolved on every scan, not at construction: installs change. They come after the folders.
  const packages = await resolvePackageRoots(options);
  const scan = await scanDirectories(fs, [...options.directories, ...packages.roots], startRead);

  // Every location went through startRead.
  const loaded = await Promise.all(
    scan.skills.map((location) => loadSkill(reads.get(location.realDirectory), location, options, lazy, packages.of(location))),
  );

  // Sequential on purpose: filtering and name clashes follow discovery order.
  const accepted: Array<{ loaded: Loaded; metadata: SkillMetadata; found: Diagnostic[] }> = [];
  const firstByName = new Map<string, SkillLocation>();
  const firstByLook = new Map<string, { name: string; location: SkillLocation }>();
  const perSkill: Diagnostic[][] = [];
  for (const item of loaded) {
    if (item.excluded || !isSelected(item.names, options)) continue;
    const found = [...item.diagnostics];
    perSkill.push(found);
    if (!item.metadata) continue;
    const { name } = item.metadata;
    const first = firstByName.get(name);
    if (first) {
      found.push(duplicate(name, first, item.location));
      continue;
    }
    firstByName.set(name, item.location);
    const look = lookKey(name);
    const twin = firstByLook.get(look);
    if (twin) found.push(lookAlike(name, item.location, twin));
    else firstByLook.set(look, { name, location: item.location });
    accepted.push({ loaded: item, metadata: item.metadata, found });
  }

  const skills: Skill[] = await Promise.all(
    accepted.map(async ({ loaded: item, metadata, found }) => {
      const listing = lazy
        ? { resources: [], diagnostics: [] }
        : await listResources(fs, item.location.directory, item.location.realDirectory, options);
      found.push(...listing.diagnostics);
      const skill: Skill = {
        metadata,
        instructions: item.instructions,
        path: item.location.file,
        directory: item.location.directory,
        resources: listing.resources,
      };
      if (item.instructionsLine !== undefined) skill.instructionsLine = item.instructionsLine;
      return skill;
    }),
  );

  const all = uniqueDiagnostics([...packages.diagnostics, ...scan.diagnostics, ...filterWarnings(loaded, options), ...perSkill.flat()]);
  return {
    skills,
    scannedDirectories: [...options.directories, ...packages.roots],
    errors: all.filter(isError),
    warnings: all.filter((diagnostic) => !isError(diagnostic)),
  };
}

function matchesAny(names: readonly string[], patterns: readonly string[]): boolean {
  return patterns.some((pattern) => names.some((name) => matchesPattern(name, pattern)));
}

/** include/exclude against the skill's name or folder name; exclude wins. */
function isSelected(names: readonly string[], options: ResolvedOptions): boolean {
  if (matchesAny(names, options.exclude)) return false;
  return options.include.length === 0 || matchesAny(names, options.include);
}

function notAFile(file: string): Error {
  return Object.assign(new Error(`${file} is not a regular file`), { code: NOT_A_FILE });
}

/** `pending`: the SKILL.md's text being read, or undefined when the folder is excluded and was not read. */
async function loadSkill(
  pending: Promise<string> | undefined,
  location: SkillLocation,
  options: ResolvedOptions,
  lazy: boolean,
  origin: PackageOrigin | undefined,
): Promise<Loaded> {
  const folderName = basename(location.realDirectory);
  const alias = basename(location.directory);
  const folderNames = alias === folderName ? [folderName] : [alias, folderName];
  const base: Loaded = { location, folderName, names: folderNames, instructions: '', diagnostics: [], excluded: false };
  if (pending === undefined) return { ...base, excluded: true };

  let text: string;
  try {
    text = await pending;
  } catch (error) {
    return { ...base, diagnostics: [unreadable(location.file, error)] };
  }
  const parsed = parseFrontmatter(text, { file: location.file });
  const rawName = parsed.metadata.name;
  const names = typeof rawName === 'string' ? [...folderNames, rawName] : folderNames;
  // After a fence or YAML error the metadata is partial: "name is missing" would only be noise.
  if (parsed.diagnostics.some(isError)) return { ...base, names, diagnostics: parsed.diagnostics };

  const validation = validateMetadata(parsed, { file: location.file, folderName, strict: options.strict, ...(origin ? { package: origin } : {}) });
  const result: Loaded = {
    ...base,
    names,
    metadata: validation.metadata,
    // Lazy discovery drops the body here so 20,000 skills cost their frontmatter, not their text.
    instructions: lazy ? '' : parsed.body,
    diagnostics: [...parsed.diagnostics, ...validation.diagnostics],
  };
  if (!lazy) result.instructionsLine = parsed.bodyLine;
  return result;
}

// ---------------------------------------------------------------------------
// Packages

/** Where a skill from a package came from, for its name rule and advice. */
type PackageOrigin = NonNullable<ValidationContext['package']>;

interface PackageRoots {
  /** Folders to scan after the configured directories: each skill package's root, each collection's `skills/`. */
  roots: string[];
  /** Packages that did not resolve or hold no skill. */
  diagnostics: Diagnostic[];
  /** The package a found skill belongs to, if any. */
  of(location: SkillLocation): PackageOrigin | undefined;
}

async function resolvePackageRoots(options: ResolvedOptions): Promise<PackageRoots> {
  if (options.packages.length === 0) return { roots: [], diagnostics: [], of: () => undefined };
  const resolutions = await resolvePackages(options.packages, { cwd: options.cwd, fs: options.fs });
  const roots: string[] = [];
  const diagnostics: Diagnostic[] = [];
  const skillRoots = new Map<string, PackageOrigin>();
  const collections: Array<{ folder: string; origin: PackageOrigin }> = [];
  for (const resolution of resolutions) {
    if (!resolution.ok) {
      diagnostics.push(resolution.diagnostic);
    } else if (resolution.kind === 'skill') {
      roots.push(resolution.directory);
      // A package root's folder is named by the package manager, not the author: judge its name by the package name.
      skillRoots.set(resolution.directory, { name: resolution.name, version: resolution.version, expectedName: expectedSkillName(resolution.name) });
    } else {
      roots.push(resolution.skillsDirectory);
      collections.push({ folder: resolution.skillsDirectory + sep, origin: { name: resolution.name, version: resolution.version } });
    }
  }
  return {
    roots,
    diagnostics,
    of: (location) =>
      skillRoots.get(location.realDirectory) ??
      skillRoots.get(location.directory) ??
      collections.find(({ folder }) => location.directory.startsWith(folder) || location.realDirectory.startsWith(folder))?.origin,
  };
}

function unreadable(file: string, error: unknown): Diagnostic {
  const code = errorCode(error);
  const fix =
    code === NOT_A_FILE || code === 'ENXIO' || code === 'ESPIPE' || code === 'EISDIR'
      ? `Make ${SKILL_FILE} a regular file`
      : code === 'EFBIG'
        ? `Shrink ${SKILL_FILE}, moving long material into files it links to`
        : "Check the file's permissions";
  return {
    code: 'SKILL_UNREADABLE',
    severity: 'error',
    file,
    line: 0,
    column: 0,
    message: `cannot read ${SKILL_FILE}: ${errorReason(error)}. ${fix}; the skill was not loaded.`,
  };
}

function duplicate(name: string, first: SkillLocation, later: SkillLocation): Diagnostic {
  return {
    code: 'SKILL_DUPLICATE',
    severity: 'warning',
    file: later.file,
    line: 0,
    column: 0,
    message: `skill name "${name}" is already taken by ${first.file}, so ${later.file} was not loaded. The first directory listed wins; rename one of the skills to load both.`,
  };
}

/** Names a reader cannot tell apart share this key. Plain ASCII (nearly every name) only needs lower case. */
function lookKey(name: string): string {
  // eslint-disable-next-line no-control-regex
  return /^[\x00-\x7f]*$/.test(name) ? name.toLowerCase() : foldName(name);
}

function lookAlike(name: string, later: SkillLocation, first: { name: string; location: SkillLocation }): Diagnostic {
  return {
    code: 'NAME_LOOKALIKE',
    severity: 'warning',
    file: later.file,
    line: 0,
    column: 0,
    message:
      `skill name ${JSON.stringify(name)} looks the same as ${JSON.stringify(first.name)} (${first.location.file}) once case, accents, ` +
      'fullwidth forms and Cyrillic or Greek look-alike letters are folded, so a reader or a model can mistake one for the other. ' +
      'Both are loaded; rename one of them.',
  };
}

// ---------------------------------------------------------------------------
// include / exclude patterns that cannot do what they seem to

/** Glob syntax people expect that `matchesPattern` reads literally, with what it is. */
const UNSUPPORTED_SYNTAX: ReadonlyArray<[RegExp, string]> = [
  [/\[.*\]/, '"[...]" (a character class)'],
  [/\{.*\}/, '"{a,b}" (alternatives)'],
  [/[/\\]/, 'a path separator (patterns match names, not paths; "**/" is not needed)'],
  [/^!/, 'a leading "!" (negation; use `exclude` instead)'],
];

const PATTERN_HELP =
  'Patterns match a skill name or folder name, whole and case-sensitive: "*" matches any run of characters, "?" one character, and everything else is literal.';

/**
 * One warning per pattern that uses syntax we read literally, or that matches
 * no skill found (by folder name or declared name): either way the filter
 * does not do what its author meant, and nothing else would say so.
 */
function filterWarnings(loaded: readonly Loaded[], options: ResolvedOptions): Diagnostic[] {
  const warnings: Diagnostic[] = [];
  for (const list of ['include', 'exclude'] as const) {
    for (const pattern of new Set(options[list])) {
      const syntax = UNSUPPORTED_SYNTAX.find(([shape]) => shape.test(pattern))?.[1];
      const matched = loaded.some((item) => item.names.some((name) => matchesPattern(name, pattern)));
      if (syntax === undefined && matched) continue;
      const problems = [
        ...(syntax === undefined ? [] : [`uses ${syntax}, which is not supported${matched ? ' (it was matched literally)' : ''}`]),
        ...(matched ? [] : ['matches no skill that was found']),
      ];
      warnings.push({
        code: 'FILTER_PATTERN',
        severity: 'warning',
        file: '<options>',
        line: 0,
        column: 0,
        message: `${list} pattern ${JSON.stringify(pattern)} ${problems.join(' and ')}. ${PATTERN_HELP}`,
      });
    }
  }
  return warnings;
}

/** The scan and the resource listing can meet the same link; report each problem once. */
function uniqueDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return diagnostics.filter((d) => {
    const key = `${d.code}\0${d.file}\0${d.line}\0${d.column}\0${d.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

// ---------------------------------------------------------------------------
// Activation

/** What a diagnostic that stops SKILL.md from parsing says, briefly, for a retry message. */
function parseProblem(diagnostic: Diagnostic): string {
  const what =
    diagnostic.code === 'FRONTMATTER_UNCLOSED'
      ? 'unclosed frontmatter'
      : // Parser messages are "what: quoted line"; the line is no use to the model.
        (diagnostic.message.split(': "')[0] ?? diagnostic.code);
  return `${what} at line ${diagnostic.line}`;
}

/**
 * Level 2 for one skill found by lazy discovery: its instructions (the body
 * of SKILL.md as it is now) and its resource listing. Rejects with a
 * SkillUnavailableError whose message the model can act on when SKILL.md
 * can no longer be read, or no longer parses (caught mid-write, say): the
 * index keeps no failed load, so the next activation reads it again.
 */
export async function loadSkillContent(
  entry: SkillEntry,
  options: Pick<ResolvedOptions, 'fs' | 'maxFileSize' | 'secretPatterns'>,
): Promise<{ skill: Skill; diagnostics: Diagnostic[] }> {
  const { fs } = options;
  const skill = entry.metadata.name;
  let text: string;
  let realDirectory: string;
  try {
    text = await fs.readFile(entry.path, 'utf8');
    realDirectory = await fs.realpath(entry.directory);
  } catch (error) {
    throw new SkillUnavailableError({ skill, path: entry.path, reason: 'unreadable', detail: errorReason(error) }, { cause: error });
  }
  const parsed = parseFrontmatter(text, { file: entry.path });
  const problem = parsed.diagnostics.find(isError);
  if (problem) throw new SkillUnavailableError({ skill, path: entry.path, reason: 'changed', detail: parseProblem(problem) });
  const listing = await listResources(fs, entry.directory, realDirectory, options);
  return {
    skill: { ...entry, instructions: parsed.body, instructionsLine: parsed.bodyLine, resources: listing.resources },
    diagnostics: listing.diagnostics,
  };
}

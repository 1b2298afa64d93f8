/**
 * options -> scan -> parse -> validate -> Skill[] + diagnostics.
 * Never fails on bad skills or folders: those become diagnostics.
 */
import { basename } from 'node:path';
import { isError, type Diagnostic } from '../diagnostics.js';
import { errorReason } from '../fs.js';
import { parseFrontmatter } from '../frontmatter/parse.js';
import { matchesPattern, resolveOptions, type ResolvedOptions, type SkillsOptions } from '../options.js';
import { validateMetadata } from '../schema.js';
import type { DiscoveryResult, Skill, SkillEntry, SkillMetadata } from '../types.js';
import { readSkillHead } from './head.js';
import { listResources } from './resources.js';
import { createLimiter, limitConcurrency, MAX_CONCURRENT_FS_CALLS, memoizeReaddir, scanDirectory, type SkillLocation } from './scan.js';

/** Public entry: check options (throws SkillsConfigError on mistakes), then discover. */
export async function discoverSkills(options: SkillsOptions): Promise<DiscoveryResult> {
  return discover(resolveOptions(options));
}

/** What reading one SKILL.md gave. */
interface Loaded {
  location: SkillLocation;
  folderName: string;
  /** Set when the skill is valid. */
  metadata?: SkillMetadata;
  instructions: string;
  /** The name as written, even when invalid, for include/exclude. */
  declaredName?: string;
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
  const read: ReadSkill = lazy
    ? (file) => run(() => readSkillHead(options.fs, file))
    : (file) => fs.readFile(file, 'utf8');

  // Each SKILL.md is read as soon as the walk finds it, so the disk stays busy while the walk
  // goes on; parsing waits for the walk, with which it would compete for the one JS thread
  // (parsing as files arrived was measured slower at 2,000 skills on 2 CPUs).
  // By SKILL.md path; undefined: the folder is excluded and not read at all.
  const reads = new Map<string, Promise<string> | undefined>();
  const startRead = (location: SkillLocation): void => {
    if (reads.has(location.file)) return;
    if (matchesAny([basename(location.directory)], options.exclude)) {
      reads.set(location.file, undefined);
      return;
    }
    const text = read(location.file);
    // Only marks a rejection as handled until loadSkill awaits it and reports it.
    text.catch(() => undefined);
    reads.set(location.file, text);
  };
  const scans = await Promise.all(options.directories.map((directory) => scanDirectory(fs, directory, startRead)));
  const diagnostics: Diagnostic[] = scans.flatMap((scan) => scan.diagnostics);

  // Every location went through startRead.
  const loaded = await Promise.all(
    uniqueFolders(scans.flatMap((scan) => scan.skills)).map((location) => loadSkill(reads.get(location.file), location, options, lazy)),
  );

  // Sequential on purpose: filtering and name clashes follow discovery order.
  const accepted: Array<{ loaded: Loaded; metadata: SkillMetadata; found: Diagnostic[] }> = [];
  const firstByName = new Map<string, SkillLocation>();
  const perSkill: Diagnostic[][] = [];
  for (const item of loaded) {
    const names = [item.folderName, ...(item.declaredName === undefined ? [] : [item.declaredName])];
    if (item.excluded || !isSelected(names, options)) continue;
    const found = [...item.diagnostics];
    perSkill.push(found);
    if (!item.metadata) continue;
    const first = firstByName.get(item.metadata.name);
    if (first) {
      found.push(duplicate(item.metadata.name, first, item.location));
      continue;
    }
    firstByName.set(item.metadata.name, item.location);
    accepted.push({ loaded: item, metadata: item.metadata, found });
  }

  const skills: Skill[] = await Promise.all(
    accepted.map(async ({ loaded: item, metadata, found }) => {
      const listing = lazy
        ? { resources: [], diagnostics: [] }
        : await listResources(fs, item.location.directory, item.location.realDirectory, options);
      found.push(...listing.diagnostics);
      return {
        metadata,
        instructions: item.instructions,
        path: item.location.file,
        directory: item.location.directory,
        resources: listing.resources,
      };
    }),
  );

  const all = uniqueDiagnostics([...diagnostics, ...perSkill.flat()]);
  return {
    skills,
    scannedDirectories: [...options.directories],
    errors: all.filter(isError),
    warnings: all.filter((diagnostic) => !isError(diagnostic)),
  };
}

/** The same real folder reached twice (two symlinks, overlapping directories) loads once: the first. */
function uniqueFolders(locations: readonly SkillLocation[]): SkillLocation[] {
  const seen = new Set<string>();
  return locations.filter((location) => {
    if (seen.has(location.realDirectory)) return false;
    seen.add(location.realDirectory);
    return true;
  });
}

function matchesAny(names: readonly string[], patterns: readonly string[]): boolean {
  return patterns.some((pattern) => names.some((name) => matchesPattern(name, pattern)));
}

/** include/exclude against the skill's name or folder name; exclude wins. */
function isSelected(names: readonly string[], options: ResolvedOptions): boolean {
  if (matchesAny(names, options.exclude)) return false;
  return options.include.length === 0 || matchesAny(names, options.include);
}

/** Reads a SKILL.md: all of it, or (lazy) its head. Rejects like `readFile`. */
type ReadSkill = (file: string) => Promise<string>;

/** `pending`: the SKILL.md's text being read, or undefined when the folder is excluded and was not read. */
async function loadSkill(pending: Promise<string> | undefined, location: SkillLocation, options: ResolvedOptions, lazy: boolean): Promise<Loaded> {
  const folderName = basename(location.directory);
  const base: Loaded = { location, folderName, instructions: '', diagnostics: [], excluded: false };
  if (pending === undefined) return { ...base, excluded: true };

  let text: string;
  try {
    text = await pending;
  } catch (error) {
    return {
      ...base,
      diagnostics: [
        {
          code: 'SKILL_UNREADABLE',
          severity: 'error',
          file: location.file,
          line: 0,
          column: 0,
          message: `cannot read SKILL.md: ${errorReason(error)}. Check the file's permissions; the skill was not loaded.`,
        },
      ],
    };
  }
  const parsed = parseFrontmatter(text, { file: location.file });
  const rawName = parsed.metadata.name;
  const declaredName = typeof rawName === 'string' ? rawName : undefined;
  // After a fence or YAML error the metadata is partial: "name is missing" would only be noise.
  if (parsed.diagnostics.some(isError)) return { ...base, declaredName, diagnostics: parsed.diagnostics };

  const validation = validateMetadata(parsed, { file: location.file, folderName, strict: options.strict });
  return {
    ...base,
    declaredName,
    metadata: validation.metadata,
    // Lazy discovery drops the body here so 20,000 skills cost their frontmatter, not their text.
    instructions: lazy ? '' : parsed.body,
    diagnostics: [...parsed.diagnostics, ...validation.diagnostics],
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

/**
 * Level 2 for one skill found by lazy discovery: its instructions (the body
 * of SKILL.md as it is now) and its resource listing. Rejects with a readable
 * message when SKILL.md can no longer be read.
 */
export async function loadSkillContent(
  entry: SkillEntry,
  options: Pick<ResolvedOptions, 'fs' | 'maxFileSize' | 'secretPatterns'>,
): Promise<{ skill: Skill; diagnostics: Diagnostic[] }> {
  const { fs } = options;
  let text: string;
  let realDirectory: string;
  try {
    text = await fs.readFile(entry.path, 'utf8');
    realDirectory = await fs.realpath(entry.directory);
  } catch (error) {
    throw new Error(`${entry.path} cannot be read any more (${errorReason(error)})`, { cause: error });
  }
  const parsed = parseFrontmatter(text, { file: entry.path });
  const listing = await listResources(fs, entry.directory, realDirectory, options);
  return {
    skill: { ...entry, instructions: parsed.body, resources: listing.resources },
    diagnostics: listing.diagnostics,
  };
}

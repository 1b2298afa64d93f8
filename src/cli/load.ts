/**
 * Discovery for the command line: the public discoverSkills over the folders
 * given and the skill folders of each `--package` (resolved by packages.ts,
 * searched after every folder), plus one rule of its own (cliSeverity): a
 * folder or a package named on the command line that cannot be read or found
 * is an error here; the middleware only warns, since its folders may appear later.
 */
import { sep } from 'node:path';
import { discoverSkills } from '../discover/with-storage.js';
import type { Diagnostic, DiagnosticCode, Severity } from '../base/diagnostics.js';
import { packageOrigin, resolvePackages, type ResolvedPackage } from '../config/packages.js';
import { compareNames } from '../base/text.js';
import type { DiscoveryResult, Skill } from '../base/model.js';
import type { LoadArgs } from './args.js';
import { displayPath } from './io.js';

/** Where a skill came from: a folder given, or an npm package. */
export type Origin =
  { kind: 'folder'; directory: string } | { kind: 'package'; name: string; version: string | undefined; directory: string };

export interface Loaded {
  skills: Skill[];
  /** Absolute paths of the folders given that were read (package folders are in `packages`). */
  directories: string[];
  /** The `--package` names that resolved, in the order given. */
  packages: ResolvedPackage[];
  /** Every problem, errors and warnings, sorted by file and position. */
  diagnostics: Diagnostic[];
  /** The errors about a folder or package itself: list, show and prompt stop on these. */
  unreadable: Diagnostic[];
  errors: number;
  warnings: number;
  /** Each folder scanned, in precedence order, with the origin of the skills under it. */
  roots: Array<{ root: string; origin: Origin }>;
}

/** How long a command waits for an s3:// source's listing, in ms. */
export const CLI_STORAGE_WAIT_MS = 120_000;

/** The codes that say a folder or package cannot be read or found. */
const PLACE_CODES: ReadonlySet<DiagnosticCode> = new Set<DiagnosticCode>([
  'DIRECTORY_NOT_FOUND',
  'DIRECTORY_UNREADABLE',
  'PACKAGE_NOT_FOUND',
  'PACKAGE_NOT_A_SKILL',
  'STORAGE_UNAVAILABLE',
  'STORAGE_ACCESS',
]);

/**
 * Whether `diagnostic` says a folder or package named on the command line
 * cannot be read or found. `named` holds the folders given (a package code is
 * always about a package given: the CLI scans no other).
 */
function isAboutNamedPlace(diagnostic: Diagnostic, named: ReadonlySet<string>): boolean {
  return PLACE_CODES.has(diagnostic.code) && (diagnostic.code.startsWith('PACKAGE_') || named.has(diagnostic.file));
}

/**
 * The CLI's one rule on top of severityOf (diagnostics.ts): a folder or
 * package named on the command line that cannot be read or found is an error,
 * since output without it would silently miss skills. Discovery only warns,
 * because a middleware's folders may appear later.
 */
export function cliSeverity(diagnostic: Diagnostic, named: ReadonlySet<string>): Severity {
  return isAboutNamedPlace(diagnostic, named) ? 'error' : diagnostic.severity;
}

/** Discovery over the command's folders and packages, with its --strict and filters; any other option at the middleware's default. */
export async function load(args: LoadArgs, cwd: string): Promise<Loaded> {
  const { directories, strict, include, exclude } = args;
  // Discovery resolves the packages itself (and judges package roots by package name); this second
  // lookup only tells which scanned folder came from which package and version.
  const resolutions = args.packages.length > 0 ? await resolvePackages(args.packages, { cwd }) : [];
  const packages = resolutions.filter((r): r is ResolvedPackage => r.ok);
  const byRoot = new Map<string, ResolvedPackage>();
  for (const pkg of packages) byRoot.set(packageRoot(pkg), pkg);
  // A command waits for a bucket's whole listing (a request's bound, storageWait, is for agents answering users).
  const result = await discoverSkills({
    directories,
    packages: args.packages,
    cwd,
    strict,
    include,
    exclude,
    storageWait: CLI_STORAGE_WAIT_MS,
  });
  const roots = result.scannedDirectories.map((root) => ({ root, origin: originOfRoot(root, byRoot.get(root)) }));
  return {
    skills: result.skills,
    directories: roots.filter((r) => r.origin.kind === 'folder').map((r) => r.root),
    packages,
    ...classifyDiagnostics(result),
    roots,
  };
}

/** A discovery's problems as the command line sees them. */
export type Classified = Pick<Loaded, 'diagnostics' | 'unreadable' | 'errors' | 'warnings'>;

/**
 * Errors and warnings sorted by position, with the problems about a folder or
 * package named on the command line raised to errors and also listed in
 * `unreadable` (every command that loads skills reads them the same way).
 */
export function classifyDiagnostics(result: Pick<DiscoveryResult, 'errors' | 'warnings' | 'scannedDirectories'>): Classified {
  const given = new Set(result.scannedDirectories);
  const diagnostics = [...result.errors, ...result.warnings]
    .map((d): Diagnostic => ({ ...d, severity: cliSeverity(d, given) }))
    .sort(byPosition);
  const unreadable = diagnostics.filter((d) => d.severity === 'error' && (isAboutNamedPlace(d, given) || given.has(d.file)));
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  return { diagnostics, unreadable, errors, warnings: diagnostics.length - errors };
}

/** The folder of a package that discovery scans: its root when it is one skill, else its `skills/` folder. */
function packageRoot(pkg: ResolvedPackage): string {
  return pkg.kind === 'skill' ? pkg.directory : pkg.skillsDirectory;
}

function originOfRoot(root: string, pkg: ResolvedPackage | undefined): Origin {
  return pkg === undefined
    ? { kind: 'folder', directory: root }
    : { kind: 'package', name: pkg.name, version: pkg.version, directory: pkg.directory };
}

/**
 * The origin of a skill: that of the first root holding it, the root the
 * walk kept it under (roots are walked in precedence order).
 */
export function originOf(skill: Skill, loaded: Pick<Loaded, 'roots'>): Origin | undefined {
  return loaded.roots.find(({ root }) => isInside(skill.directory, root))?.origin;
}

function isInside(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : folder + sep);
}

/** An origin in a line of text: the folder as shown elsewhere, or `name@version`. */
export function formatOrigin(origin: Origin | undefined, cwd: string): string {
  if (origin === undefined) return '?';
  return origin.kind === 'folder' ? displayPath(origin.directory, cwd) : packageOrigin(origin);
}

function byPosition(a: Diagnostic, b: Diagnostic): number {
  return compareNames(a.file, b.file) || a.line - b.line || a.column - b.column;
}

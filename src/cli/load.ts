/**
 * Discovery for the command line: the public discoverSkills over the folders
 * given and the skill folders of each `--package` (resolved by packages.ts,
 * searched after every folder), plus one rule of its own. A folder or a
 * package named on the command line that cannot be read or found is an
 * error here; the middleware only warns, since its folders may appear later.
 */
import { isAbsolute, relative, sep } from 'node:path';
import { discoverSkills } from '../discover/discover.js';
import type { Diagnostic } from '../diagnostics.js';
import { packageOrigin, resolvePackages, type ResolvedPackage } from '../packages.js';
import type { DiscoveryResult, Skill } from '../types.js';
import type { LoadArgs } from './args.js';

/** Where a skill came from: a folder given, or an npm package. */
export type Origin = { kind: 'folder'; directory: string } | { kind: 'package'; name: string; version: string | undefined; directory: string };

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

/** A folder or package named on the command line that cannot be read or found: an error here, though discovery only warns. */
const NAMED_PLACE_CODES = new Set(['DIRECTORY_NOT_FOUND', 'DIRECTORY_UNREADABLE', 'PACKAGE_NOT_FOUND', 'PACKAGE_NOT_A_SKILL']);

/** Discovery over the command's folders and packages, with its --strict and filters; any other option at the middleware's default. */
export async function load(args: LoadArgs, cwd: string): Promise<Loaded> {
  const { directories, strict, include, exclude } = args;
  // Discovery resolves the packages itself (and judges package roots by package name); this second
  // lookup only tells which scanned folder came from which package and version.
  const resolutions = args.packages.length > 0 ? await resolvePackages(args.packages, { cwd }) : [];
  const packages = resolutions.filter((r): r is ResolvedPackage => r.ok);
  const byRoot = new Map<string, ResolvedPackage>();
  for (const pkg of packages) byRoot.set(packageRoot(pkg), pkg);
  const result = await discoverSkills({ directories, packages: args.packages, cwd, strict, include, exclude });
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
  const isAboutPlace = (d: Diagnostic): boolean => NAMED_PLACE_CODES.has(d.code) && (d.code.startsWith('PACKAGE_') || given.has(d.file));
  const promote = (d: Diagnostic): Diagnostic => (isAboutPlace(d) ? { ...d, severity: 'error' } : d);
  const diagnostics = [...result.errors, ...result.warnings].map(promote).sort(byPosition);
  const unreadable = diagnostics.filter((d) => d.severity === 'error' && (isAboutPlace(d) || given.has(d.file)));
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  return { diagnostics, unreadable, errors, warnings: diagnostics.length - errors };
}

/** The folder of a package that discovery scans: its root when it is one skill, else its `skills/` folder. */
function packageRoot(pkg: ResolvedPackage): string {
  return pkg.kind === 'skill' ? pkg.directory : pkg.skillsDirectory;
}

function originOfRoot(root: string, pkg: ResolvedPackage | undefined): Origin {
  return pkg === undefined ? { kind: 'folder', directory: root } : { kind: 'package', name: pkg.name, version: pkg.version, directory: pkg.directory };
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
  return (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) || a.line - b.line || a.column - b.column;
}

/** `path` relative to `cwd` when it is inside it, for shorter lines editors still open. */
export function displayPath(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  if (rel === '') return '.';
  const outside = rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel);
  return outside ? path : rel;
}

/**
 * `file:line:column severity code message`, severity being `error` or
 * `warning`, with the file shown relative to `cwd`. formatDiagnostic's layout
 * (which the middleware's logs keep) plus the severity, so every line says
 * whether it fails a run.
 */
export function formatForCli(diagnostic: Diagnostic, cwd: string): string {
  const file = displayPath(diagnostic.file, cwd);
  const where = diagnostic.line > 0 ? `${file}:${diagnostic.line}:${diagnostic.column}` : file;
  return `${where} ${diagnostic.severity} ${diagnostic.code} ${diagnostic.message}`;
}

/** "1 error", "2 warnings", "3 directories". */
export function count(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}

/**
 * Skills installed as npm packages. `resolvePackages(names, { cwd, fs })`
 * finds each name the way Node finds a bare import from `cwd`: the first
 * `node_modules/<name>` folder walking up from `cwd` (folders themselves
 * named `node_modules` are skipped, as Node skips them), following symbolic
 * links, so npm, yarn, pnpm's `.pnpm` links and workspace links all resolve
 * to the package's real folder. `NODE_PATH` and global folders are not
 * searched: a skill an app uses belongs in its dependencies.
 *
 * A package whose root holds `SKILL.md` is one skill; a package with a
 * `skills/` folder gives each folder in it that holds a `SKILL.md`. A name
 * that does not resolve, or a package that holds neither, is a warning
 * diagnostic naming the package and where it was looked for; nothing here
 * throws. All disk access goes through the given `SkillsFileSystem`.
 */
import { basename, dirname, join, resolve } from 'node:path';
import { createDiagnostic, type Diagnostic, type DiagnosticCode } from '../base/diagnostics.js';
import { errorCode, errorReason, nodeFileSystem, type SkillsFileSystem } from '../base/fs.js';
import { SKILL_FILE } from '../base/skill-file.js';
import { compareNames } from '../base/text.js';

const SKILLS_FOLDER = 'skills';
const NODE_MODULES = 'node_modules';

/** What every resolved package has. */
interface ResolvedPackageBase {
  ok: true;
  /** The package name as configured. */
  name: string;
  /** `version` from its package.json; undefined when that is missing or unreadable. */
  version: string | undefined;
  /** The real path of the package root (symbolic links followed). */
  directory: string;
}

/** A package whose root is one skill: its `SKILL.md` sits beside its package.json. */
export interface SkillPackage extends ResolvedPackageBase {
  kind: 'skill';
}

/** A package that ships several skills in its `skills/` folder. */
export interface SkillCollectionPackage extends ResolvedPackageBase {
  kind: 'collection';
  /** `<directory>/skills`. */
  skillsDirectory: string;
  /** Each folder directly in `skills/` that holds a `SKILL.md`, sorted by name. */
  skillFolders: string[];
}

/** A name that gave no skill: not installed, unreadable, or a package without skills. */
export interface UnresolvedPackage {
  ok: false;
  name: string;
  diagnostic: Diagnostic;
}

export type ResolvedPackage = SkillPackage | SkillCollectionPackage;
export type PackageResolution = ResolvedPackage | UnresolvedPackage;

export interface ResolvePackagesOptions {
  /** Where Node's lookup starts (an app's root). Relative paths resolve against the process's working directory. */
  cwd: string;
  /** @default nodeFileSystem */
  fs?: SkillsFileSystem;
}

// ---------------------------------------------------------------------------
// Names

/**
 * Characters npm allows in a package name (old mixed-case names included).
 * No path separators beyond the scope's one `/`, no leading dot: a name can
 * never climb out of `node_modules`.
 */
const PACKAGE_NAME = /^(?:@[a-z0-9~-][a-z0-9._~-]*\/)?[a-z0-9~-][a-z0-9._~-]*$/i;
/** npm's limit on the length of a package name. */
const MAX_PACKAGE_NAME_LENGTH = 214;

/** Why `name` is not a valid npm package name, or undefined when it is one. For option checks. */
export function packageNameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string' || name === '') return 'a package name must be a non-empty string';
  if (name.length > MAX_PACKAGE_NAME_LENGTH) return `a package name is at most ${MAX_PACKAGE_NAME_LENGTH} characters`;
  if (!PACKAGE_NAME.test(name)) {
    return 'a package name is `name` or `@scope/name`: letters, digits, "-", ".", "_" and "~", not starting with "." or "_", and no other "/"';
  }
  return undefined;
}

/**
 * The skill name a package root is expected to declare: the package name
 * without its scope and without a leading `skill-`
 * (`@sisu-ai/skill-code-review` → `code-review`, `skill-debug` → `debug`,
 * `@acme/lint` → `lint`). It replaces the folder-name rule for package roots,
 * whose folder is named by the package manager, not the author.
 */
export function expectedSkillName(packageName: string): string {
  const unscoped = packageName.startsWith('@') ? packageName.slice(packageName.indexOf('/') + 1) : packageName;
  const stripped = unscoped.startsWith('skill-') ? unscoped.slice('skill-'.length) : unscoped;
  return stripped === '' ? unscoped : stripped;
}

/** Where a package's skills came from, for `list` and `validate`: `name@version`, or `name` when the version is unknown. */
export function packageOrigin(pkg: { name: string; version: string | undefined }): string {
  return pkg.version === undefined ? pkg.name : `${pkg.name}@${pkg.version}`;
}

// ---------------------------------------------------------------------------
// Resolution

/** One result per name, in the order given. Never rejects. */
export async function resolvePackages(names: readonly string[], options: ResolvePackagesOptions): Promise<PackageResolution[]> {
  return Promise.all(names.map((name) => resolvePackage(name, options)));
}

/** Finds one package and says what it holds. Never rejects: every filesystem error becomes a diagnostic. */
export async function resolvePackage(name: string, options: ResolvePackagesOptions): Promise<PackageResolution> {
  const fs = options.fs ?? nodeFileSystem;
  const cwd = resolve(options.cwd);
  const problem = packageNameProblem(name);
  if (problem !== undefined) return unresolved(name, invalidName(name, cwd, problem));
  const found = await locate(fs, name, cwd);
  if (!found.ok) return unresolved(name, notFound(name, cwd, found.searched, found.notes));
  const version = await readVersion(fs, found.directory);
  return classify(fs, { name, version, directory: found.directory });
}

/** The `node_modules` folders Node searches from `cwd`, nearest first. */
export function nodeModulesFolders(cwd: string): string[] {
  const folders: string[] = [];
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (basename(dir) !== NODE_MODULES) folders.push(join(dir, NODE_MODULES));
    if (dirname(dir) === dir) return folders;
  }
}

type Located = { ok: true; directory: string } | { ok: false; searched: string[]; notes: string[] };

/** The first `node_modules/<name>` that is a folder (after links), as a real path. */
async function locate(fs: SkillsFileSystem, name: string, cwd: string): Promise<Located> {
  const searched = nodeModulesFolders(cwd);
  // Notes say why a candidate that exists was passed over, so the warning explains a dangling pnpm link.
  const notes: string[] = [];
  for (const folder of searched) {
    const candidate = join(folder, name);
    const outcome = await probe(fs, candidate);
    if (outcome === 'directory') {
      try {
        return { ok: true, directory: await fs.realpath(candidate) };
      } catch (error) {
        notes.push(`${candidate} could not be followed (${errorReason(error)})`);
        continue;
      }
    }
    if (outcome === 'missing') {
      if (await isLink(fs, candidate)) notes.push(`${candidate} is a symbolic link whose target is missing`);
    } else if (outcome === 'file') {
      notes.push(`${candidate} is a file, not a package folder`);
    } else {
      notes.push(`${candidate} could not be read (${errorReason(outcome.error)})`);
    }
  }
  return { ok: false, searched, notes };
}

type Probe = 'directory' | 'file' | 'missing' | { error: unknown };

/** What `path` is once links are followed. */
async function probe(fs: SkillsFileSystem, path: string): Promise<Probe> {
  try {
    const stats = await fs.stat(path);
    return stats.isDirectory() ? 'directory' : 'file';
  } catch (error) {
    const code = errorCode(error);
    return code === 'ENOENT' || code === 'ENOTDIR' ? 'missing' : { error };
  }
}

async function isLink(fs: SkillsFileSystem, path: string): Promise<boolean> {
  try {
    return (await fs.lstat(path)).isSymbolicLink();
  } catch {
    return false;
  }
}

/** `version` from package.json; undefined when it is missing, unreadable or not JSON (npm's problem, not the skill's). */
async function readVersion(fs: SkillsFileSystem, directory: string): Promise<string | undefined> {
  try {
    const manifest: unknown = JSON.parse(await fs.readFile(join(directory, 'package.json'), 'utf8'));
    if (typeof manifest === 'object' && manifest !== null && 'version' in manifest) {
      const { version } = manifest as { version: unknown };
      return typeof version === 'string' && version !== '' ? version : undefined;
    }
    return undefined;
  } catch {
    return undefined;
  }
}

interface Found {
  name: string;
  version: string | undefined;
  directory: string;
}

/** One skill, a collection, or neither. The root's listing decides, so the file name's case must be exact, as in discovery. */
async function classify(fs: SkillsFileSystem, found: Found): Promise<PackageResolution> {
  const base = { ok: true as const, ...found };
  let entries: string[];
  try {
    entries = (await fs.readdir(found.directory, { withFileTypes: true })).map((entry) => entry.name);
  } catch (error) {
    return unresolved(found.name, folderUnreadable(found, found.directory, error));
  }
  if (entries.includes(SKILL_FILE) && (await probe(fs, join(found.directory, SKILL_FILE))) === 'file') {
    return { ...base, kind: 'skill' };
  }
  const skillsDirectory = join(found.directory, SKILLS_FOLDER);
  if (entries.includes(SKILLS_FOLDER)) {
    const listed = await listSkillFolders(fs, skillsDirectory);
    if ('error' in listed) return unresolved(found.name, folderUnreadable(found, skillsDirectory, listed.error));
    if (listed.folders.length > 0) return { ...base, kind: 'collection', skillsDirectory, skillFolders: listed.folders };
    if (listed.exists) return unresolved(found.name, notASkill(found, entries, 'emptySkills'));
  }
  return unresolved(found.name, notASkill(found, entries, 'nothing'));
}

type Listed = { exists: boolean; folders: string[] } | { error: unknown };

/** Folders directly in `skills/` holding a `SKILL.md`; dot-folders and node_modules skipped as discovery skips them. */
async function listSkillFolders(fs: SkillsFileSystem, skillsDirectory: string): Promise<Listed> {
  let names: string[];
  try {
    const entries = await fs.readdir(skillsDirectory, { withFileTypes: true });
    names = entries
      .filter((entry) => (entry.isDirectory() || entry.isSymbolicLink()) && !entry.name.startsWith('.') && entry.name !== NODE_MODULES)
      .map((entry) => entry.name);
  } catch (error) {
    const code = errorCode(error);
    return code === 'ENOENT' || code === 'ENOTDIR' ? { exists: false, folders: [] } : { error };
  }
  const checked = await Promise.all(
    names.map(async (name) => ((await probe(fs, join(skillsDirectory, name, SKILL_FILE))) === 'file' ? name : undefined)),
  );
  const folders = checked
    .filter((name): name is string => name !== undefined)
    .sort(compareNames)
    .map((name) => join(skillsDirectory, name));
  return { exists: true, folders };
}

// ---------------------------------------------------------------------------
// Diagnostics

function unresolved(name: string, diagnostic: Diagnostic): UnresolvedPackage {
  return { ok: false, name, diagnostic };
}

function warning(code: DiagnosticCode, file: string, message: string): Diagnostic {
  return createDiagnostic(code, file, message);
}

/** The place a user would look first for an uninstalled package. */
function nearest(name: string, cwd: string): string {
  return join(nodeModulesFolders(cwd)[0] ?? join(cwd, NODE_MODULES), name);
}

function invalidName(name: string, cwd: string, problem: string): Diagnostic {
  return warning(
    'PACKAGE_NOT_FOUND',
    join(cwd, NODE_MODULES),
    `package ${JSON.stringify(name)} was not looked up: ${problem}. Fix the name in \`packages\` (e.g. '@sisu-ai/skill-debug').`,
  );
}

function notFound(name: string, cwd: string, searched: readonly string[], notes: readonly string[]): Diagnostic {
  const why = notes.length > 0 ? ` ${notes.join('; ')}.` : '';
  return warning(
    'PACKAGE_NOT_FOUND',
    nearest(name, cwd),
    `package ${name} is not installed where Node looks from ${cwd}: no ${name} folder in any of ${searched.join(', ')}.${why} ` +
      `Install it (npm install ${name}), set \`cwd\` to the app that depends on it, or remove it from \`packages\`.`,
  );
}

function folderUnreadable(found: Found, folder: string, error: unknown): Diagnostic {
  return warning(
    'DIRECTORY_UNREADABLE',
    folder,
    `cannot list ${folder} of package ${packageOrigin(found)}: ${errorReason(error)}. ` +
      `Check the folder's permissions (or reinstall the package); its skills were not loaded.`,
  );
}

/** A case-only miss, said plainly: `skill.md` is not `SKILL.md` here any more than in discovery. */
function caseHint(entries: readonly string[]): string {
  const near = entries.find((entry) => entry !== SKILL_FILE && entry.toLowerCase() === SKILL_FILE.toLowerCase());
  return near === undefined ? '' : ` It has ${near}: the file must be named ${SKILL_FILE}, in exactly those capitals.`;
}

function notASkill(found: Found, entries: readonly string[], shape: 'emptySkills' | 'nothing'): Diagnostic {
  const what =
    shape === 'emptySkills'
      ? `its ${SKILLS_FOLDER}/ folder holds no folder with a ${SKILL_FILE}`
      : `there is no ${SKILL_FILE} at its root and no ${SKILLS_FOLDER}/ folder of skill folders`;
  return warning(
    'PACKAGE_NOT_A_SKILL',
    found.directory,
    `package ${packageOrigin(found)} holds no skill: ${what}.${caseHint(entries)} ` +
      `If it is a tool or a library (an installer, a CLI), remove it from \`packages\`; if it should ship skills, ` +
      `put ${SKILL_FILE} at its root or skill folders under ${SKILLS_FOLDER}/, and check that package.json \`files\` includes them.`,
  );
}

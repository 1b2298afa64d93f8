/**
 * A skill's bundled files: listing them (never secrets, never links that
 * leave the skill folder), with their type (classify.ts) and size.
 */
import { relative, sep } from 'node:path';
import { createDiagnostic, type Diagnostic } from '../base/diagnostics.js';
import { errorReason, type DirEntry, type SkillsFileSystem } from '../base/fs.js';
import { hasHiddenCharacters } from '../base/hidden-characters.js';
import { childPath, isSameOrInside } from '../base/paths.js';
import { createSecretMatcher, type SecretMatcher } from '../config/secrets.js';
import { hasSkillFile, isSkippedName, SKILL_FILE } from '../base/skill-file.js';
import { compareNames } from '../base/text.js';
import type { SkillResource } from '../base/model.js';
import { classifyResource } from './classify.js';
import { symlinkLoop } from './link-loops.js';
import { RESOURCE_FOLDERS } from './walk.js';

export { classifyResource } from './classify.js';
// Kept here while the resource reader still imports it from discovery; it lives in a leaf module now.
export { hasHiddenCharacters } from '../base/hidden-characters.js';

/** How many folder levels below a skill folder are listed. */
export const MAX_RESOURCE_DEPTH = 8;

export interface ResourceLimits {
  /** Files over this many bytes are listed with `tooLarge: true`; the reader refuses them. */
  maxFileSize: number;
  /** Secret names (DEFAULT_SECRET_PATTERNS plus `secretPatterns`): matching files and folders are never listed. */
  isSecret: SecretMatcher;
}

/** The limits of every listing under these options, the secret patterns compiled once here: make it once, list many. */
export function resourceLimits(options: { maxFileSize: number; secretPatterns?: readonly string[] }): ResourceLimits {
  return { maxFileSize: options.maxFileSize, isSecret: createSecretMatcher(options.secretPatterns) };
}

export interface ResourceListing {
  /** `tooLarge` marks a file over maxFileSize: listed so the model knows it exists, never read. */
  resources: SkillResource[];
  diagnostics: Diagnostic[];
}

interface FoundFile {
  path: string;
  absolutePath: string;
  size: number;
}

/** What part of a listing found: files, and problems in the order met. */
interface Found {
  files: FoundFile[];
  diagnostics: Diagnostic[];
}

/** What every step of one listing shares. */
interface ListingScope {
  fs: SkillsFileSystem;
  /** Real path of the skill folder: nothing outside it is listed. */
  root: string;
  isSecret: SecretMatcher;
}

/** A folder being listed, as reached, relative to the skill, and as it really is. */
interface ResourceFolder {
  absolutePath: string;
  relativePath: string;
  realPath: string;
  depth: number;
  /** In one of the skill's resource folders (RESOURCE_FOLDERS), where no folder is a skill. */
  inResourceFolder: boolean;
}

const NOTHING: Found = { files: [], diagnostics: [] };

/**
 * List the files of the skill in `directory` (real path `realDirectory`),
 * sorted by relative path. Leaves out SKILL.md, dot-files, node_modules,
 * nested skill folders, secrets, names with invisible characters and links
 * whose real path leaves the skill folder; never throws.
 */
export async function listResources(
  fs: SkillsFileSystem,
  directory: string,
  realDirectory: string,
  limits: ResourceLimits,
): Promise<ResourceListing> {
  let entries: DirEntry[];
  try {
    entries = await fs.readdir(directory, { withFileTypes: true });
  } catch (error) {
    return { resources: [], diagnostics: [unreadable(directory, error)] };
  }
  const scope: ListingScope = { fs, root: realDirectory, isSecret: limits.isSecret };
  const found = await listEntries(
    scope,
    entries.filter((entry) => entry.name !== SKILL_FILE),
    {
      absolutePath: directory,
      relativePath: '',
      realPath: realDirectory,
      depth: 0,
      inResourceFolder: false,
    },
  );
  found.files.sort((a, b) => compareNames(a.path, b.path));
  return {
    resources: found.files.map((file) => toResource(file, limits.maxFileSize)),
    diagnostics: [...found.diagnostics, ...tooLargeWarnings(found.files, limits.maxFileSize)],
  };
}

async function listEntries(scope: ListingScope, entries: readonly DirEntry[], folder: ResourceFolder): Promise<Found> {
  // Secrets are dropped by name before any stat: they are never looked at.
  const visible = entries.filter((entry) => !isSkippedName(entry.name) && !scope.isSecret(entry.name));
  const parts = await Promise.all(visible.map((entry) => listEntry(scope, entry, folder)));
  return {
    files: parts.flatMap((part) => part.files),
    diagnostics: parts.flatMap((part) => part.diagnostics),
  };
}

function problem(diagnostic: Diagnostic): Found {
  return { files: [], diagnostics: [diagnostic] };
}

async function listEntry(scope: ListingScope, entry: DirEntry, folder: ResourceFolder): Promise<Found> {
  const { fs } = scope;
  // Plain concatenation (no path.join): an s3:// path's `//` must survive.
  const absolutePath = childPath(folder.absolutePath, entry.name);
  const relativePath = folder.relativePath === '' ? entry.name : `${folder.relativePath}/${entry.name}`;
  if (hasHiddenCharacters(entry.name))
    return problem(leftOut(absolutePath, 'its name holds invisible or control characters, which could disguise it. Rename it'));
  let isDirectory = entry.isDirectory();
  let realPath = childPath(folder.realPath, entry.name);
  let size = 0;
  try {
    if (!isDirectory) {
      // Sizes need a stat anyway; for a symlink it also says what it points at.
      const stats = await fs.stat(absolutePath);
      isDirectory = stats.isDirectory();
      size = stats.size;
      if (!isDirectory && !stats.isFile()) return NOTHING;
    }
    if (entry.isSymbolicLink()) {
      realPath = await fs.realpath(absolutePath);
      if (isDirectory && isSameOrInside(folder.realPath, realPath))
        return problem(symlinkLoop(absolutePath, `it points back to ${realPath}, which contains it`));
      // The reader refuses what lies outside the skill, so the listing must not offer it.
      if (!isSameOrInside(realPath, scope.root)) {
        return problem(leftOut(absolutePath, `it links to ${realPath}, outside the skill folder. Copy the file into the skill instead`));
      }
      if (scope.isSecret(relative(scope.root, realPath).split(sep).join('/'))) return NOTHING;
    }
  } catch (error) {
    return problem(unreadable(absolutePath, error));
  }
  if (!isDirectory) return { files: [{ path: relativePath, absolutePath, size }], diagnostics: [] };
  if (folder.depth + 1 > MAX_RESOURCE_DEPTH) return NOTHING;
  let children: DirEntry[];
  try {
    children = await fs.readdir(absolutePath, { withFileTypes: true });
  } catch (error) {
    return problem(unreadable(absolutePath, error));
  }
  // A folder with its own SKILL.md is a separate skill, not part of this one, unless it is (or is in)
  // a resource folder: discovery finds no skill there (walk.ts).
  const inResourceFolder = folder.inResourceFolder || (folder.depth === 0 && RESOURCE_FOLDERS.has(entry.name));
  if (!inResourceFolder && hasSkillFile(children)) return NOTHING;
  return listEntries(scope, children, { absolutePath, relativePath, realPath, depth: folder.depth + 1, inResourceFolder });
}

function toResource(file: FoundFile, maxFileSize: number): SkillResource {
  const resource: SkillResource = {
    name: file.path.slice(file.path.lastIndexOf('/') + 1),
    path: file.path,
    absolutePath: file.absolutePath,
    type: classifyResource(file.path),
    size: file.size,
  };
  if (file.size > maxFileSize) resource.tooLarge = true;
  return resource;
}

/** One warning per file over maxFileSize: it is listed, but read_skill_resource will not return it. */
function tooLargeWarnings(files: readonly FoundFile[], maxFileSize: number): Diagnostic[] {
  return files
    .filter((file) => file.size > maxFileSize)
    .map((file) =>
      createDiagnostic(
        'RESOURCE_TOO_LARGE',
        file.absolutePath,
        `resource listed as too large to read: it is ${file.size} bytes, over maxFileSize ` +
          `(${maxFileSize} bytes). Shrink or split the file, or raise maxFileSize.`,
      ),
    );
}

function leftOut(path: string, reason: string): Diagnostic {
  return createDiagnostic('RESOURCE_UNREADABLE', path, `resource left out: ${reason}.`);
}

function unreadable(path: string, error: unknown): Diagnostic {
  return leftOut(path, `cannot read it (${errorReason(error)}). Fix its permissions or remove it`);
}

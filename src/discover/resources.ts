/**
 * A skill's bundled files: listing them (never secrets, never links that
 * leave the skill folder), classifying them, and confining relative paths to
 * the skill folder.
 */
import { join, relative, sep } from 'node:path';
import type { Diagnostic } from '../diagnostics.js';
import { errorReason, type DirEntry, type SkillsFileSystem } from '../fs.js';
import { createSecretMatcher, type SecretMatcher } from '../secrets.js';
import type { ResourceType, SkillResource } from '../types.js';
import { compareNames, hasSkillFile, isSameOrInside, isSkippedName, SKILL_FILE, symlinkLoop } from './scan.js';

/** How many folder levels below a skill folder are listed. */
export const MAX_RESOURCE_DEPTH = 8;

export interface ResourceLimits {
  /** Files over this many bytes are listed with `tooLarge: true`; the reader refuses them. */
  maxFileSize: number;
  /** Secret name patterns added to DEFAULT_SECRET_PATTERNS; matching files and folders are never listed. */
  secretPatterns?: readonly string[];
}

/** A listed resource. `tooLarge` marks a file over maxFileSize: listed so the model knows it exists, never read. */
export type ListedResource = SkillResource;

export interface ResourceListing {
  resources: ListedResource[];
  diagnostics: Diagnostic[];
}

interface FoundFile {
  path: string;
  absolutePath: string;
  size: number;
}

interface Walked {
  files: FoundFile[];
  diagnostics: Diagnostic[];
}

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
  const walk: Walk = { fs, root: realDirectory, isSecret: createSecretMatcher(limits.secretPatterns) };
  const walked = await walkEntries(walk, entries.filter((entry) => entry.name !== SKILL_FILE), {
    absolutePath: directory,
    relativePath: '',
    realPath: realDirectory,
    depth: 0,
  });
  walked.files.sort((a, b) => compareNames(a.path, b.path));
  return {
    resources: walked.files.map((file) => toResource(file, limits.maxFileSize)),
    diagnostics: [...walked.diagnostics, ...tooLargeWarnings(walked.files, limits.maxFileSize)],
  };
}

/** What every step of one listing shares. */
interface Walk {
  fs: SkillsFileSystem;
  /** Real path of the skill folder: nothing outside it is listed. */
  root: string;
  isSecret: SecretMatcher;
}

interface Folder {
  absolutePath: string;
  relativePath: string;
  realPath: string;
  depth: number;
}

async function walkEntries(walk: Walk, entries: readonly DirEntry[], folder: Folder): Promise<Walked> {
  // Secrets are dropped by name before any stat: they are never looked at.
  const visible = entries.filter((entry) => !isSkippedName(entry.name) && !walk.isSecret(entry.name));
  const parts = await Promise.all(visible.map((entry) => walkEntry(walk, entry, folder)));
  return {
    files: parts.flatMap((part) => part.files),
    diagnostics: parts.flatMap((part) => part.diagnostics),
  };
}

async function walkEntry(walk: Walk, entry: DirEntry, folder: Folder): Promise<Walked> {
  const { fs } = walk;
  const absolutePath = join(folder.absolutePath, entry.name);
  const relativePath = folder.relativePath === '' ? entry.name : `${folder.relativePath}/${entry.name}`;
  const none: Walked = { files: [], diagnostics: [] };
  if (hasHiddenCharacters(entry.name)) {
    return { files: [], diagnostics: [leftOut(absolutePath, 'its name holds invisible or control characters, which could disguise it. Rename it')] };
  }
  let isDirectory = entry.isDirectory();
  let realPath = join(folder.realPath, entry.name);
  let size = 0;
  try {
    if (!isDirectory) {
      // Sizes need a stat anyway; for a symlink it also says what it points at.
      const stats = await fs.stat(absolutePath);
      isDirectory = stats.isDirectory();
      size = stats.size;
      if (!isDirectory && !stats.isFile()) return none;
    }
    if (entry.isSymbolicLink()) {
      realPath = await fs.realpath(absolutePath);
      if (isDirectory && isSameOrInside(folder.realPath, realPath)) {
        return { files: [], diagnostics: [symlinkLoop(absolutePath, `it points back to ${realPath}, which contains it`)] };
      }
      // The reader refuses what lies outside the skill, so the listing must not offer it.
      if (!isSameOrInside(realPath, walk.root)) {
        return { files: [], diagnostics: [leftOut(absolutePath, `it links to ${realPath}, outside the skill folder. Copy the file into the skill instead`)] };
      }
      if (walk.isSecret(relative(walk.root, realPath).split(sep).join('/'))) return none;
    }
  } catch (error) {
    return { files: [], diagnostics: [unreadable(absolutePath, error)] };
  }
  if (!isDirectory) return { files: [{ path: relativePath, absolutePath, size }], diagnostics: [] };
  if (folder.depth + 1 > MAX_RESOURCE_DEPTH) return none;

  let children: DirEntry[];
  try {
    children = await fs.readdir(absolutePath, { withFileTypes: true });
  } catch (error) {
    return { files: [], diagnostics: [unreadable(absolutePath, error)] };
  }
  // A folder with its own SKILL.md is a separate skill, not part of this one.
  if (hasSkillFile(children)) return none;
  return walkEntries(walk, children, { absolutePath, relativePath, realPath, depth: folder.depth + 1 });
}

function toResource(file: FoundFile, maxFileSize: number): ListedResource {
  const resource: ListedResource = {
    name: baseName(file.path),
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
    .map((file) => ({
      code: 'RESOURCE_TOO_LARGE',
      severity: 'warning',
      file: file.absolutePath,
      line: 0,
      column: 0,
      message: `resource listed as too large to read: it is ${file.size} bytes, over maxFileSize (${maxFileSize} bytes). Shrink or split the file, or raise maxFileSize.`,
    }));
}

function leftOut(path: string, reason: string): Diagnostic {
  return { code: 'RESOURCE_UNREADABLE', severity: 'warning', file: path, line: 0, column: 0, message: `resource left out: ${reason}.` };
}

function unreadable(path: string, error: unknown): Diagnostic {
  return leftOut(path, `cannot read it (${errorReason(error)}). Fix its permissions or remove it`);
}

function baseName(relativePath: string): string {
  return relativePath.slice(relativePath.lastIndexOf('/') + 1);
}

// ---------------------------------------------------------------------------
// Classification

const FOLDER_TYPES: Record<string, ResourceType> = {
  scripts: 'script',
  templates: 'template',
  references: 'reference',
  docs: 'reference',
  assets: 'asset',
};

const SCRIPT_EXTENSIONS = new Set(['sh', 'bash', 'zsh', 'py', 'js', 'mjs', 'cjs', 'ts', 'ps1', 'rb', 'pl']);
const TEMPLATE_EXTENSIONS = new Set(['tmpl', 'tpl', 'template', 'hbs', 'handlebars', 'mustache', 'j2', 'jinja', 'jinja2', 'ejs', 'njk', 'liquid']);
const REFERENCE_EXTENSIONS = new Set(['md', 'markdown', 'txt', 'rst', 'adoc']);
const ASSET_EXTENSIONS = new Set([
  // images
  'png', 'jpg', 'jpeg', 'gif', 'svg', 'webp', 'ico', 'bmp',
  // fonts
  'ttf', 'otf', 'woff', 'woff2',
  // data
  'json', 'csv', 'tsv', 'yaml', 'yml', 'xml', 'xlsx', 'pdf', 'zip',
]);

/**
 * What a resource is, from its relative POSIX path alone:
 * 1. the top-most conventional folder it sits in decides: scripts/ -> script,
 *    templates/ -> template, references/ or docs/ -> reference, assets/ -> asset
 *    (the author put it there on purpose);
 * 2. otherwise the name: script extensions (.sh .py .js .ts ...) -> script;
 *    template extensions (.tmpl .hbs .j2 ...) or "template" in the name -> template;
 *    documents (.md .txt .rst ...) -> reference; images, fonts and data -> asset;
 * 3. anything else -> other.
 */
export function classifyResource(relativePath: string): ResourceType {
  const fileName = baseName(relativePath).toLowerCase();
  for (const segment of relativePath.split('/').slice(0, -1)) {
    const type = FOLDER_TYPES[segment.toLowerCase()];
    if (type) return type;
  }
  const dot = fileName.lastIndexOf('.');
  const extension = dot > 0 ? fileName.slice(dot + 1) : '';
  if (SCRIPT_EXTENSIONS.has(extension)) return 'script';
  if (TEMPLATE_EXTENSIONS.has(extension) || fileName.includes('template')) return 'template';
  if (REFERENCE_EXTENSIONS.has(extension)) return 'reference';
  if (ASSET_EXTENSIONS.has(extension)) return 'asset';
  return 'other';
}

// ---------------------------------------------------------------------------
// Confinement

/**
 * Control characters (NUL, newlines, escapes) and invisible format characters
 * (right-to-left override, zero-width joiners, BOM): a name holding them can
 * look like another name, so it is neither listed nor read.
 */
export function hasHiddenCharacters(name: string): boolean {
  return /[\p{Cc}\p{Cf}\u2028\u2029]/u.test(name);
}

/**
 * `relativePath` resolved inside `directory`, or undefined when it is absolute,
 * names a drive, holds a NUL byte, is empty, or climbs out with `..`. Pure:
 * symlinks are the caller's to check. Both `/` and `\` separate segments.
 */
export function resolveInside(directory: string, relativePath: string): string | undefined {
  if (relativePath === '' || relativePath.includes('\0')) return undefined;
  if (/^[\\/]/.test(relativePath) || /^[A-Za-z]:/.test(relativePath)) return undefined;
  const kept: string[] = [];
  for (const segment of relativePath.split(/[\\/]/)) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (kept.pop() === undefined) return undefined;
    } else {
      kept.push(segment);
    }
  }
  if (kept.length === 0) return undefined;
  return join(directory, ...kept);
}

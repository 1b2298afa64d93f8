/**
 * A skill's bundled files: listing them within the size limits, classifying
 * them, and confining relative paths to the skill folder.
 */
import { join } from 'node:path';
import type { Diagnostic } from '../diagnostics.js';
import { errorReason, type DirEntry, type SkillsFileSystem } from '../fs.js';
import type { ResourceType, SkillResource } from '../types.js';
import { compareNames, hasSkillFile, isSameOrInside, isSkippedName, SKILL_FILE, symlinkLoop } from './scan.js';

/** How many folder levels below a skill folder are listed. */
export const MAX_RESOURCE_DEPTH = 8;

export interface ResourceLimits {
  /** Largest file listed, in bytes. */
  maxFileSize: number;
  /** Most bytes listed in total. */
  maxSkillSize: number;
}

export interface ResourceListing {
  resources: SkillResource[];
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
 * sorted by relative path. Leaves out SKILL.md, dot-files, node_modules and
 * nested skill folders; never throws.
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
  const walked = await walkEntries(fs, entries.filter((entry) => entry.name !== SKILL_FILE), {
    absolutePath: directory,
    relativePath: '',
    realPath: realDirectory,
    depth: 0,
  });
  walked.files.sort((a, b) => compareNames(a.path, b.path));
  return applyLimits(walked, directory, limits);
}

interface Folder {
  absolutePath: string;
  relativePath: string;
  realPath: string;
  depth: number;
}

async function walkEntries(fs: SkillsFileSystem, entries: readonly DirEntry[], folder: Folder): Promise<Walked> {
  const visible = entries.filter((entry) => !isSkippedName(entry.name));
  const parts = await Promise.all(visible.map((entry) => walkEntry(fs, entry, folder)));
  return {
    files: parts.flatMap((part) => part.files),
    diagnostics: parts.flatMap((part) => part.diagnostics),
  };
}

async function walkEntry(fs: SkillsFileSystem, entry: DirEntry, folder: Folder): Promise<Walked> {
  const absolutePath = join(folder.absolutePath, entry.name);
  const relativePath = folder.relativePath === '' ? entry.name : `${folder.relativePath}/${entry.name}`;
  const none: Walked = { files: [], diagnostics: [] };
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
    if (isDirectory && entry.isSymbolicLink()) {
      realPath = await fs.realpath(absolutePath);
      if (isSameOrInside(folder.realPath, realPath)) {
        return { files: [], diagnostics: [symlinkLoop(absolutePath, `it points back to ${realPath}, which contains it`)] };
      }
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
  return walkEntries(fs, children, { absolutePath, relativePath, realPath, depth: folder.depth + 1 });
}

/**
 * Leave out files over maxFileSize one by one; once the running total would
 * pass maxSkillSize, leave out every remaining file (path order) with one
 * warning, so a big skill is trimmed predictably rather than lost.
 */
function applyLimits(walked: Walked, directory: string, limits: ResourceLimits): ResourceListing {
  const resources: SkillResource[] = [];
  const diagnostics = [...walked.diagnostics];
  let total = 0;
  let leftOut = 0;
  for (const file of walked.files) {
    if (leftOut > 0) {
      leftOut++;
    } else if (file.size > limits.maxFileSize) {
      diagnostics.push({
        code: 'RESOURCE_TOO_LARGE',
        severity: 'warning',
        file: file.absolutePath,
        line: 0,
        column: 0,
        message: `resource left out: it is ${file.size} bytes, over maxFileSize (${limits.maxFileSize} bytes). Shrink or split the file, or raise maxFileSize.`,
      });
    } else if (total + file.size > limits.maxSkillSize) {
      leftOut = 1;
    } else {
      total += file.size;
      resources.push({ name: baseName(file.path), path: file.path, absolutePath: file.absolutePath, type: classifyResource(file.path), size: file.size });
    }
  }
  if (leftOut > 0) {
    diagnostics.push({
      code: 'SKILL_RESOURCES_TRUNCATED',
      severity: 'warning',
      file: directory,
      line: 0,
      column: 0,
      message: `${leftOut} resource file${leftOut === 1 ? '' : 's'} left out: listing more would pass maxSkillSize (${limits.maxSkillSize} bytes in total). Move large files out of the skill, or raise maxSkillSize.`,
    });
  }
  return { resources, diagnostics };
}

function unreadable(path: string, error: unknown): Diagnostic {
  return {
    code: 'RESOURCE_UNREADABLE',
    severity: 'warning',
    file: path,
    line: 0,
    column: 0,
    message: `resource left out: cannot read it (${errorReason(error)}). Fix its permissions or remove it.`,
  };
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

/**
 * Options, their defaults, and the one place they are checked. Mistakes throw
 * a SkillsConfigError at construction with a message that says how to fix them.
 */
import { homedir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { SkillsConfigError } from './errors.js';
import { nodeFileSystem, type SkillsFileSystem } from './fs.js';
import { resolveAlways, resolveAutoActivate, type AutoActivateOptions } from './activation.js';
import { DEFAULT_CATALOG_BUDGET } from './catalog.js';
import { packageNameProblem } from './packages.js';
import { editDistance } from './text.js';
import { WATCH_DEFAULTS } from './watch.js';

export interface SkillsOptions {
  /** Folders to scan for skills, in precedence order (the first one wins a name clash). */
  directories?: readonly string[];
  /** Shorthand for a single entry in `directories`. */
  directory?: string;
  /**
   * npm packages that ship skills, e.g. `['@sisu-ai/skill-code-review']`,
   * resolved the way Node resolves them from `cwd` (npm, pnpm, yarn,
   * workspaces). A package whose root holds SKILL.md is one skill; one with a
   * `skills/` folder gives each skill in it. Searched after `directories`.
   * Default: none.
   */
  packages?: readonly string[];
  /** Base for relative directories. Default: `process.cwd()`. */
  cwd?: string;
  /** Only load skills whose name or folder name matches one of these (`*` and `?` wildcards). Default: all. */
  include?: readonly string[];
  /** Never load skills whose name or folder name matches one of these. Default: none. */
  exclude?: readonly string[];
  /** Largest file `read_skill_resource` returns, in bytes; larger files are listed as too large to read. Default: 100 KB. */
  maxFileSize?: number;
  /** Most bytes `read_skill_resource` returns per skill per run. Default: 500 KB. */
  maxSkillSize?: number;
  /** Files named in a `use_skill` answer; the rest are counted by folder. Default: 200. */
  maxListedResources?: number;
  /**
   * Most characters of a skill's instructions a `use_skill` answer carries. A
   * longer body is cut at a line boundary and the answer says how to read the
   * rest (SKILL.md through `read_skill_resource`, in windows). Default: 50,000
   * (3 of the 1,129 real skills we test against are longer).
   */
  maxInstructionChars?: number;
  /** Register `read_skill_resource`. Default: true. */
  resourceTool?: boolean;
  /** More secret file-name patterns (`*`, `?`, case-insensitive, matched on every path segment), added to the defaults. Default: none. */
  secretPatterns?: readonly string[];
  /** How long a discovery (and a file read, while its mtime and size are unchanged) is reused, in ms. `0` rescans on every request. Default: 5 minutes. */
  cacheTtl?: number;
  /** Turn agentskills.io naming and length rules from warnings into errors. Default: false. */
  strict?: boolean;
  /** Read every skill's instructions and resource listing at discovery instead of on first activation. Default: false. */
  preload?: boolean;
  /** Most characters the catalog section may take in the system prompt. Default: 8000. */
  catalogBudget?: number;
  /** Register `find_skills`: true always, false never. Default: only when the catalog does not fit `catalogBudget`. */
  findSkills?: boolean;
  /** Skills every run starts with, activated before the model runs. Default: none. */
  always?: readonly string[];
  /** Pre-activate the skills that best match the latest user message. `true` means `{ threshold: 0.3, maxSkills: 1 }`. Default: off. */
  autoActivate?: boolean | AutoActivateOptions;
  /** Watch the directories and rebuild the index when skills change. Default: false. */
  watch?: boolean | { debounceMs?: number };
  /** Aborting it stops the watcher (as `close()` does). */
  signal?: AbortSignal;
  /** The filesystem to read. Default: `node:fs/promises`. */
  fs?: SkillsFileSystem;
}

export interface ResolvedOptions {
  directories: string[];
  packages: string[];
  /** Where packages are resolved from. */
  cwd: string;
  include: string[];
  exclude: string[];
  maxFileSize: number;
  maxSkillSize: number;
  maxListedResources: number;
  maxInstructionChars: number;
  resourceTool: boolean;
  secretPatterns: string[];
  cacheTtl: number;
  strict: boolean;
  preload: boolean;
  catalogBudget: number;
  /** undefined: only when over budget. */
  findSkills: boolean | undefined;
  always: string[];
  autoActivate: Required<AutoActivateOptions> | undefined;
  /** undefined: not watching. */
  watch: { debounceMs: number } | undefined;
  signal: AbortSignal | undefined;
  fs: SkillsFileSystem;
}

export const DEFAULTS = {
  maxFileSize: 100 * 1024,
  maxSkillSize: 500 * 1024,
  maxListedResources: 200,
  maxInstructionChars: 50_000,
  resourceTool: true,
  cacheTtl: 5 * 60 * 1000,
  strict: false,
  preload: false,
  catalogBudget: DEFAULT_CATALOG_BUDGET,
  watchDebounceMs: WATCH_DEFAULTS.debounceMs,
} as const;

const KNOWN_OPTIONS = [
  'directories',
  'directory',
  'packages',
  'cwd',
  'include',
  'exclude',
  'maxFileSize',
  'maxSkillSize',
  'maxListedResources',
  'maxInstructionChars',
  'resourceTool',
  'secretPatterns',
  'cacheTtl',
  'strict',
  'preload',
  'catalogBudget',
  'findSkills',
  'always',
  'autoActivate',
  'watch',
  'signal',
  'fs',
] as const;

const USAGE = "skillsMiddleware({ directories: ['./skills'] })";

function fail(message: string): never {
  throw new SkillsConfigError(`[skills] ${message}`);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`;
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}

/** Expand `~` and resolve against `cwd`. */
export function resolveDirectory(directory: string, cwd: string): string {
  let expanded = directory;
  if (directory === '~') expanded = homedir();
  else if (directory.startsWith('~/') || directory.startsWith('~\\')) expanded = homedir() + directory.slice(1);
  return isAbsolute(expanded) ? resolve(expanded) : resolve(cwd, expanded);
}

function checkStringList(name: string, value: unknown): string[] {
  if (!Array.isArray(value)) fail(`\`${name}\` must be an array of strings, got ${describe(value)}. Example: ${name}: ['code-review'].`);
  value.forEach((item: unknown, i) => {
    if (typeof item !== 'string' || item.trim() === '') {
      fail(`\`${name}[${i}]\` must be a non-empty string, got ${describe(item)}.`);
    }
  });
  return [...(value as string[])];
}

function checkPackages(value: unknown): string[] {
  const names = checkStringList('packages', value);
  names.forEach((name, i) => {
    const problem = packageNameProblem(name);
    if (problem) fail(`\`packages[${i}]\` (${JSON.stringify(name)}) is not a package name: ${problem}. Example: packages: ['@sisu-ai/skill-debug'].`);
  });
  return [...new Set(names)];
}

function checkSize(name: string, value: unknown, fallback: number, allowZero = false): number {
  if (value === undefined) return fallback;
  const ok =
    typeof value === 'number' &&
    !Number.isNaN(value) &&
    (value === Infinity || Number.isInteger(value)) &&
    (allowZero ? value >= 0 : value > 0);
  if (!ok) {
    const range = allowZero ? 'a whole number of 0 or more' : 'a whole number greater than 0';
    fail(`\`${name}\` must be ${range} (or Infinity), got ${describe(value)}. Default: ${fallback}.`);
  }
  return value;
}

function closest(name: string): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const known of KNOWN_OPTIONS) {
    const d = editDistance(name.toLowerCase(), known.toLowerCase());
    if (d < bestDistance) {
      bestDistance = d;
      best = known;
    }
  }
  return bestDistance <= 3 ? best : undefined;
}

/** Check options once and fill in defaults. Throws SkillsConfigError on any mistake. */
export function resolveOptions(options: SkillsOptions | undefined): ResolvedOptions {
  if (options === undefined || options === null || typeof options !== 'object' || Array.isArray(options)) {
    fail(`options are required: pass the folders that hold your skills, e.g. ${USAGE}.`);
  }
  for (const key of Object.keys(options)) {
    if (!(KNOWN_OPTIONS as readonly string[]).includes(key)) {
      const suggestion = closest(key);
      fail(`unknown option \`${key}\`.${suggestion ? ` Did you mean \`${suggestion}\`?` : ''} Known options: ${KNOWN_OPTIONS.join(', ')}.`);
    }
  }
  const { directories, directory } = options;
  if (directories !== undefined && directory !== undefined) {
    fail('pass either `directory` or `directories`, not both. Put every folder in `directories`, in precedence order.');
  }
  const packages = options.packages === undefined ? [] : checkPackages(options.packages);
  let listed: string[];
  if (directory !== undefined) {
    if (typeof directory !== 'string' || directory.trim() === '') {
      fail(`\`directory\` must be a non-empty string, got ${describe(directory)}. Example: ${USAGE}.`);
    }
    listed = [directory];
  } else if (directories !== undefined) {
    listed = checkStringList('directories', directories);
    if (listed.length === 0 && packages.length === 0) fail(`\`directories\` is empty: list at least one folder that holds skills, e.g. ${USAGE}.`);
  } else if (packages.length > 0) {
    listed = [];
  } else {
    fail(
      `no skills configured: pass the folders that hold your skills (\`directories\`) or the npm packages that ship them (\`packages\`), e.g. ${USAGE} or skillsMiddleware({ packages: ['@sisu-ai/skill-debug'] }). Skills are only loaded from places you name.`,
    );
  }
  const cwd = options.cwd ?? process.cwd();
  if (typeof cwd !== 'string' || cwd.trim() === '') fail(`\`cwd\` must be a non-empty string, got ${describe(cwd)}.`);
  for (const flag of ['strict', 'preload', 'resourceTool', 'findSkills'] as const) {
    if (options[flag] !== undefined && typeof options[flag] !== 'boolean') {
      fail(`\`${flag}\` must be true or false, got ${describe(options[flag])}.`);
    }
  }
  const fs = options.fs ?? nodeFileSystem;
  for (const method of ['readdir', 'readFile', 'stat', 'lstat', 'realpath', 'open'] as const) {
    if (typeof (fs as unknown as Record<string, unknown>)[method] !== 'function') {
      fail(`\`fs\` must implement ${method}(): pass an object shaped like node:fs/promises (or leave \`fs\` out).`);
    }
  }
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) {
    fail(`\`signal\` must be an AbortSignal, got ${describe(options.signal)}.`);
  }
  const watch = resolveWatch(options.watch, fs);
  const resolvedCwd = resolveDirectory(cwd, process.cwd());
  // The same folder listed twice is scanned once.
  const resolvedDirectories = [...new Set(listed.map((d) => resolveDirectory(d, resolvedCwd)))];
  return {
    directories: resolvedDirectories,
    packages,
    cwd: resolvedCwd,
    include: options.include === undefined ? [] : checkStringList('include', options.include),
    exclude: options.exclude === undefined ? [] : checkStringList('exclude', options.exclude),
    maxFileSize: checkSize('maxFileSize', options.maxFileSize, DEFAULTS.maxFileSize),
    maxSkillSize: checkSize('maxSkillSize', options.maxSkillSize, DEFAULTS.maxSkillSize),
    maxListedResources: checkSize('maxListedResources', options.maxListedResources, DEFAULTS.maxListedResources, true),
    maxInstructionChars: checkSize('maxInstructionChars', options.maxInstructionChars, DEFAULTS.maxInstructionChars),
    resourceTool: options.resourceTool ?? DEFAULTS.resourceTool,
    secretPatterns: options.secretPatterns === undefined ? [] : checkStringList('secretPatterns', options.secretPatterns),
    cacheTtl: checkSize('cacheTtl', options.cacheTtl, DEFAULTS.cacheTtl, true),
    strict: options.strict ?? DEFAULTS.strict,
    preload: options.preload ?? DEFAULTS.preload,
    catalogBudget: checkSize('catalogBudget', options.catalogBudget, DEFAULTS.catalogBudget, true),
    findSkills: options.findSkills,
    always: resolveAlways(options.always),
    autoActivate: resolveAutoActivate(options.autoActivate),
    watch,
    signal: options.signal,
    fs,
  };
}

function resolveWatch(value: SkillsOptions['watch'], fs: SkillsFileSystem): ResolvedOptions['watch'] {
  if (value === undefined || value === false) return undefined;
  let debounceMs: number = DEFAULTS.watchDebounceMs;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const { debounceMs: given, ...rest } = value;
    const unknownKey = Object.keys(rest)[0];
    if (unknownKey !== undefined) fail(`unknown \`watch.${unknownKey}\`: the only key is debounceMs, e.g. watch: { debounceMs: 200 }.`);
    debounceMs = checkSize('watch.debounceMs', given, debounceMs, true);
  } else if (value !== true) {
    fail(`\`watch\` must be true, false or { debounceMs }, got ${describe(value)}.`);
  }
  if (typeof fs.watch !== 'function') fail('`watch` needs an `fs` with a watch() method (node:fs/promises has one): leave `fs` out, or add watch().');
  return { debounceMs };
}

/** `*` matches any run of characters, `?` one character; the rest is literal. Case-sensitive. */
export function matchesPattern(value: string, pattern: string): boolean {
  let source = '^';
  for (const ch of pattern) {
    if (ch === '*') source += '.*';
    else if (ch === '?') source += '.';
    else source += ch.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`${source}$`).test(value);
}

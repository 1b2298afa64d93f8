/**
 * Options: their type (with every default), the one place they are checked,
 * and their resolved form. Mistakes throw a SkillsConfigError at construction
 * that names the option and says how to fix it. Adding an option means
 * editing this module (type, key list, check) and src/config/defaults.ts.
 */
import { homedir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { DEFAULTS } from './defaults.js';
import { SkillsConfigError, type ConfigProblem } from './errors.js';
import { nodeFileSystem, type SkillsFileSystem } from '../base/fs.js';
import { packageNameProblem } from './packages.js';
import { editDistance } from '../base/text.js';
import { checkEmbeddings, type EmbeddingsOptions, type ResolvedEmbeddings } from './embeddings.js';
import type { HostEmbeddings } from '../base/host.js';
import { checkS3Index, checkS3Place, checkStorage, type BucketSettings, type StorageOptions } from './storage-options.js';
import { isS3Url } from '../base/s3-url.js';

export { DEFAULTS } from './defaults.js';

export interface AutoActivateOptions {
  /**
   * Lowest normalised score (0..1) that pre-activates a skill.
   * @default 0.3
   */
  threshold?: number;
  /**
   * Most skills pre-activated by ranking per request.
   * @default 1
   */
  maxSkills?: number;
}

export interface KeepInViewOptions {
  /**
   * Most characters put back per request, all skills together; the most
   * recently activated skills come first, and what does not fit is logged.
   * @default 50000
   */
  maxChars?: number;
  /**
   * Most characters put back per skill; a longer skill is cut at a line
   * boundary with the `read_skill_resource` call that reads the rest.
   * @default 20000
   */
  maxSkillChars?: number;
}

/**
 * A per-request hook option as config sees it: any function, checked to be
 * one and passed on as given. `SkillsOptions` (run/options.ts) gives each
 * hook its type and its documentation, beside the run that calls it.
 */
export type Hook = (...args: never) => unknown;

/**
 * Every option of `skillsMiddleware` and `discoverSkills`, the per-request
 * hooks typed as any function (`SkillsOptions`, run/options.ts, types them).
 */
export interface ConfigOptions extends StorageOptions {
  /**
   * Folders to scan for skills, in precedence order (the first one wins a name
   * clash). `directories` or `packages` (or both) must be given.
   * @default []
   */
  directories?: readonly string[];
  /** Shorthand for a single entry in `directories`. */
  directory?: string;
  /**
   * npm packages that ship skills, e.g. `['@sisu-ai/skill-code-review']`,
   * resolved the way Node resolves them from `cwd` (npm, pnpm, yarn,
   * workspaces). A package whose root holds SKILL.md is one skill; one with a
   * `skills/` folder gives each skill in it. Searched after `directories`.
   * @default []
   */
  packages?: readonly string[];
  /**
   * Base for relative directories, and where packages are resolved from.
   * @default process.cwd()
   */
  cwd?: string;
  /**
   * Only load skills whose name or folder name matches one of these (`*` and `?` wildcards).
   * @default [] (all)
   */
  include?: readonly string[];
  /**
   * Never load skills whose name or folder name matches one of these.
   * @default []
   */
  exclude?: readonly string[];
  /**
   * Largest file `read_skill_resource` returns, in bytes; larger files are listed as too large to read.
   * @default 102400 (100 KB)
   */
  maxFileSize?: number;
  /**
   * Most bytes `read_skill_resource` returns per skill per run.
   * @default 512000 (500 KB)
   */
  maxSkillSize?: number;
  /**
   * Files named in a `use_skill` answer; the rest are counted by folder.
   * @default 200
   */
  maxListedResources?: number;
  /**
   * Most characters of a skill's instructions a `use_skill` answer carries. A
   * longer body is cut at a line boundary and the answer says how to read the
   * rest (SKILL.md through `read_skill_resource`, in windows). 3 of the 1,129
   * real skills we test against are longer.
   * @default 50000
   */
  maxInstructionChars?: number;
  /**
   * Register `read_skill_resource`.
   * @default true
   */
  resourceTool?: boolean;
  /**
   * More secret file-name patterns (`*`, `?`, case-insensitive, matched on every path segment), added to the defaults.
   * @default []
   */
  secretPatterns?: readonly string[];
  /**
   * How long a discovery (and a file read, while its mtime and size are unchanged) is reused, in ms. `0` rescans on every request.
   * @default 300000 (5 minutes)
   */
  cacheTtl?: number;
  /**
   * Turn agentskills.io naming and length rules from warnings into errors, and warn about
   * frontmatter outside the specification (fields it does not define, non-string `metadata`
   * values, `allowed-tools` as a list; see docs/frontmatter-fields.md).
   * @default false
   */
  strict?: boolean;
  /**
   * Read every skill's instructions and resource listing at discovery instead of on first activation.
   * @default false
   */
  preload?: boolean;
  /**
   * A prebuilt index (`sisu-skills index ... -o skills.index.json`): start-up
   * reads this one file instead of scanning. A missing, unreadable or
   * incompatible index falls back to scanning with one warning. Relative to `cwd`.
   * `s3://bucket/key`: an index published to a bucket (`sisu-skills index -o s3://...`),
   * read with one GET and checked every `refresh` ms with one conditional GET.
   * @default undefined (scan)
   */
  index?: string;
  /**
   * Most characters the catalog section may take in the system prompt.
   * @default 8000
   */
  catalogBudget?: number;
  /**
   * Rank skills (ranked catalog, `find_skills`, `autoActivate`) by their instructions' words too, not
   * only by name, tags and description. The instructions are read in the background, starting a
   * second after the first request that uses an index; until they are in, ranking reads metadata only.
   * `false` never reads a SKILL.md before its skill is activated.
   * @default true
   */
  rankInstructions?: boolean;
  /**
   * Find skills by meaning too, with the app's embedder: SISU's `EmbeddingsProvider`
   * (`openAIEmbeddings()`, `ollamaEmbeddings({ model })`), or `{ provider, model, queryTimeoutMs }`.
   * Skills are embedded in the background after the first request (or read from a prebuilt index
   * built with `--embeddings`); each new user message is embedded once, waited for at most
   * `queryTimeoutMs`. The ranked catalog, `find_skills` and name suggestions then fuse words and
   * meaning; `autoActivate` stays on words. docs/embeddings.md.
   * @default undefined (words only)
   */
  embeddings?: HostEmbeddings | EmbeddingsOptions;
  /**
   * Register `find_skills`: true always, false never.
   * @default undefined (only when the catalog does not fit `catalogBudget`)
   */
  findSkills?: boolean;
  /**
   * Skills every run starts with, activated before the model runs.
   * @default []
   */
  always?: readonly string[];
  /**
   * Pre-activate the skills that best match the latest user message. `true` means `{ threshold: 0.3, maxSkills: 1 }`.
   * @default false
   */
  autoActivate?: boolean | AutoActivateOptions;
  /** Which skills exist for a request: `SkillsOptions['visible']`. */
  visible?: Hook;
  /** Asked before a skill's instructions enter the conversation: `SkillsOptions['approve']`. */
  approve?: Hook;
  /** Called with every activation event: `SkillsOptions['onEvent']`. */
  onEvent?: Hook;
  /**
   * Keep active skills in view: before each model call, an active skill whose
   * instructions are no longer in the messages the model will be sent (SISU's
   * `conversationBuffer` trimmed them, or a resumed conversation was cut) is
   * put back the way `@` mentions inject it, within a budget. `true` means
   * `{ maxChars: 50000, maxSkillChars: 20000 }`; `false` turns it off.
   * @default true
   */
  keepInView?: boolean | KeepInViewOptions;
  /**
   * Watch the directories and rebuild the index when skills change. `true` means `{ debounceMs: 200 }`.
   * @default false
   */
  watch?: boolean | { debounceMs?: number };
  /**
   * Aborting it stops the watcher (as `close()` does).
   * @default undefined
   */
  signal?: AbortSignal;
  /**
   * The filesystem to read.
   * @default node:fs/promises (nodeFileSystem)
   */
  fs?: SkillsFileSystem;
}

// The defaults fit the options they are for: a default of the wrong type fails to compile here.
DEFAULTS satisfies Pick<Required<ConfigOptions>, Exclude<keyof typeof DEFAULTS, 'autoActivate' | 'watch' | 'keepInView'>> & {
  autoActivate: Required<AutoActivateOptions>;
  keepInView: Required<KeepInViewOptions>;
  watch: { debounceMs: number };
};

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
  /** Absolute path (or `s3://bucket/key`) of the prebuilt index; undefined: scan. */
  index: string | undefined;
  catalogBudget: number;
  /** undefined: only when over budget. */
  findSkills: boolean | undefined;
  rankInstructions: boolean;
  /** undefined: words only. */
  embeddings: ResolvedEmbeddings | undefined;
  always: string[];
  autoActivate: Required<AutoActivateOptions> | undefined;
  /** undefined: off. */
  keepInView: Required<KeepInViewOptions> | undefined;
  /** undefined: not watching. */
  watch: { debounceMs: number } | undefined;
  signal: AbortSignal | undefined;
  /** The `fs` option's filesystem (source/storage.ts routes `s3://` paths away from it, when there are any). */
  fs: SkillsFileSystem;
  /** ms between checks of the s3:// sources; 0: never. */
  refresh: number;
  /** Longest a request waits on a bucket's first listing, in ms. */
  storageWait: number;
  /** The s3:// sources, as data; undefined without any. */
  buckets: BucketSettings | undefined;
}

/** Every option name, checked against the type both ways: a missing or extra key fails to compile. */
const OPTION_KEYS: { readonly [K in keyof Required<ConfigOptions>]: true } = {
  directories: true,
  directory: true,
  packages: true,
  cwd: true,
  include: true,
  exclude: true,
  maxFileSize: true,
  maxSkillSize: true,
  maxListedResources: true,
  maxInstructionChars: true,
  resourceTool: true,
  secretPatterns: true,
  cacheTtl: true,
  strict: true,
  preload: true,
  index: true,
  catalogBudget: true,
  findSkills: true,
  rankInstructions: true,
  embeddings: true,
  always: true,
  autoActivate: true,
  keepInView: true,
  watch: true,
  visible: true,
  approve: true,
  onEvent: true,
  signal: true,
  fs: true,
  s3: true,
  refresh: true,
  storageWait: true,
};
const KNOWN_OPTIONS = Object.keys(OPTION_KEYS) as Array<keyof ConfigOptions>;

const USAGE = "skillsMiddleware({ directories: ['./skills'] })";

function fail(option: string | undefined, problem: string, hint?: string): never {
  const fields: ConfigProblem = { problem };
  if (option !== undefined) fields.option = option;
  if (hint !== undefined) fields.hint = hint;
  throw new SkillsConfigError(fields);
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
  if (!Array.isArray(value)) fail(name, `must be an array of strings, got ${describe(value)}.`, `Example: ${name}: ['code-review'].`);
  value.forEach((item: unknown, i) => {
    if (typeof item !== 'string' || item.trim() === '') fail(`${name}[${i}]`, `must be a non-empty string, got ${describe(item)}.`);
  });
  return [...(value as string[])];
}

function checkPackages(value: unknown): string[] {
  const names = checkStringList('packages', value);
  names.forEach((name, i) => {
    const problem = packageNameProblem(name);
    if (problem)
      fail(
        `packages[${i}]`,
        `(${JSON.stringify(name)}) is not a package name: ${problem}.`,
        "Example: packages: ['@sisu-ai/skill-debug'].",
      );
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
    fail(name, `must be ${range} (or Infinity), got ${describe(value)}.`, `Default: ${fallback}.`);
  }
  return value;
}

function checkFlag(name: 'strict' | 'preload' | 'resourceTool' | 'findSkills' | 'rankInstructions', value: unknown): boolean | undefined {
  if (value !== undefined && typeof value !== 'boolean') fail(name, `must be true or false, got ${describe(value)}.`);
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

function checkKeys(options: object): void {
  for (const key of Object.keys(options)) {
    if (!Object.hasOwn(OPTION_KEYS, key)) {
      const suggestion = closest(key);
      fail(
        undefined,
        `unknown option \`${key}\`.${suggestion ? ` Did you mean \`${suggestion}\`?` : ''}`,
        `Known options: ${KNOWN_OPTIONS.join(', ')}.`,
      );
    }
  }
}

/** The folders to scan, as given (one of `directory` / `directories`), or [] when packages alone are configured. */
function checkPlaces(options: ConfigOptions, packages: readonly string[]): string[] {
  const { directories, directory } = options;
  if (directories !== undefined && directory !== undefined) {
    fail(undefined, 'pass either `directory` or `directories`, not both.', 'Put every folder in `directories`, in precedence order.');
  }
  if (directory !== undefined) {
    if (typeof directory !== 'string' || directory.trim() === '')
      fail('directory', `must be a non-empty string, got ${describe(directory)}.`, `Example: ${USAGE}.`);
    return [directory];
  }
  if (directories !== undefined) {
    const listed = checkStringList('directories', directories);
    if (listed.length === 0 && packages.length === 0)
      fail('directories', 'is empty: list at least one folder that holds skills,', `e.g. ${USAGE}.`);
    return listed;
  }
  if (packages.length > 0) return [];
  return fail(
    undefined,
    'no skills configured: pass the folders that hold your skills (`directories`) or the npm packages that ship them (`packages`),',
    `e.g. ${USAGE} or skillsMiddleware({ packages: ['@sisu-ai/skill-debug'] }). Skills are only loaded from places you name.`,
  );
}

function checkFs(value: unknown): SkillsFileSystem {
  const fs = value ?? nodeFileSystem;
  for (const method of ['readdir', 'readFile', 'stat', 'lstat', 'realpath', 'open'] as const) {
    if (typeof (fs as Record<string, unknown>)[method] !== 'function') {
      fail('fs', `must implement ${method}():`, 'pass an object shaped like node:fs/promises (or leave `fs` out).');
    }
  }
  return fs as SkillsFileSystem;
}

/** Check options once and fill in defaults. Throws SkillsConfigError on any mistake. */
export function resolveOptions(options: ConfigOptions | undefined): ResolvedOptions {
  if (options === undefined || options === null || typeof options !== 'object' || Array.isArray(options)) {
    fail(undefined, 'options are required: pass the folders that hold your skills,', `e.g. ${USAGE}.`);
  }
  checkKeys(options);
  const packages = options.packages === undefined ? [] : checkPackages(options.packages);
  const listed = checkPlaces(options, packages);
  const cwd = options.cwd ?? process.cwd();
  if (typeof cwd !== 'string' || cwd.trim() === '') fail('cwd', `must be a non-empty string, got ${describe(cwd)}.`);
  const disk = checkFs(options.fs);
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal))
    fail('signal', `must be an AbortSignal, got ${describe(options.signal)}.`);
  const resolvedCwd = resolveDirectory(cwd, process.cwd());
  const places = listed.flatMap((d, i) => (isS3Url(d.trim()) ? [checkS3Place(`directories[${i}]`, d)] : []));
  const index = checkIndex(options, resolvedCwd);
  const storage = checkStorage(options, places, index !== undefined && isS3Url(index) ? index : undefined);
  const fs = disk;
  const checked = {
    // The same folder listed twice is scanned once; an s3:// place is kept as its root URL.
    directories: [
      ...new Set(listed.map((d) => (isS3Url(d.trim()) ? checkS3Place('directories', d).root : resolveDirectory(d, resolvedCwd)))),
    ],
    packages,
    cwd: resolvedCwd,
    include: options.include === undefined ? [] : checkStringList('include', options.include),
    exclude: options.exclude === undefined ? [] : checkStringList('exclude', options.exclude),
    maxFileSize: checkSize('maxFileSize', options.maxFileSize, DEFAULTS.maxFileSize),
    maxSkillSize: checkSize('maxSkillSize', options.maxSkillSize, DEFAULTS.maxSkillSize),
    maxListedResources: checkSize('maxListedResources', options.maxListedResources, DEFAULTS.maxListedResources, true),
    maxInstructionChars: checkSize('maxInstructionChars', options.maxInstructionChars, DEFAULTS.maxInstructionChars),
    resourceTool: checkFlag('resourceTool', options.resourceTool) ?? DEFAULTS.resourceTool,
    secretPatterns: options.secretPatterns === undefined ? [] : checkStringList('secretPatterns', options.secretPatterns),
    cacheTtl: checkSize('cacheTtl', options.cacheTtl, DEFAULTS.cacheTtl, true),
    strict: checkFlag('strict', options.strict) ?? DEFAULTS.strict,
    preload: checkFlag('preload', options.preload) ?? DEFAULTS.preload,
    index,
    catalogBudget: checkSize('catalogBudget', options.catalogBudget, DEFAULTS.catalogBudget, true),
    findSkills: checkFlag('findSkills', options.findSkills),
    rankInstructions: checkFlag('rankInstructions', options.rankInstructions) ?? DEFAULTS.rankInstructions,
    embeddings: checkEmbeddings(options.embeddings),
    always: checkAlways(options.always),
    autoActivate: checkAutoActivate(options.autoActivate),
    keepInView: checkKeepInView(options.keepInView),
    watch: checkWatch(options.watch, fs),
  };
  // Checked in their place among the others (the first mistake is the one thrown); the run takes them as given.
  checkFunction('visible', options.visible, '(skill, ctx) => boolean');
  checkFunction('approve', options.approve, '({ skill, route, arguments }, ctx) => boolean | { approved, reason }');
  checkFunction('onEvent', options.onEvent, '(event, ctx) => void');
  return {
    ...checked,
    signal: options.signal,
    fs,
    refresh: storage.refresh,
    storageWait: storage.storageWait,
    buckets: storage.buckets,
  };
}

/** A callback option: absent, or a function (sync or async). */
function checkFunction(name: string, value: unknown, shape: string): void {
  if (value !== undefined && typeof value !== 'function')
    fail(name, `must be a function ${shape}, got ${describe(value)}.`, 'Or leave it out.');
}

function checkIndex(options: ConfigOptions, cwd: string): string | undefined {
  const { index } = options;
  if (index === undefined) return undefined;
  if (typeof index !== 'string' || index.trim() === '')
    fail('index', `must be the path of a file \`sisu-skills index\` wrote, got ${describe(index)}.`);
  if (options.preload === true)
    fail('index', 'cannot be used with `preload: true`:', 'the index holds no instructions to preload. Use one or the other.');
  return isS3Url(index.trim()) ? checkS3Index(index) : resolveDirectory(index, cwd);
}

/** `always`: a list of skill names (checked for shape only; names are matched per request). */
function checkAlways(value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((name) => typeof name !== 'string' || name.trim() === '')) {
    fail('always', 'must be a list of skill names,', "e.g. always: ['code-review'].");
  }
  return [...new Set((value as string[]).map((name) => name.trim()))];
}

/** `autoActivate` as given (undefined, false, true or an object) to its resolved form, or undefined when it is off. */
function checkAutoActivate(value: unknown): Required<AutoActivateOptions> | undefined {
  const defaults = DEFAULTS.autoActivate;
  if (value === undefined || value === false) return undefined;
  if (value === true) return { ...defaults };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    fail(
      'autoActivate',
      'must be true, false or { threshold, maxSkills },',
      `e.g. autoActivate: { threshold: ${defaults.threshold}, maxSkills: ${defaults.maxSkills} }.`,
    );
  }
  const { threshold = defaults.threshold, maxSkills = defaults.maxSkills, ...rest } = value as Record<string, unknown>;
  const unknownKey = Object.keys(rest)[0];
  if (unknownKey !== undefined) fail(`autoActivate.${unknownKey}`, 'is not an option: the known keys are threshold and maxSkills.');
  if (typeof threshold !== 'number' || !(threshold >= 0 && threshold <= 1)) {
    fail(
      'autoActivate.threshold',
      `must be a number from 0 to 1 (scores are normalised), got ${String(threshold)}.`,
      `Default: ${defaults.threshold}.`,
    );
  }
  if (typeof maxSkills !== 'number' || !Number.isInteger(maxSkills) || maxSkills < 1) {
    fail('autoActivate.maxSkills', `must be a whole number of 1 or more, got ${String(maxSkills)}.`, `Default: ${defaults.maxSkills}.`);
  }
  return { threshold, maxSkills };
}

/** `keepInView` as given (undefined, true, false or an object) to its resolved form, or undefined when it is off. */
function checkKeepInView(value: unknown): Required<KeepInViewOptions> | undefined {
  const defaults = DEFAULTS.keepInView;
  if (value === false) return undefined;
  if (value === undefined || value === true) return { ...defaults };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    fail(
      'keepInView',
      'must be true, false or { maxChars, maxSkillChars },',
      `e.g. keepInView: { maxChars: ${defaults.maxChars}, maxSkillChars: ${defaults.maxSkillChars} }.`,
    );
  }
  const { maxChars, maxSkillChars, ...rest } = value as Record<string, unknown>;
  const unknownKey = Object.keys(rest)[0];
  if (unknownKey !== undefined) fail(`keepInView.${unknownKey}`, 'is not an option: the known keys are maxChars and maxSkillChars.');
  return {
    maxChars: checkSize('keepInView.maxChars', maxChars, defaults.maxChars),
    maxSkillChars: checkSize('keepInView.maxSkillChars', maxSkillChars, defaults.maxSkillChars),
  };
}

function checkWatch(value: unknown, fs: SkillsFileSystem): ResolvedOptions['watch'] {
  if (value === undefined || value === false) return undefined;
  let debounceMs: number = DEFAULTS.watch.debounceMs;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const { debounceMs: given, ...rest } = value as Record<string, unknown>;
    const unknownKey = Object.keys(rest)[0];
    if (unknownKey !== undefined)
      fail(`watch.${unknownKey}`, 'is not an option: the only key is debounceMs,', 'e.g. watch: { debounceMs: 200 }.');
    debounceMs = checkSize('watch.debounceMs', given, debounceMs, true);
    // A timer of Infinity fires at once: a debounce must be finite.
    if (debounceMs === Infinity)
      fail('watch.debounceMs', 'must be a finite number of milliseconds, got Infinity.', `Default: ${DEFAULTS.watch.debounceMs}.`);
  } else if (value !== true) {
    fail('watch', `must be true, false or { debounceMs }, got ${describe(value)}.`);
  }
  const canWatch = typeof fs.watch === 'function' || typeof fs.watchFolder === 'function';
  if (!canWatch)
    fail('watch', 'needs an `fs` with a watch() or watchFolder() method (node:fs/promises has watch):', 'leave `fs` out, or add one.');
  return { debounceMs };
}

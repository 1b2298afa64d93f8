/**
 * Options: their type (with every default), the list of their names, and
 * their resolved form, plain frozen data. Checking them is resolve.ts's job
 * (each check in checks.ts); mistakes throw a SkillsConfigError at
 * construction that names the option and says how to fix it. Adding an
 * option means editing this module (type, key list), a check, and
 * src/config/defaults.ts.
 */
import { DEFAULTS } from './defaults.js';
import type { SkillsFileSystem } from '../base/fs.js';
import type { EmbeddingsOptions, ResolvedEmbeddings } from './embeddings.js';
import type { ResolvedTrust, TrustOptions } from './trust-options.js';
import type { EmbeddingsProviderLike } from '../base/host.js';
import type { BucketSettings, StorageOptions } from './storage-options.js';

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

export interface LocalCopiesOptions {
  /**
   * The folder the copies go in, shared by every process that names it
   * (relative to `cwd`). Made with mode 700 when missing.
   * @default a new folder of this process in the OS temp folder (mode 700), removed by `close()`
   */
  root?: string;
  /**
   * Most bytes of copies this middleware keeps; past it, the versions used
   * least recently are removed.
   * @default 67108864 (64 MB)
   */
  maxBytes?: number;
}

/** `localCopies` checked: undefined when off. `root` undefined: the default folder. */
export interface ResolvedLocalCopies {
  readonly root: string | undefined;
  readonly maxBytes: number;
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
   * A prebuilt index (`sisu-skills index ... -o skills.index`): start-up
   * reads this one file instead of scanning. A missing, unreadable or
   * incompatible index falls back to scanning with one warning. Relative to `cwd`.
   * `s3://bucket/key` or `az://container/key`: an index published to storage
   * (`sisu-skills index -o s3://...`), read with one GET and checked every
   * `refresh` ms with one conditional GET.
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
  embeddings?: EmbeddingsProviderLike | EmbeddingsOptions;
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
   * Where the files of skills in a bucket are copied when a skill is activated, so that its scripts can
   * run and `${CLAUDE_SKILL_DIR}` names a folder on this machine (docs/running-scripts.md). A folder
   * (string) is `{ root }`. `false`: no copies; a bucket skill's folder stays its `s3://` URL, and
   * its scripts cannot run.
   * @default true: a new folder of this process in the OS temp folder (mode 700), 64 MB
   */
  localCopies?: boolean | string | LocalCopiesOptions;
  /**
   * Watch the directories and rebuild the index when skills change. `true` means `{ debounceMs: 200 }`.
   * @default false
   */
  watch?: boolean | { debounceMs?: number };
  /**
   * Serve only what a place's publisher signed: each place needs a `skills.manifest.json`
   * (`sisu-skills sign`) signed by `threshold` of these public keys; `mode: 'report'` serves
   * everything and reports what would be refused. docs/signing.md.
   * @default undefined (nothing is verified)
   */
  trust?: TrustOptions;
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
DEFAULTS satisfies Pick<
  Required<ConfigOptions>,
  Exclude<keyof typeof DEFAULTS, 'autoActivate' | 'watch' | 'keepInView' | 'localCopies'>
> & {
  autoActivate: Required<AutoActivateOptions>;
  keepInView: Required<KeepInViewOptions>;
  watch: { debounceMs: number };
  localCopies: Required<Pick<LocalCopiesOptions, 'maxBytes'>>;
};

/** The options checked, with defaults filled in: plain data, frozen (resolve.ts). */
export interface ResolvedOptions {
  readonly directories: readonly string[];
  readonly packages: readonly string[];
  /** Where packages are resolved from. */
  readonly cwd: string;
  readonly include: readonly string[];
  readonly exclude: readonly string[];
  readonly maxFileSize: number;
  readonly maxSkillSize: number;
  readonly maxListedResources: number;
  readonly maxInstructionChars: number;
  readonly resourceTool: boolean;
  readonly secretPatterns: readonly string[];
  readonly cacheTtl: number;
  readonly strict: boolean;
  readonly preload: boolean;
  /** Absolute path (or `s3://bucket/key`, `az://container/key`) of the prebuilt index; undefined: scan. */
  readonly index: string | undefined;
  readonly catalogBudget: number;
  /** undefined: only when over budget. */
  readonly findSkills: boolean | undefined;
  readonly rankInstructions: boolean;
  /** undefined: words only. */
  readonly embeddings: ResolvedEmbeddings | undefined;
  readonly always: readonly string[];
  readonly autoActivate: Required<AutoActivateOptions> | undefined;
  /** undefined: off. */
  readonly keepInView: Required<KeepInViewOptions> | undefined;
  /** undefined: not watching. */
  readonly watch: { debounceMs: number } | undefined;
  /** Where bucket skills are copied; undefined: no copies. */
  readonly localCopies: ResolvedLocalCopies | undefined;
  readonly signal: AbortSignal | undefined;
  /** The `fs` option's filesystem (source/storage.ts routes `s3://` paths away from it, when there are any). */
  readonly fs: SkillsFileSystem;
  /** ms between checks of the s3:// and az:// sources; 0: never. */
  readonly refresh: number;
  /** Longest a request waits on a bucket's first listing, in ms. */
  readonly storageWait: number;
  /** The s3:// and az:// sources, as data; undefined without any. */
  readonly buckets: BucketSettings | undefined;
  /** undefined: nothing is verified. */
  readonly trust: ResolvedTrust | undefined;
}

/** Every option name, checked against the type both ways: a missing or extra key fails to compile. */
export const OPTION_KEYS: { readonly [K in keyof Required<ConfigOptions>]: true } = {
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
  localCopies: true,
  watch: true,
  visible: true,
  approve: true,
  onEvent: true,
  signal: true,
  fs: true,
  s3: true,
  azure: true,
  refresh: true,
  storageWait: true,
  trust: true,
};
export const KNOWN_OPTIONS = Object.keys(OPTION_KEYS) as Array<keyof ConfigOptions>;

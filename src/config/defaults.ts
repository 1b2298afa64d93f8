/**
 * Every default in one place. A leaf module (no imports), so each layer that
 * needs a default reads it from here instead of keeping its own literal.
 */

/** Defaults of `skillsMiddleware` / `discoverSkills` options (checked against the options type in options.ts). */
export const DEFAULTS = {
  maxFileSize: 100 * 1024,
  maxSkillSize: 500 * 1024,
  maxListedResources: 200,
  maxInstructionChars: 50_000,
  resourceTool: true,
  cacheTtl: 5 * 60 * 1000,
  strict: false,
  preload: false,
  /** About 1% of a 200k-token context, as other agent hosts budget their skill lists. */
  catalogBudget: 8000,
  /** What `autoActivate: true` means; 0.3 measured by scripts/auto-activate-threshold.mjs (docs/activation.md, Activation strategies). */
  autoActivate: { threshold: 0.3, maxSkills: 1 },
  /**
   * What `keepInView: true` (the default) means. About 5k tokens per skill (at
   * ~4 characters a token, Claude Code's figure; 96.5% of the 1,129 real
   * SKILL.md files we test against are smaller) and 50,000 characters in all
   * (half Claude Code's 25k tokens: SISU's buffer windows are short, and a
   * put-back skill stays in view for a few turns before it is needed again).
   */
  keepInView: { maxChars: 50_000, maxSkillChars: 20_000 },
  /** Rank by what the instructions say too, once they are indexed after the first request (docs/catalog-and-ranking.md). */
  rankInstructions: true,
  /**
   * How often each process checks its s3:// sources, in ms. A minute: a change reaches every process
   * within it, and a listing at 2,000 skills costs 8 requests a check (docs/fleet.md, Request costs).
   */
  refresh: 60_000,
  /**
   * Longest the first request waits on storage (listing and SKILL.md reads, or the published index), in ms:
   * 3 s covers a first request from a listing over 2,000 skills several times over (docs/fleet.md, How long a request waits).
   */
  storageWait: 3_000,
  /** What `watch: true` means. */
  watch: { debounceMs: 200 },
  /**
   * What `localCopies: true` (the default) means: a new folder of this process in the OS temp folder, and 64 MB of
   * copies. The 1,129 real skills we test against take 35 MB copied whole within maxFileSize (p99 309 KB a skill),
   * so 64 MB holds all of them at once; a conversation activates a handful (docs/running-scripts.md).
   */
  localCopies: { maxBytes: 64 * 1024 * 1024 },
} as const;

/** Secret file names always kept out of listings and reads; the `secretPatterns` option adds to these, it cannot remove them. */
export const DEFAULT_SECRET_PATTERNS: readonly string[] = Object.freeze(['.env*', '*.pem', '*.key', 'id_rsa*', 'credentials*', 'secrets*']);

/** Defaults of `watchSkillDirectories`' options. */
export const WATCH_DEFAULTS = {
  /** The middleware's `watch: true` and a direct caller share this one. */
  debounceMs: DEFAULTS.watch.debounceMs,
  /** Wait before a folder that could not be watched is tried again. */
  retryMs: 1000,
} as const;

/** Defaults of `sisu-skills eval`'s options, shared by its argument parser and its help. */
export const EVAL_DEFAULTS = {
  /** Runs per case: the agentskills.io guide's 3. */
  runs: 3,
  /** Requests in flight: enough to hide a model's latency, few enough for a local model or a rate limit. */
  concurrency: 4,
  /** Longest one run may take: a local model on a CPU can take a minute for a first answer. */
  timeoutSeconds: 120,
  /** The seed of --split. */
  seed: 1,
} as const;

/** Defaults of the tools' own arguments, which the model may leave out. */
export const TOOL_DEFAULTS = {
  /** Lines `read_skill_resource` returns when the model gives no `limit`. */
  readLines: 400,
  /** Skills `find_skills` returns when the model gives no `limit`, and the most it returns. */
  findLimit: 5,
  maxFindLimit: 20,
} as const;

/** Timing of background work, not an option: what README states. */
export const BACKGROUND_DEFAULTS = {
  /** Milliseconds after an index's first request before its instructions are read for ranking (`rankInstructions`). */
  instructionsIndexDelayMs: 1000,
} as const;

/** Defaults of the `embeddings` option's settings (docs/embeddings.md says how each was chosen). */
export const EMBEDDINGS_DEFAULTS = {
  /**
   * A request waits at most this long for its message's vector, then ranks by words
   * (loopback p95 was 20-82 ms under load: docs/embeddings.md, The deadline).
   */
  queryTimeoutMs: 400,
  /** A meaning place's weight in the fusion, next to a words place's 1 (src/meaning/fusion.ts says how it was measured). */
  meaningWeight: 0.05,
  /** Skills per embedding call while the library is embedded. */
  batchSize: 64,
  /** Embedding calls in flight at once while the library is embedded. */
  concurrency: 2,
  /** Further tries of a failed batch. */
  retries: 3,
  /** Wait before the first retry, doubled for each next one. */
  backoffMs: 500,
} as const;

/** Defaults of `sisu-skills sign` (docs/signing.md, Expiry, says why). */
export const SIGN_DEFAULTS = {
  /**
   * How long a signed manifest stays valid. 30 days bounds how long a frozen (replayed) manifest is believed, and
   * a CI job that signs on each sync and on a weekly schedule renews it with three weeks to spare; a package, whose
   * files cannot change once installed, is signed with a longer --expires.
   */
  expires: '30d',
  /** The longest --expires taken: ten years. */
  maxExpiresDays: 3650,
} as const;

/** Defaults of the `trust` option's settings (docs/signing.md). */
export const TRUST_DEFAULTS = {
  /** One trusted signature a manifest: a second key is for rotation unless you ask for more. */
  threshold: 1,
  /** Once `trust` is set, nothing unverified reaches the model. */
  mode: 'enforce',
} as const;

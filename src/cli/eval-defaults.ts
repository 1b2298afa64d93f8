/** The defaults of `sisu-skills eval`'s options, shared by its argument parser and its help. A leaf. */

/** Runs per case: the agentskills.io guide's 3. */
export const DEFAULT_EVAL_RUNS = 3;
/** Requests in flight: enough to hide a model's latency, few enough for a local model or a rate limit. */
export const DEFAULT_EVAL_CONCURRENCY = 4;
/** Longest one run may take: a local model on a CPU can take a minute for a first answer. */
export const DEFAULT_EVAL_TIMEOUT_SECONDS = 120;
/** The seed of --split. */
export const DEFAULT_EVAL_SEED = 1;

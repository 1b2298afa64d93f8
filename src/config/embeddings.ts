/**
 * The `embeddings` option: SISU's `EmbeddingsProvider` as it is, or with
 * settings. Checked once at construction; every mistake says how to fix it.
 */
import type { EmbeddingsProviderLike } from '../base/host.js';
import { EMBEDDINGS_DEFAULTS } from './defaults.js';
import { describeValue, failOption } from './errors.js';

export interface EmbeddingsOptions {
  /** SISU's `EmbeddingsProvider`: `openAIEmbeddings()`, `ollamaEmbeddings({ model })`, `createEmbeddingsClient(...)`. */
  provider: EmbeddingsProviderLike;
  /**
   * The model, passed to every `embed` call and recorded in a prebuilt index
   * (an index made with another model is embedded again in the background).
   * @default undefined (the provider's own model, recorded as "default")
   */
  model?: string;
  /**
   * Longest a request waits for its message's vector, in milliseconds; then it
   * ranks by words (the call goes on, and a rerun of the message uses it).
   * @default 400
   */
  queryTimeoutMs?: number;
  /**
   * What a skill's place in the meaning order counts next to its place in the words' order, in the
   * reciprocal-rank fusion (1: as much). The default keeps the words' best matches in front and lets
   * meaning fill the places words leave empty; raise it when `sisu-skills eval --offline --embeddings`
   * shows your model finds more (docs/embeddings.md, Fusion).
   * @default 0.05
   */
  meaningWeight?: number;
  /**
   * Skills per embedding call.
   * @default 64
   */
  batchSize?: number;
  /**
   * Embedding calls in flight at once while the skills are embedded.
   * @default 2
   */
  concurrency?: number;
  /**
   * Further tries of a failed batch of skills, after `retryDelayMs`, then twice that, and so on;
   * a batch that still fails leaves its skills to words until the next index.
   * @default 3
   */
  retries?: number;
  /**
   * Wait before the first retry, in milliseconds.
   * @default 500
   */
  retryDelayMs?: number;
}

export interface ResolvedEmbeddings {
  provider: EmbeddingsProviderLike;
  model: string | undefined;
  queryTimeoutMs: number;
  meaningWeight: number;
  batchSize: number;
  concurrency: number;
  retries: number;
  backoffMs: number;
}

const EXAMPLE = "embeddings: openAIEmbeddings({ model: 'text-embedding-3-small' })";

function isProvider(value: unknown): value is EmbeddingsProviderLike {
  return value !== null && typeof value === 'object' && typeof (value as { embed?: unknown }).embed === 'function';
}

function whole(name: string, value: unknown, fallback: number, max: number, min = 1): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    failOption(`embeddings.${name}`, `must be a whole number from ${min} to ${max}, got ${describeValue(value)}.`, `Default: ${fallback}.`);
  }
  return value;
}

function checkWeight(value: unknown): number {
  if (value === undefined) return EMBEDDINGS_DEFAULTS.meaningWeight;
  if (typeof value !== 'number' || !(value > 0 && value <= 10)) {
    failOption(
      'embeddings.meaningWeight',
      `must be a number above 0 and at most 10, got ${describeValue(value)}.`,
      `Default: ${EMBEDDINGS_DEFAULTS.meaningWeight}.`,
    );
  }
  return value;
}

/** The option checked, with defaults; undefined when it is left out. */
export function checkEmbeddings(value: unknown): ResolvedEmbeddings | undefined {
  if (value === undefined) return undefined;
  if (isProvider(value)) return { provider: value, model: undefined, ...EMBEDDINGS_DEFAULTS };
  if (value === null || typeof value !== 'object' || !isProvider((value as { provider?: unknown }).provider)) {
    failOption(
      'embeddings',
      'must be an embeddings provider (an object with embed(texts, { model, signal })) or { provider, model?, queryTimeoutMs? },',
      `e.g. ${EXAMPLE}.`,
    );
  }
  const options = value as EmbeddingsOptions;
  if (options.model !== undefined && (typeof options.model !== 'string' || options.model.trim() === '')) {
    failOption(
      'embeddings.model',
      'must be a non-empty string,',
      "e.g. 'text-embedding-3-small', or leave it out to use the provider's own.",
    );
  }
  return {
    provider: options.provider,
    model: options.model,
    queryTimeoutMs: whole('queryTimeoutMs', options.queryTimeoutMs, EMBEDDINGS_DEFAULTS.queryTimeoutMs, 60_000),
    meaningWeight: checkWeight(options.meaningWeight),
    batchSize: whole('batchSize', options.batchSize, EMBEDDINGS_DEFAULTS.batchSize, 2048),
    concurrency: whole('concurrency', options.concurrency, EMBEDDINGS_DEFAULTS.concurrency, 64),
    retries: whole('retries', options.retries, EMBEDDINGS_DEFAULTS.retries, 10, 0),
    backoffMs: whole('retryDelayMs', options.retryDelayMs, EMBEDDINGS_DEFAULTS.backoffMs, 60_000, 0),
  };
}

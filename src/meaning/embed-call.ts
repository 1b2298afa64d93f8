/**
 * One call to the app's embedder, checked: as many vectors as inputs, each of
 * one width, finite and not zero, returned at unit length. Any other answer
 * is an error that says what came back.
 */
import type { EmbeddingsProviderLike } from '../base/host.js';
import { unitVector } from './vectors.js';

export interface Embedder {
  provider: EmbeddingsProviderLike;
  /** Passed to `embed` as `model` when set; otherwise the provider's own model. */
  model: string | undefined;
}

export async function embedTexts(embedder: Embedder, texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
  const options: { model?: string; signal?: AbortSignal } = {};
  if (embedder.model !== undefined) options.model = embedder.model;
  if (signal) options.signal = signal;
  const raw: unknown = await embedder.provider.embed(texts, options);
  if (!Array.isArray(raw) || raw.length !== texts.length) {
    throw new Error(`the embedder returned ${Array.isArray(raw) ? raw.length : typeof raw} vectors for ${texts.length} texts`);
  }
  const vectors: Float32Array[] = [];
  for (const [i, values] of raw.entries()) {
    const unit = Array.isArray(values) ? unitVector(values as number[]) : undefined;
    if (!unit) throw new Error(`the embedder's vector ${i} is empty, zero or not a list of numbers`);
    if (unit.length !== (vectors[0] ?? unit).length)
      throw new Error(`the embedder's vectors differ in width (${vectors[0]?.length} and ${unit.length})`);
    vectors.push(unit);
  }
  return vectors;
}

/** Waits `ms`, or rejects at once when `signal` aborts. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new Error('stopped'));
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', stop);
      resolve();
    }, ms);
    const stop = (): void => {
      clearTimeout(timer);
      reject(new Error('stopped'));
    };
    signal?.addEventListener('abort', stop, { once: true });
  });
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

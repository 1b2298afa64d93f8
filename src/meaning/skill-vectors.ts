/**
 * The skills' vectors, one store per middleware, keyed by content
 * (skill-text.ts): an index rebuilt after an edit finds every unchanged
 * skill's vector here and embeds only the edited one. Embedding runs in the
 * background, in batches, a bounded number at once, each batch retried with
 * backoff; a batch that still fails leaves its skills ranked by words.
 */
import { createLimiter, type Limiter } from '../base/concurrency.js';
import { embedTexts, messageOf, pause, type Embedder } from './embed-call.js';
import { encodingFor, stored, dimensionsOf, bytesOf, type UnitVector } from './vectors.js';

export interface EmbeddingSettings extends Embedder {
  /** Texts per call. */
  batchSize: number;
  /** Calls in flight at once. */
  concurrency: number;
  /** Further tries of a failed batch, after backoffMs, 2 x backoffMs, ... */
  retries: number;
  backoffMs: number;
}

/** A text to embed and the key its vector is kept under. */
export interface KeyedText {
  key: string;
  text: string;
}

/** What one round of embedding did. */
export interface EmbeddingOutcome {
  /** Skills embedded now. */
  embedded: number;
  /** Skills whose vectors were held already (an index's, or an earlier round's). */
  held: number;
  /** Skills left to words: their batch failed after every retry (or embedding was stopped). */
  failed: number;
  /** Calls made, retries included. */
  calls: number;
  /** The last error, when a batch failed. */
  error?: string;
}

/** Vectors a prebuilt index holds, ready to seed a store. */
export interface SeedVectors {
  model: string;
  dimensions: number;
  vectors: Iterable<readonly [string, UnitVector]>;
}

export class SkillVectors {
  private readonly vectors = new Map<string, UnitVector>();
  private readonly inFlight = new Map<string, Promise<boolean>>();
  private readonly limit: Limiter;
  private readonly stopping = new AbortController();
  /** Width of every vector held; set by the first vectors seeded or embedded. */
  dimensions: number | undefined;
  /** Bumped whenever vectors are added or dropped: a ranking made before is stale. */
  version = 0;

  constructor(private readonly settings: EmbeddingSettings) {
    this.limit = createLimiter(settings.concurrency);
  }

  /** The name an index records for these vectors: the `model` option, or "default" (the provider's own). */
  get model(): string {
    return this.settings.model ?? 'default';
  }

  get size(): number {
    return this.vectors.size;
  }

  get(key: string): UnitVector | undefined {
    return this.vectors.get(key);
  }

  /** Bytes the vectors hold in their arrays. */
  bytes(): number {
    let total = 0;
    for (const vector of this.vectors.values()) total += bytesOf(vector);
    return total;
  }

  /** Every held vector by key (a prebuilt index's writer reads them). */
  entries(): IterableIterator<[string, UnitVector]> {
    return this.vectors.entries();
  }

  /**
   * Take a prebuilt index's vectors. Those of another model (name or width)
   * are not taken; returns the difference then, for the one warning.
   */
  seed(seed: SeedVectors): string | undefined {
    if (seed.model !== this.model) return `model ${JSON.stringify(seed.model)}, not ${JSON.stringify(this.model)}`;
    if (this.dimensions !== undefined && seed.dimensions !== this.dimensions) {
      return `${seed.dimensions} dimensions, not ${this.dimensions}`;
    }
    this.dimensions = seed.dimensions;
    for (const [key, vector] of seed.vectors) if (dimensionsOf(vector) === seed.dimensions) this.vectors.set(key, vector);
    this.version++;
    return undefined;
  }

  /**
   * A vector of `width` came from the provider: when it differs from the held
   * vectors' (an index made with another model under the same name), they are
   * dropped and the caller embeds its skills again. Returns whether they were.
   */
  accept(width: number): boolean {
    if (this.dimensions === undefined || this.dimensions === width) {
      this.dimensions = width;
      return false;
    }
    this.vectors.clear();
    this.dimensions = width;
    this.version++;
    return true;
  }

  /** Embed the texts whose keys no vector is held or being made for, in batches; never rejects. */
  async embed(items: readonly KeyedText[]): Promise<EmbeddingOutcome> {
    const outcome: EmbeddingOutcome = { embedded: 0, held: 0, failed: 0, calls: 0 };
    const missing: KeyedText[] = [];
    const waiting: Array<Promise<boolean>> = [];
    const seen = new Set<string>();
    for (const item of items) {
      if (seen.has(item.key)) continue;
      seen.add(item.key);
      const pending = this.inFlight.get(item.key);
      if (this.vectors.has(item.key)) outcome.held++;
      else if (pending) waiting.push(pending);
      else missing.push(item);
    }
    const batches: KeyedText[][] = [];
    for (let i = 0; i < missing.length; i += this.settings.batchSize) batches.push(missing.slice(i, i + this.settings.batchSize));
    const runs = batches.map((batch) => this.embedBatch(batch, outcome));
    for (const [i, batch] of batches.entries()) for (const item of batch) this.inFlight.set(item.key, runs[i] as Promise<boolean>);
    await Promise.all(runs);
    // Texts another round was embedding: theirs to count, but this round waits for them too.
    for (const done of await Promise.all(waiting)) if (done) outcome.held++;
    return outcome;
  }

  /** Drop the vectors of keys not in `keys` nor being embedded (skills edited or removed since): the store holds one library's worth. */
  retain(keys: ReadonlySet<string>): void {
    let dropped = 0;
    for (const key of this.vectors.keys()) {
      if (!keys.has(key) && !this.inFlight.has(key)) {
        this.vectors.delete(key);
        dropped++;
      }
    }
    if (dropped > 0) this.version++;
  }

  /** Stop embedding: batches not yet sent are not sent, retries end. */
  stop(): void {
    this.stopping.abort();
  }

  private async embedBatch(batch: readonly KeyedText[], outcome: EmbeddingOutcome): Promise<boolean> {
    const { retries, backoffMs } = this.settings;
    const signal = this.stopping.signal;
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          if (signal.aborted) throw new Error('embedding was stopped');
          outcome.calls++;
          const vectors = await this.limit(() =>
            embedTexts(
              this.settings,
              batch.map((item) => item.text),
              signal,
            ),
          );
          this.keep(batch, vectors);
          outcome.embedded += batch.length;
          return true;
        } catch (error) {
          outcome.error = messageOf(error);
          if (attempt >= retries || signal.aborted) break;
          await pause(backoffMs * 2 ** attempt, signal).catch(() => undefined);
        }
      }
      outcome.failed += batch.length;
      return false;
    } finally {
      for (const item of batch) this.inFlight.delete(item.key);
    }
  }

  private keep(batch: readonly KeyedText[], vectors: readonly Float32Array[]): void {
    const width = (vectors[0] as Float32Array).length;
    this.accept(width);
    const encoding = encodingFor(width);
    batch.forEach((item, i) => this.vectors.set(item.key, stored(vectors[i] as Float32Array, encoding)));
    this.version++;
  }
}

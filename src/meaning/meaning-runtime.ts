/**
 * Meaning for one middleware (the `embeddings` option): one store of skill
 * vectors and one of query vectors, shared by every index and visible part
 * it serves. The newest whole index's skills are embedded in the background
 * after its first request; a request embeds its message (once, under the
 * deadline) only when its library has vectors to compare it with. What
 * happened in the background is told on the next request's log.
 */
import type { HostLogger } from '../base/host.js';
import type { ResolvedEmbeddings } from '../config/embeddings.js';
import type { SkillEntry } from '../base/model.js';
import { hybridRanker } from './hybrid-ranker.js';
import { QueryVectors } from './query-vectors.js';
import { SkillMeaning } from './skill-meaning.js';
import { SkillVectors, type EmbeddingOutcome } from './skill-vectors.js';
import { decodeVectors } from './vector-file.js';
import type { Ranker } from '../catalog/rank/score.js';
import { FUSION, type FusionSettings } from './fusion.js';

type Note = { level: 'info' | 'warn'; message: string; fields: Record<string, unknown> };

export class MeaningRuntime {
  readonly store: SkillVectors;
  readonly queries: QueryVectors;
  private latest: SkillMeaning | undefined;
  private notes: Note[] = [];

  private readonly fusion: FusionSettings;

  constructor(settings: ResolvedEmbeddings) {
    this.fusion = { k: FUSION.k, meaningWeight: settings.meaningWeight };
    this.store = new SkillVectors(settings);
    this.queries = new QueryVectors(settings, settings.queryTimeoutMs, (width) => {
      // A query of another width than the held vectors: they were another model's; embed the skills again.
      if (this.store.accept(width)) this.restart('the embedder returned vectors of another width than the held ones');
    });
  }

  /**
   * Meaning over `skills` (a library's model skills). For a whole index
   * (`vectors`: its prebuilt index's block, if any) the vectors are seeded
   * and its skills are embedded in the background from the next tick.
   */
  over(skills: readonly SkillEntry[], whole: boolean, vectors?: unknown): SkillMeaning {
    const meaning = new SkillMeaning(skills, this.store);
    if (!whole) return meaning;
    if (vectors !== undefined) this.seed(vectors);
    this.latest = meaning;
    setTimeout(() => void this.embed(meaning), 0).unref?.();
    return meaning;
  }

  /** `ranker` fused with `meaning`'s nearest skills when the query's vector is at hand. */
  hybrid<R extends Ranker>(ranker: R, meaning: SkillMeaning): R {
    return hybridRanker(ranker, { meaning, queries: this.queries, fusion: this.fusion });
  }

  /** Embed `text` (waiting at most the deadline) when `meaning` has vectors to compare it with; never rejects. */
  async prepare(meaning: SkillMeaning | undefined, text: string, log?: HostLogger): Promise<void> {
    if (meaning?.searchable) await this.queries.get(text, log);
  }

  /** Resolves when the newest index's skills are embedded (at once before any request). */
  async ready(): Promise<EmbeddingOutcome | undefined> {
    return this.latest?.embedAll();
  }

  /** Log what happened in the background since the last request. */
  report(log: HostLogger): void {
    const notes = this.notes;
    this.notes = [];
    for (const { level, message, fields } of notes) log[level](message, fields);
  }

  close(): void {
    this.store.stop();
    this.queries.stop();
  }

  private seed(block: unknown): void {
    const decoded = decodeVectors(block);
    const problem = decoded.ok ? this.store.seed(decoded.seed) : decoded.problem;
    if (problem === undefined) return;
    this.notes.push({
      level: 'warn',
      message: "[skills] the prebuilt index's vectors are not used; the skills are embedded again in the background",
      fields: { problem, fix: 'Rebuild the index with `sisu-skills index ... --embeddings <module>` using the same model.' },
    });
  }

  private async embed(meaning: SkillMeaning): Promise<void> {
    const outcome = await meaning.embedAll();
    // Vectors of skills the newest index no longer has (edited, removed) are dropped.
    if (meaning === this.latest) this.store.retain(meaning.keySet());
    if (outcome.embedded === 0 && outcome.failed === 0) return;
    const failed = outcome.failed > 0;
    this.notes.push({
      level: failed ? 'warn' : 'info',
      message: failed ? '[skills] some skills could not be embedded; they are found by words only' : '[skills] skills embedded',
      fields: { ...outcome },
    });
  }

  private restart(problem: string): void {
    this.notes.push({ level: 'warn', message: '[skills] embedding the skills again', fields: { problem } });
    this.latest?.forget();
    if (this.latest) void this.embed(this.latest);
  }
}

/**
 * Meaning over one list of skills (a library's: the skills one request may
 * see): their vectors' keys, the nearest skills to a query vector, and the
 * background round that embeds the whole list. Only this list's vectors are
 * ever compared, so a skill `visible` hides from a request is never reached
 * by its meaning.
 */
import type { SkillEntry } from '../base/model.js';
import type { EmbeddingOutcome, SkillVectors } from './skill-vectors.js';
import { contentKey, skillText } from './skill-text.js';
import { similarity, type UnitVector } from './vectors.js';

export interface NearSkill {
  name: string;
  similarity: number;
}

export class SkillMeaning {
  private keys: string[] | undefined;
  /** The vectors by position, as of the store's `resolvedAt` version. */
  private resolved: Array<UnitVector | undefined> = [];
  private resolvedAt = -1;
  private round: Promise<EmbeddingOutcome> | undefined;

  constructor(
    private readonly skills: readonly SkillEntry[],
    readonly store: SkillVectors,
  ) {}

  /** Whether any of these skills has a vector: before that, ranking is by words and no query is embedded. */
  get searchable(): boolean {
    return this.store.size > 0 && this.vectors().some((vector) => vector !== undefined);
  }

  /** The skills nearest to `query` (a unit vector), most similar first, at most `limit`; only skills with a vector. */
  nearest(query: Float32Array, limit: number): NearSkill[] {
    const vectors = this.vectors();
    // The best `limit` so far, by similarity (then name), kept sorted: no object per skill.
    const best: Array<{ at: number; similarity: number }> = [];
    for (let at = 0; at < vectors.length; at++) {
      const vector = vectors[at];
      if (!vector || query.length !== (vector instanceof Float32Array ? vector.length : vector.values.length)) continue;
      const value = similarity(query, vector);
      if (best.length === limit && !this.before(value, at, best[limit - 1] as { at: number; similarity: number })) continue;
      let place = best.length;
      while (place > 0 && this.before(value, at, best[place - 1] as { at: number; similarity: number })) place--;
      best.splice(place, 0, { at, similarity: value });
      if (best.length > limit) best.pop();
    }
    return best.map(({ at, similarity: value }) => ({ name: this.nameAt(at), similarity: value }));
  }

  private nameAt(at: number): string {
    return (this.skills[at] as SkillEntry).metadata.name;
  }

  /** Whether a skill at `at` with `value` ranks before `other`: more similar, or as similar and first by name. */
  private before(value: number, at: number, other: { at: number; similarity: number }): boolean {
    return value > other.similarity || (value === other.similarity && this.nameAt(at) < this.nameAt(other.at));
  }

  /**
   * Embed every skill of the list the store holds no vector for, once:
   * later calls get the same round. When the store dropped its vectors
   * meanwhile (another model's width came back), one more round embeds them all.
   */
  embedAll(): Promise<EmbeddingOutcome> {
    this.round ??= this.embedRound().then(async (outcome) => {
      const keys = this.keyList();
      if (outcome.failed > 0 || keys.every((key) => this.store.get(key) !== undefined)) return outcome;
      return this.embedRound();
    });
    return this.round;
  }

  /** The content keys of these skills. */
  keySet(): Set<string> {
    return new Set(this.keyList());
  }

  /** The next embedAll starts a new round (the store dropped its vectors after it ended). */
  forget(): void {
    this.round = undefined;
  }

  private embedRound(): Promise<EmbeddingOutcome> {
    const keys = this.keyList();
    return this.store.embed(this.skills.map((entry, i) => ({ key: keys[i] as string, text: skillText(entry) })));
  }

  private keyList(): string[] {
    this.keys ??= this.skills.map((entry) => contentKey(skillText(entry)));
    return this.keys;
  }

  private vectors(): Array<UnitVector | undefined> {
    if (this.resolvedAt !== this.store.version) {
      const keys = this.keyList();
      this.resolved = keys.map((key) => this.store.get(key));
      this.resolvedAt = this.store.version;
    }
    return this.resolved;
  }
}

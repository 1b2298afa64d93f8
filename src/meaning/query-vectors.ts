/**
 * The vectors of what users ask: one embedding call per distinct text (kept
 * for the KEPT_QUERIES most recent), waited for at most `deadlineMs` by a
 * request. A slow call goes on in the background, so the same message asked
 * again (a rerun, the next tool call) gets its vector without a second call;
 * a failed one is not called again while it is kept, and its text ranks by
 * words. A failure is logged once, until a call succeeds again.
 */
import type { HostLogger } from '../base/host.js';
import { embedTexts, messageOf, type Embedder } from './embed-call.js';

/** Distinct texts whose vectors (or failures) are kept, least recently used dropped first. */
export const KEPT_QUERIES = 512;

/** Longest text embedded for a query: a pasted log is cut, not sent whole. */
export const MAX_QUERY_TEXT = 2_000;

type QueryState = { vector: Float32Array } | { failed: string } | { pending: Promise<void> };

export class QueryVectors {
  private readonly states = new Map<string, QueryState>();
  private readonly stopping = new AbortController();
  /** Whether the last failure was logged and no call succeeded since. */
  private failing = false;
  /** Calls made so far. */
  calls = 0;
  /** Vectors that came back so far: a ranking kept from before one arrived is redone (hybridRanker's version). */
  arrivals = 0;

  constructor(
    private readonly embedder: Embedder,
    private readonly deadlineMs: number,
    /** Told the width of each vector (SkillVectors.accept). */
    private readonly onWidth: (width: number) => void = () => undefined,
  ) {}

  /** The vector of `text` if it is at hand now (no call made). */
  peek(text: string): Float32Array | undefined {
    const state = this.states.get(queryText(text));
    return state && 'vector' in state ? state.vector : undefined;
  }

  /**
   * The vector of `text`, waiting at most the deadline for it; undefined on
   * a timeout or an error (logged once on `log`). Never rejects.
   */
  async get(text: string, log?: HostLogger): Promise<Float32Array | undefined> {
    const key = queryText(text);
    if (key === '') return undefined;
    let state = this.states.get(key);
    if (state) {
      // Most recently used last.
      this.states.delete(key);
      this.states.set(key, state);
    } else {
      state = { pending: this.call(key) };
      this.remember(key, state);
    }
    if ('pending' in state) {
      const timedOut = await waitAtMost(state.pending, this.deadlineMs);
      if (timedOut) this.report(log, `no answer within ${this.deadlineMs} ms`);
    }
    const now = this.states.get(key);
    if (now && 'failed' in now) this.report(log, now.failed);
    return now && 'vector' in now ? now.vector : undefined;
  }

  /** Stop waiting: calls in flight are aborted. */
  stop(): void {
    this.stopping.abort();
  }

  private async call(key: string): Promise<void> {
    this.calls++;
    try {
      const [vector] = await embedTexts(this.embedder, [key], this.stopping.signal);
      this.onWidth((vector as Float32Array).length);
      this.settle(key, { vector: vector as Float32Array });
      this.arrivals++;
      this.failing = false;
    } catch (error) {
      this.settle(key, { failed: messageOf(error) });
    }
  }

  /** Replace a pending state with its outcome, unless the text was dropped meanwhile. */
  private settle(key: string, state: QueryState): void {
    if (this.states.has(key)) this.states.set(key, state);
  }

  private remember(key: string, state: QueryState): void {
    this.states.set(key, state);
    if (this.states.size > KEPT_QUERIES) this.states.delete(this.states.keys().next().value as string);
  }

  private report(log: HostLogger | undefined, problem: string): void {
    if (this.failing || !log) return;
    this.failing = true;
    log.warn('[skills] could not embed the request; ranking it by words (logged once until embedding works again)', { problem });
  }
}

/** The text as embedded: trimmed, at most MAX_QUERY_TEXT characters. */
function queryText(text: string): string {
  return text.trim().slice(0, MAX_QUERY_TEXT);
}

/** Resolves true when `ms` passed before `promise` settled, false when it settled first. */
function waitAtMost(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(true), ms);
  });
  return Promise.race([promise.then(() => false), timeout]).finally(() => clearTimeout(timer));
}

/**
 * How sources of change reach the one owner of freshness (index/freshness.ts):
 * folders watched, a bucket's listings polled, a published index checked.
 * Each source is made with the feed and reports to it; the owner, made with
 * the index cache after them, listens from its construction until it
 * closes. A report is delivered at once, to every listener, in order.
 */
import type { HostLogger } from '../base/host.js';

export type Change =
  /** Skills changed on disk: rebuild, and scan from now on (a prebuilt index cannot know). */
  | 'disk'
  /** What a bucket or a published index holds changed, or storage answered after a request stopped waiting. */
  | 'storage'
  /** A change may have gone unseen (a folder not watched yet): an index already built is rebuilt. */
  | 'unseen';

export class ChangeFeed {
  private readonly listeners = new Set<(change: Change) => void>();

  report(change: Change): void {
    for (const listener of [...this.listeners]) listener(change);
  }

  /** Call `listener` with every report until the function returned is called. */
  listen(listener: (change: Change) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** A source of change, as its owner holds it. */
export interface ChangeSource {
  /** Begin the checks a timer makes (a watcher watches from its construction). */
  start?(): void;
  /** Longest an index may be kept now, in ms; undefined when the source sets no limit of its own. */
  maxAge?(): number | undefined;
  /** Log what happened since the last request (outages begun and ended, watch problems). */
  report(log: HostLogger): void;
  close(): void | Promise<void>;
}

/**
 * Builds a ranker's index over names, tags and descriptions off the request
 * path, where nothing else does: the instructions' reading
 * (src/source/body-indexer.ts) finishes it before it reads, but with
 * `rankInstructions: false`, and for a visible part (whose instructions come
 * from the whole index's reading), no reading runs. A first query is
 * answered without the index (src/catalog/rank.ts); without this, the next
 * query would wait for the build. One step of INDEX_STEP skills at a time on
 * unref'd timers: requests run in between, and a process with nothing else to
 * do exits instead of waiting.
 */
import type { BodyAwareRanker } from '../catalog/rank.js';

export interface RankerBuild {
  /** Resolves when the index is built, or the build was stopped. Never rejects. */
  readonly done: Promise<void>;
  /** Stops building (the index was replaced, or the middleware closed): a later query builds what is left. */
  stop(): void;
}

/** Builds `ranker`'s index a step at a time, starting after `delayMs`. */
export function buildRankerIndex(ranker: BodyAwareRanker, delayMs: number): RankerBuild {
  let stopped = false;
  let finish: () => void = () => undefined;
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  let timer = setTimeout(step, delayMs);
  timer.unref?.();

  function step(): void {
    if (stopped || ranker.indexStep()) {
      finish();
      return;
    }
    timer = setTimeout(step, 0);
    timer.unref?.();
  }

  return {
    done,
    stop() {
      stopped = true;
      clearTimeout(timer);
      finish();
    },
  };
}

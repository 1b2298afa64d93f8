/**
 * The ranker's side of building a prebuilt index: its data over the skills an
 * index ranks, and the instructions' data from their bodies. The builder sits
 * below the ranker (src/index/prebuilt/build.ts) and is given RANKER_BUILDER;
 * a reader checks what it stored with RANKER_FORMAT (rank/data.ts).
 */
import type { RankerBuilder } from '../base/ranker-data.js';
import { catalogEntries } from './catalog.js';
import { bodyData, buildRankerData } from './rank/data.js';
import { bodyCollectorFor } from './rank/score.js';

export const RANKER_BUILDER: RankerBuilder = Object.freeze({
  rankerData: (skills) => buildRankerData(catalogEntries(skills)),
  bodies(count) {
    const collector = bodyCollectorFor(count);
    return {
      add: (doc, body) => collector.add(doc, body),
      // No body read (none could be): nothing to store, the ranker reads metadata only.
      data: () => (collector.count === 0 ? undefined : bodyData(collector.build())),
    };
  },
} satisfies RankerBuilder);

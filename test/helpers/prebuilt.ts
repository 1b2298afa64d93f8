/**
 * The prebuilt index's builder and reader, made as `sisu-skills index` and
 * the middleware make them: with this version's ranker (catalog's
 * RANKER_BUILDER and RANKER_FORMAT).
 */
import { RANKER_FORMAT } from '../../src/catalog/rank/data.js';
import { RANKER_BUILDER } from '../../src/catalog/saved-ranker.js';
import { prebuiltBuilder } from '../../src/index/prebuilt/build.js';
import type { DiscoveryShape } from '../../src/index/prebuilt/format.js';
import { prebuiltReader } from '../../src/index/prebuilt/read.js';

export { serializePrebuiltIndex } from '../../src/index/prebuilt/write.js';

export const { build: buildPrebuiltIndex, from: prebuiltIndexFrom } = prebuiltBuilder(RANKER_BUILDER);
export const { read: readPrebuiltIndex, parse: parsePrebuiltIndex } = prebuiltReader(RANKER_FORMAT);

/** The discovery options of a middleware given only `directories`, as an index records and its reader compares them. */
export function shapeOf(directories: string[]): DiscoveryShape {
  return { directories, packages: [], include: [], exclude: [], strict: false };
}

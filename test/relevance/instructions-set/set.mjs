// The labelled requests of test/relevance/instructions-set (README.md beside this file),
// each written from reading its target skill's instructions, and their fixed split
// (labelled-set.mjs: the same hash rule as body-set). Plain JS so the vitest tests and
// the scripts read them the same way.
import { HELD_BACK_SHARE, isHeldBack, readLabelled } from '../labelled-set.mjs';

export { HELD_BACK_SHARE, isHeldBack };
const FILE = new URL('./requests.jsonl', import.meta.url);

/** Every labelled request: { id, request, accept, target, heldBack }. */
export function loadRequests() {
  return readLabelled(FILE).map(({ id, request, accept, target, heldBack }) => ({ id, request, accept, target, heldBack }));
}

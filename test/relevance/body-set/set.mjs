// The labelled requests of test/relevance/body-set (README.md beside this file) and their
// fixed split (labelled-set.mjs: held back when the SHA-256 of the text falls under
// HELD_BACK_SHARE). Plain JS so the vitest tests and scripts/body-rank-experiment.mjs
// read them the same way.
import { HELD_BACK_SHARE, isHeldBack, readLabelled } from '../labelled-set.mjs';

export { HELD_BACK_SHARE, isHeldBack };
const FILE = new URL('./requests.jsonl', import.meta.url);

/** Every labelled request: { id, request, accept, heldBack }. */
export function loadRequests() {
  return readLabelled(FILE).map(({ id, request, accept, heldBack }) => ({ id, request, accept, heldBack }));
}

// The labelled requests of test/relevance/body-set (README.md beside this file) and their
// fixed split: a request is held back when the first 4 bytes of the SHA-256 of its text,
// read as a fraction of 2^32, are under HELD_BACK_SHARE. Plain JS so the vitest tests
// and scripts/body-rank-experiment.mjs read them the same way.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

export const HELD_BACK_SHARE = 0.4;
const FILE = new URL('./requests.jsonl', import.meta.url);

/** Whether `request` is in the held-back part (never tuned on). */
export function isHeldBack(request) {
  return createHash('sha256').update(request).digest().readUInt32BE(0) / 2 ** 32 < HELD_BACK_SHARE;
}

/** Every labelled request: { id, request, accept, heldBack }. */
export function loadRequests() {
  return readFileSync(FILE, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const { id, request, accept } = JSON.parse(line);
      return { id, request, accept, heldBack: isHeldBack(request) };
    });
}

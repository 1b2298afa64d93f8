// What the labelled request sets (body-set/, instructions-set/) share: reading a
// requests.jsonl and the fixed split. A request is held back when the first 4 bytes of
// the SHA-256 of its text, read as a fraction of 2^32, are under HELD_BACK_SHARE: the
// split depends on the text alone, so adding requests never moves an older one.
// Plain JS so the vitest tests and the scripts read the sets the same way.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

export const HELD_BACK_SHARE = 0.4;

/** Whether `request` is in the held-back part (never tuned on). */
export function isHeldBack(request) {
  return createHash('sha256').update(request).digest().readUInt32BE(0) / 2 ** 32 < HELD_BACK_SHARE;
}

/** Every JSON line of `file` (a URL or path), with `heldBack` added from its `request`. */
export function readLabelled(file) {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const row = JSON.parse(line);
      return { ...row, heldBack: isHeldBack(row.request) };
    });
}

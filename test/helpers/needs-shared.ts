/**
 * `describe` and `it` for what needs a part of ../shared (shared.ts): run
 * when the part is here; otherwise skipped, with skipNote's reason at the end
 * of the name, which the run's closing lines (run-summary.ts) count.
 */
import { describe, it } from 'vitest';
import { hasShared, skipNote, type SharedPart } from './shared.js';

export function describeWith(part: SharedPart, name: string, body: () => void): void {
  if (hasShared(part)) describe(name, body);
  else describe.skip(`${name} ${skipNote(part)}`, body);
}

export function itWith(part: SharedPart, name: string, body: () => unknown, timeout?: number): void {
  if (hasShared(part)) it(name, body, timeout);
  else it.skip(`${name} ${skipNote(part)}`, body);
}

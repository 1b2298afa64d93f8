/**
 * The suite's start order (test/helpers/file-order.ts): every file once, the
 * busy ones longest first, and a waiting file only once the one before it
 * would have ended.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FILE_COSTS, plannedOrder, waits, type FileCost } from './file-order.js';

const ROOT = join(import.meta.dirname, '..', '..');

describe('the planned start order', () => {
  it('names only test files that exist (a renamed file would silently lose its place)', () => {
    const missing = Object.keys(FILE_COSTS).filter((file) => !file.endsWith('.test.ts') || !existsSync(join(ROOT, file)));
    expect(missing).toEqual([]);
  });

  it('starts every file once: busy files by CPU, waiting files by wall time, each waiting file after the last one would end', () => {
    const cost = fc.tuple(fc.double({ min: 0, max: 20, noNaN: true }), fc.double({ min: 0.01, max: 20, noNaN: true }));
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(fc.string({ minLength: 1 }), cost), { selector: ([name]) => name, maxLength: 30 }),
        fc.integer({ min: 1, max: 8 }),
        (table, cores) => {
          const costs: Record<string, FileCost> = Object.fromEntries(table);
          const order = plannedOrder(Object.keys(costs), costs, cores);
          expect([...order].sort()).toEqual(Object.keys(costs).sort());
          const of = (file: string): FileCost => costs[file] ?? [0, 0];
          const busy = order.filter((file) => !waits(of(file)));
          const waiting = order.filter((file) => waits(of(file)));
          expect(busy.map((file) => of(file)[0])).toEqual(busy.map((file) => of(file)[0]).sort((a, b) => b - a));
          expect(waiting.map((file) => of(file)[1])).toEqual(waiting.map((file) => of(file)[1]).sort((a, b) => b - a));
          // Between two waiting files, the busy files' CPU over the cores covers the first one's wall time, unless
          // no busy file was left to put there.
          const at = waiting.map((file) => order.indexOf(file));
          for (let w = 1; w < at.length; w++) {
            const between = order.slice((at[w - 1] ?? 0) + 1, at[w]);
            const covered = between.reduce((sum, file) => sum + of(file)[0] / cores, 0);
            const busyLeft = order.slice((at[w] ?? 0) + 1).some((file) => !waits(of(file)));
            if (busyLeft) expect(covered).toBeGreaterThanOrEqual(of(waiting[w - 1] ?? '')[1] - 1e-9);
          }
          if (waiting.length > 0) expect(order[0]).toBe(waiting[0]);
        },
      ),
    );
  });

  it("keeps the measured waiting files apart on this suite's 2 cores while busy files are left to put between them", () => {
    const order = plannedOrder(Object.keys(FILE_COSTS), FILE_COSTS, 2);
    const waiting = order.map((file) => waits(FILE_COSTS[file] ?? [0, 0]));
    const lastBusy = waiting.lastIndexOf(false);
    expect(waiting.filter(Boolean).length).toBeGreaterThanOrEqual(4);
    expect(waiting.slice(0, lastBusy).some((wait, i) => wait && waiting[i + 1] === true)).toBe(false);
  });
});

// Small timing and statistics helpers for the benchmark.
import { performance } from 'node:perf_hooks';

/** @param {readonly number[]} values */
export function median(values) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Milliseconds taken by an async function. */
export async function timeAsync(fn) {
  const start = performance.now();
  const value = await fn();
  return { ms: performance.now() - start, value };
}

/** Milliseconds taken by a sync function. */
export function timeSync(fn) {
  const start = performance.now();
  const value = fn();
  return { ms: performance.now() - start, value };
}

export function gc() {
  if (typeof globalThis.gc === 'function') {
    globalThis.gc();
    globalThis.gc();
  }
}

/** Run `tasks` with at most `limit` in flight. */
export async function pool(items, limit, worker) {
  let next = 0;
  const runners = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++;
      await worker(items[index], index);
    }
  });
  await Promise.all(runners);
}

export const round = (value, digits = 2) => (Number.isFinite(value) ? Number(value.toFixed(digits)) : value);

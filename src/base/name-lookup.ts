/**
 * Finding items by name without a Map entry (about 40 bytes) per item:
 * positions sorted by name in one Int32Array and a binary search. The index
 * and the ranked catalog live as long as the process, so at 20,000 skills
 * every Map entry per skill is about 0.8 MB. Each choice names the bench
 * figure behind it (bench/memory.mjs, `npm run bench`). Pure.
 */
import { compareNames } from './text.js';

/**
 * Finds items by name: positions sorted by name in one Int32Array (4 bytes
 * per item, outside the JS heap) and a binary search. The order is built on
 * the first lookup, so building an index costs nothing here, and the first
 * of several items with one name wins.
 *
 * `sorted`, when given, is that order worked out before (a prebuilt index
 * stores it): it is used when it is one (checked on the first lookup, one
 * comparison an item), else the order is sorted as without it. Sorting
 * 20,000 skill names takes 10-20 ms of a first request; checking, about 1 ms.
 *
 * Bench: instead of a Map in the index and the ranked catalog, 20,000 skills
 * 26.17 -> 25.00 MB (ec92c42); a lookup is ~15 string compares at 20,000.
 */
export function nameLookup<T>(items: readonly T[], nameOf: (item: T) => string, sorted?: Int32Array): (name: string) => T | undefined {
  const find = positionLookup(items.length, (position) => nameOf(items[position] as T), sorted);
  return (name) => {
    const position = find(name);
    return position === -1 ? undefined : items[position];
  };
}

/** nameLookup by position: the position of the first item named `name` among `count`, or -1. */
export function positionLookup(count: number, nameAt: (position: number) => string, sorted?: Int32Array): (name: string) => number {
  let order: Int32Array | undefined;
  return (name) => {
    order ??= sorted && isNameOrder(sorted, count, nameAt) ? sorted : sortedByName(count, nameAt);
    // Leftmost position whose name is >= `name`.
    let low = 0;
    let high = order.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (nameAt(order[mid] as number) < name) low = mid + 1;
      else high = mid;
    }
    if (low === order.length) return -1;
    const position = order[low] as number;
    return nameAt(position) === name ? position : -1;
  };
}

/** Positions 0 to count - 1 sorted by `nameAt`, ties by position (so a search lands on the first item of a name). */
export function sortedByName(count: number, nameAt: (position: number) => string): Int32Array {
  const order = new Int32Array(count);
  for (let i = 0; i < count; i++) order[i] = i;
  order.sort((a, b) => compareNames(nameAt(a), nameAt(b)) || a - b);
  return order;
}

/** Whether `order` is exactly what sortedByName(count, nameAt) gives: each position once, names ascending, ties by position. */
function isNameOrder(order: Int32Array, count: number, nameAt: (position: number) => string): boolean {
  if (order.length !== count) return false;
  const seen = new Uint8Array(count);
  for (let i = 0; i < count; i++) {
    const position = order[i] as number;
    if (position < 0 || position >= count || seen[position] === 1) return false;
    seen[position] = 1;
    if (i > 0) {
      const previous = order[i - 1] as number;
      const comparison = compareNames(nameAt(previous), nameAt(position));
      if (comparison > 0 || (comparison === 0 && previous > position)) return false;
    }
  }
  return true;
}

/**
 * Finding items by name without a Map: positions sorted by name in one
 * Int32Array (4 bytes per item, outside the JS heap) and a binary search,
 * instead of a Map entry per item (about 40 bytes at 20,000 skills). The
 * order is built on the first lookup, so building an index costs nothing
 * here, and the first of several items with one name wins.
 */
export function nameLookup<T>(items: readonly T[], nameOf: (item: T) => string): (name: string) => T | undefined {
  let order: Int32Array | undefined;
  const nameAt = (position: number): string => nameOf(items[position] as T);
  return (name) => {
    if (!order) {
      const sorted = new Int32Array(items.length);
      for (let i = 0; i < sorted.length; i++) sorted[i] = i;
      // Code-unit order, ties by position, so the search below lands on the first item of a name.
      sorted.sort((a, b) => {
        const x = nameAt(a);
        const y = nameAt(b);
        return x < y ? -1 : x > y ? 1 : a - b;
      });
      order = sorted;
    }
    // Leftmost position whose name is >= `name`.
    let low = 0;
    let high = order.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (nameAt(order[mid] as number) < name) low = mid + 1;
      else high = mid;
    }
    if (low === order.length) return undefined;
    const item = items[order[low] as number] as T;
    return nameOf(item) === name ? item : undefined;
  };
}

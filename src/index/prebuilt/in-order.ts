/**
 * Reads for many skills, a few at a time, used in order: the builder's way
 * through 20,000 SKILL.md files. A fixed number of readers take the next
 * item as each finishes, instead of a promise made for every item up front:
 * 21,110 pending reads (their promises, closures and results) outlived the
 * young generation and took the build's peak memory from 273 to 394 MB
 * (bench/index-build.mjs's library; 573 MB promoted to the old generation).
 * What a read gives is handed to `use` in item order, holding only those
 * that came back ahead of an earlier one.
 */

/** `read(i)` for i from 0 to `count` - 1, at most `concurrency` at once; `use(i, value)` in order of i. */
export async function readInOrder<T>(
  count: number,
  concurrency: number,
  read: (i: number) => Promise<T>,
  use: (i: number, value: T) => void,
): Promise<void> {
  const ahead = new Map<number, T>();
  let taken = 0;
  let used = 0;
  const reader = async (): Promise<void> => {
    while (taken < count) {
      const i = taken++;
      ahead.set(i, await read(i));
      for (; ahead.has(used); used++) {
        const value = ahead.get(used) as T;
        ahead.delete(used);
        use(used, value);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, reader));
}

// Deterministic pseudo-random numbers (mulberry32), so every run builds the same workloads.

/** @param {number} seed */
export function createRandom(seed) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    /** Whole number in [min, max]. */
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    /** @template T @param {readonly T[]} list @returns {T} */
    pick: (list) => list[Math.floor(next() * list.length)],
    chance: (p) => next() < p,
  };
}

/**
 * Metadata numbers JSON cannot carry (NaN, ±Infinity, -0): the writer stores
 * null in their place and lists each one's path beside the metadata; the
 * reader puts them back, refusing a list that does not match. Keys such as
 * `__proto__` stay own keys, as the frontmatter parser made them.
 */

/** A special number at `path` inside a skill's metadata, which JSON cannot carry (stored there as null). */
export type SpecialNumber = [path: Array<string | number>, value: 'NaN' | 'Infinity' | '-Infinity' | '-0'];

export function jsonCarries(value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0);
  if (typeof value !== 'object' || value === null) return true;
  if (Array.isArray(value)) return value.every(jsonCarries);
  return Object.values(value).every(jsonCarries);
}

export function withoutSpecials(value: unknown, path: Array<string | number>, found: SpecialNumber[]): unknown {
  if (typeof value === 'number' && !jsonCarries(value)) {
    found.push([path, Object.is(value, -0) ? '-0' : Number.isNaN(value) ? 'NaN' : value > 0 ? 'Infinity' : '-Infinity']);
    return null;
  }
  if (Array.isArray(value)) return value.map((item, i) => withoutSpecials(item, [...path, i], found));
  if (typeof value === 'object' && value !== null) {
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      // defineProperty: `__proto__` stays an own key, as the parser made it.
      Object.defineProperty(copy, key, {
        value: withoutSpecials(item, [...path, key], found),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return copy;
  }
  return value;
}

const SPECIAL_VALUES: Record<SpecialNumber[1], number> = { NaN: Number.NaN, Infinity: Infinity, '-Infinity': -Infinity, '-0': -0 };

/** Put the special numbers back; false when a path does not lead to a null the writer left. */
export function restoreSpecials(metadata: Record<string, unknown>, specials: unknown): boolean {
  if (!Array.isArray(specials)) return false;
  for (const special of specials) {
    if (!Array.isArray(special) || special.length !== 2) return false;
    const [path, name] = special as [unknown, unknown];
    if (!Array.isArray(path) || path.length === 0 || typeof name !== 'string' || !Object.hasOwn(SPECIAL_VALUES, name)) return false;
    let holder: unknown = metadata;
    for (const key of path.slice(0, -1)) {
      holder =
        typeof holder === 'object' && holder !== null && (typeof key === 'string' || typeof key === 'number')
          ? (holder as Record<string, unknown>)[key]
          : undefined;
    }
    const last: unknown = path[path.length - 1];
    if (typeof holder !== 'object' || holder === null || (typeof last !== 'string' && typeof last !== 'number')) return false;
    if (!Object.hasOwn(holder, last) || (holder as Record<string, unknown>)[last] !== null) return false;
    (holder as Record<string, unknown>)[last] = SPECIAL_VALUES[name as SpecialNumber[1]];
  }
  return true;
}

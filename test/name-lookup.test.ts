import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nameLookup } from '../src/name-lookup.js';

describe('nameLookup', () => {
  it('finds the first item of each name, as a Map filled first-wins would', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 4 }), { maxLength: 40 }), fc.array(fc.string({ maxLength: 4 })), (names, probes) => {
        const items = names.map((name, position) => ({ name, position }));
        const map = new Map<string, { name: string; position: number }>();
        for (const item of items) if (!map.has(item.name)) map.set(item.name, item);
        const find = nameLookup(items, (item) => item.name);
        for (const name of [...names, ...probes]) expect(find(name)).toBe(map.get(name));
      }),
    );
  });

  it('finds nothing in an empty list', () => {
    expect(nameLookup([] as string[], (name) => name)('a')).toBeUndefined();
  });
});

/**
 * FolderSet: the same answer as checking every folder, with work that grows
 * with the path's depth, not with the number of folders.
 */
import fc from 'fast-check';
import { join, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FolderSet, isSameOrInside } from '../src/base/paths.js';

const segment = fc.constantFrom('a', 'b', 'ab', 'a b', 'skills', 'x.y');
const absolute = fc.array(segment, { maxLength: 5 }).map((parts) => join(sep, ...parts));

describe('FolderSet', () => {
  it('holds exactly the paths some folder is or contains', () => {
    fc.assert(
      fc.property(fc.array(absolute, { maxLength: 6 }), fc.array(absolute, { maxLength: 20 }), (folders, paths) => {
        const set = new FolderSet(folders);
        for (const path of paths) expect(set.holds(path)).toBe(folders.some((folder) => isSameOrInside(path, folder)));
      }),
    );
  });

  it('takes the filesystem root and folders given with a trailing separator', () => {
    expect(new FolderSet([sep]).holds(join(sep, 'a', 'b'))).toBe(true);
    expect(new FolderSet([join(sep, 'a') + sep]).holds(join(sep, 'a'))).toBe(true);
    expect(new FolderSet([join(sep, 'a')]).holds(join(sep, 'ab'))).toBe(false);
  });

  it('looks up as many prefixes per path with 500 folders as with 10: two inside a folder, depth + 1 outside', () => {
    const inside = Array.from({ length: 2_000 }, (_, i) => join(sep, 'srv', 'app', `team-${i % 10}`, 'skills', `skill-${i}`));
    const outside = Array.from({ length: 2_000 }, (_, i) => join(sep, 'srv', 'other', `team-${i % 10}`, 'skills', `skill-${i}`));
    const lookups = [10, 500].map((count) => {
      const set = new FolderSet(Array.from({ length: count }, (_, i) => join(sep, 'srv', 'app', `team-${i}`, 'skills')));
      for (const path of inside) expect(set.holds(path)).toBe(true);
      const afterInside = set.lookups;
      for (const path of outside) expect(set.holds(path)).toBe(false);
      return { inside: afterInside, outside: set.lookups - afterInside };
    });
    expect(lookups[0]).toEqual(lookups[1]);
    expect(lookups[0]?.inside).toBe(inside.length * 2);
    // Five segments: the path itself, then the five prefixes that end at a separator (the root included).
    expect(lookups[0]?.outside).toBe(outside.length * 6);
  });
});

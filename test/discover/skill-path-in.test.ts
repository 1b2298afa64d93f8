/**
 * A skill folder's path in its place (discover/trusted.ts skillPathIn): the
 * slice taken for a folder reached through the place's own path is what
 * `path.relative` gives, for every folder, however it is spelled.
 */
import { relative, sep } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { skillPathIn } from '../../src/discover/trusted.js';

const byRelative = (place: string, directory: string) => {
  const rel = relative(place, directory);
  return rel === '' ? '.' : rel.split(sep).join('/');
};

describe('skillPathIn', () => {
  it('is what path.relative says, for folders spelled with empty, . and .. parts too', () => {
    const part = fc.constantFrom('a', 'b.c', '.', '..', '...', '', '.x', 'é');
    fc.assert(
      fc.property(fc.constantFrom('/lib', '/lib/skills', 'rel/lib'), fc.array(part, { maxLength: 4 }), (place, parts) => {
        const directory = parts.length === 0 ? place : [place, ...parts].join(sep);
        expect(skillPathIn(place, directory)).toBe(byRelative(place, directory));
      }),
      { numRuns: 2000 },
    );
    expect(skillPathIn('/lib', '/lib')).toBe('.');
    expect(skillPathIn('/lib', '/lib/a/b')).toBe('a/b');
    expect(skillPathIn('/lib', '/library/a')).toBe('../library/a');
  });
});

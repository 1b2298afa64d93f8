import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  closestNames,
  editDistance,
  formatBytes,
  MAX_COMPARED_LENGTH,
  MAX_SUGGESTION_DISTANCE,
  oneLine,
  rankBySpelling,
  spellingBound,
  type DistanceWork,
} from '../src/base/text.js';

/** Textbook Levenshtein, the reference the banded one must agree with. */
function reference(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = rows[i] as number[];
      const up = rows[i - 1] as number[];
      row[j] = Math.min((up[j] as number) + 1, (row[j - 1] as number) + 1, (up[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
  }
  return (rows[a.length] as number[])[b.length] as number;
}

/** `count` skill-like names, deterministic. */
function library(count: number): string[] {
  const words = ['pdf', 'git', 'review', 'deploy', 'audio', 'helm', 'sql', 'docs', 'test', 'cloud', 'agent', 'chart'];
  return Array.from({ length: count }, (_, i) => `${words[i % words.length]}-${words[(i * 7) % words.length]}-${i}`);
}

describe('editDistance', () => {
  it('counts single-character edits', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('abc', '')).toBe(3);
    expect(editDistance('same', 'same')).toBe(0);
  });

  it('agrees with the textbook algorithm, and with a bound returns min(distance, bound + 1)', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'b', 'c', '-'), maxLength: 24 });
    fc.assert(
      fc.property(text, text, fc.integer({ min: 0, max: 30 }), (a, b, max) => {
        const exact = reference(a, b);
        expect(editDistance(a, b)).toBe(exact);
        expect(editDistance(a, b, max)).toBe(Math.min(exact, max + 1));
      }),
      { numRuns: 500 },
    );
  });

  it(`compares only the first ${MAX_COMPARED_LENGTH} characters of each string`, () => {
    const head = 'x'.repeat(MAX_COMPARED_LENGTH);
    expect(editDistance(`${head}${'a'.repeat(100_000)}`, `${head}${'b'.repeat(50)}`)).toBe(0);
    const work: DistanceWork = { cells: 0 };
    editDistance('a'.repeat(100_000), 'b'.repeat(100_000), Infinity, work);
    expect(work.cells).toBeLessThanOrEqual(MAX_COMPARED_LENGTH * MAX_COMPARED_LENGTH);
  });

  it('works only inside the band of a bound, and stops early once every cell is over it', () => {
    const work: DistanceWork = { cells: 0 };
    expect(editDistance('a'.repeat(100), 'a'.repeat(100), 3, work)).toBe(0);
    expect(work.cells).toBeLessThanOrEqual(100 * 7);
    const far: DistanceWork = { cells: 0 };
    expect(editDistance('a'.repeat(100), 'b'.repeat(100), 3, far)).toBe(4);
    expect(far.cells).toBeLessThanOrEqual(4 * 7);
    const skipped: DistanceWork = { cells: 0 };
    expect(editDistance('abc', 'abcdefghij', 3, skipped)).toBe(4);
    expect(skipped.cells).toBe(0);
  });
});

describe('closestNames', () => {
  it('puts substring matches first, then by distance, then by name', () => {
    expect(closestNames(['explain', 'debug', 'code-review', 'deploy-staging', 'revue'], 'review')).toEqual([
      'code-review',
      'revue',
      // Further than the bound (3 for six letters): tied, by name.
      'debug',
      'deploy-staging',
      'explain',
    ]);
    expect(closestNames(['b', 'a'], '')).toEqual(['a', 'b']);
    expect(closestNames(['debug', 'debugger'], 'debugg')[0]).toBe('debug');
    expect(closestNames(['PDF-Tools', 'git'], 'pdf-tool')[0]).toBe('PDF-Tools');
  });

  it('returns the closest few of many when given a limit, in the same order as the full ranking', () => {
    const names = library(500);
    for (const query of ['pdf-git-3', 'review', 'helm-chart-77', 'zzz', '']) {
      expect(closestNames(names, query, { limit: 7 })).toEqual(closestNames(names, query).slice(0, 7));
    }
    expect(closestNames(names, 'pdf', { limit: 0 })).toEqual([]);
  });

  it('reports the true distance up to the bound: the cheap letter-count filter never drops a close name', () => {
    // 'á' and 'a' share a bucket (code modulo 128), 'Ā' and 'a' too after lowercasing: collisions may only loosen the filter.
    const text = fc.string({ unit: fc.constantFrom('a', 'á', 'Ā', 'b', 'c', '-', '1'), maxLength: 16 });
    fc.assert(
      fc.property(fc.array(text, { maxLength: 8 }), text, fc.integer({ min: 0, max: 8 }), (names, query, bound) => {
        for (const match of rankBySpelling(names, query, { bound })) {
          expect(match.distance).toBe(Math.min(reference(match.name.toLowerCase(), query.toLowerCase()), bound + 1));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('reports distances capped at the bound', () => {
    const [near, far] = rankBySpelling(['pdf-tool', 'kubernetes-migrate'], 'pdf-tools');
    expect(near).toEqual({ name: 'pdf-tool', contains: true, distance: 1 });
    expect(far?.distance).toBe(spellingBound('pdf-tools'.length) + 1);
  });

  // Issue 15: a 100,000-character skill_name against 2,000 skills blocked for 81 s.
  it('does bounded work per name, however long the query or the names', () => {
    const names = library(2000);
    const cellsFor = (query: string, list = names): number => {
      const work: DistanceWork = { cells: 0 };
      closestNames(list, query, { limit: 10, work });
      return work.cells;
    };
    const perName = MAX_COMPARED_LENGTH * (2 * MAX_SUGGESTION_DISTANCE + 1);
    const capped = 'k'.repeat(MAX_COMPARED_LENGTH);
    // Past the compared length, the work does not grow with the query at all.
    expect(cellsFor('k'.repeat(100_000))).toBe(cellsFor(capped));
    expect(cellsFor('k'.repeat(10_000))).toBe(cellsFor(capped));
    for (const query of ['kubernetes-migrate', 'k'.repeat(60), capped]) expect(cellsFor(query)).toBeLessThanOrEqual(names.length * perName);
    // Long names in the library are capped the same way.
    const longNames = names.map((name, i) => `${name}-${'y'.repeat(i % 2 === 0 ? 100_000 : 10)}`);
    expect(cellsFor('k'.repeat(100_000), longNames)).toBeLessThanOrEqual(longNames.length * perName);
  });
});

describe('other text helpers', () => {
  it('oneLine collapses whitespace from block scalars', () => {
    expect(oneLine('  Reviews code.\nUse when\t asked.\n\n')).toBe('Reviews code. Use when asked.');
  });

  it('formatBytes picks a readable unit', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(3 * 1024 * 1024)).toBe('3.0 MB');
  });
});

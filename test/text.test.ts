import { describe, expect, it } from 'vitest';
import { closestNames, editDistance, formatBytes, oneLine } from '../src/text.js';

describe('text helpers', () => {
  it('editDistance counts single-character edits', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('same', 'same')).toBe(0);
  });

  it('closestNames puts substring matches first, then by distance, then by name', () => {
    expect(closestNames(['explain', 'debug', 'code-review', 'deploy-staging'], 'review')).toEqual([
      'code-review',
      'debug',
      'explain',
      'deploy-staging',
    ]);
    expect(closestNames(['b', 'a'], '')).toEqual(['a', 'b']);
    expect(closestNames(['debug', 'debugger'], 'debugg')[0]).toBe('debug');
  });

  it('oneLine collapses whitespace from block scalars', () => {
    expect(oneLine('  Reviews code.\nUse when\t asked.\n\n')).toBe('Reviews code. Use when asked.');
  });

  it('formatBytes picks a readable unit', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(3 * 1024 * 1024)).toBe('3.0 MB');
  });
});

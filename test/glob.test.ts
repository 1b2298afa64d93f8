import { describe, expect, it } from 'vitest';
import { globMatcher, globRegExp, globSource } from '../src/base/glob.js';

describe('glob patterns', () => {
  it('match whole values: `*` any run, `?` one character, everything else literal', () => {
    const matches = globMatcher(['pdf-*', 'a?c', 'x.y', '(r)+']);
    expect(['pdf-', 'pdf-forms', 'abc', 'a.c', 'x.y', '(r)+'].every(matches)).toBe(true);
    expect(['my-pdf-forms', 'ac', 'abbc', 'xzy', 'rr', 'PDF-forms'].some(matches)).toBe(false);
  });

  it('read regular-expression and glob syntax they do not support literally', () => {
    expect(globMatcher(['[ab]'])('[ab]')).toBe(true);
    expect(globMatcher(['[ab]'])('a')).toBe(false);
    expect(globMatcher(['{a,b}'])('{a,b}')).toBe(true);
    expect(globMatcher(['a|b'])('a')).toBe(false);
  });

  it('match nothing for an empty list, and take flags for one expression over many patterns', () => {
    expect(globMatcher([])('')).toBe(false);
    expect(globRegExp(['*.PEM', 'id_rsa*'], 'iu').test('server.pem')).toBe(true);
    expect(globSource('a*b?.c')).toBe('a.*b.\\.c');
  });
});

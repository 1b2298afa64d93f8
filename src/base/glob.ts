/**
 * The one pattern syntax the options use (include, exclude, secretPatterns):
 * `*` matches any run of characters, `?` one character, everything else is
 * literal, and a pattern matches a whole value. Patterns are compiled once
 * into one regular expression per list, never per test.
 */

/** A pattern's regular-expression source, unanchored. */
export function globSource(pattern: string): string {
  let source = '';
  for (const ch of pattern) {
    if (ch === '*') source += '.*';
    else if (ch === '?') source += '.';
    else source += ch.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return source;
}

/** The expression that matches a whole value against any of `patterns` (`flags` as for RegExp). */
export function globRegExp(patterns: readonly string[], flags = ''): RegExp {
  return new RegExp(`^(?:${patterns.map(globSource).join('|')})$`, flags);
}

/** A test for "matches one of `patterns`", case-sensitive; an empty list matches nothing. */
export function globMatcher(patterns: readonly string[]): (value: string) => boolean {
  if (patterns.length === 0) return () => false;
  const expression = globRegExp(patterns);
  return (value) => expression.test(value);
}

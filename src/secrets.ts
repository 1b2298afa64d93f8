/**
 * Secret file names: never listed as resources, never read. Patterns match
 * one path segment (a file or folder name), case-insensitively, so a folder
 * named `secrets/` hides everything under it.
 */

/** Always applied; the `secretPatterns` option adds to these, it cannot remove them. */
export const DEFAULT_SECRET_PATTERNS: readonly string[] = Object.freeze([
  '.env*',
  '*.pem',
  '*.key',
  'id_rsa*',
  'credentials*',
  'secrets*',
]);

/** Whether a path (or a single name) holds a secret. */
export type SecretMatcher = (relativePath: string) => boolean;

function patternToRegExp(pattern: string): RegExp {
  let source = '^';
  for (const ch of pattern) {
    if (ch === '*') source += '.*';
    else if (ch === '?') source += '.';
    else source += ch.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`${source}$`, 'iu');
}

/**
 * The forms a name is checked in: as written, and as it would look to a
 * person or to Windows (compatibility-normalized, so a fullwidth `．env` is
 * `.env`; trailing dots and spaces dropped, as Windows drops them).
 */
function nameForms(name: string): string[] {
  const normalized = name.normalize('NFKC').replace(/[. ]+$/u, '');
  return normalized === name ? [name] : [name, normalized];
}

/** A matcher for the default patterns plus `extra`. Both `/` and `\` separate segments. */
export function createSecretMatcher(extra: readonly string[] = []): SecretMatcher {
  const patterns = [...new Set([...DEFAULT_SECRET_PATTERNS, ...extra])].map(patternToRegExp);
  return (relativePath) =>
    relativePath
      .split(/[\\/]/u)
      .filter((segment) => segment !== '')
      .some((segment) => nameForms(segment).some((form) => patterns.some((pattern) => pattern.test(form))));
}

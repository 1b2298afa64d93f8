/**
 * Secret file names: never listed as resources, never read. Patterns match
 * one path segment (a file or folder name), case-insensitively, so a folder
 * named `secrets/` hides everything under it.
 */
import { globRegExp } from '../base/glob.js';
import { DEFAULT_SECRET_PATTERNS } from './defaults.js';

/** Whether a path (or a single name) holds a secret. */
export type SecretMatcher = (relativePath: string) => boolean;

/**
 * The forms a name is checked in: as written, and as it would look to a
 * person or to Windows (compatibility-normalized, so a fullwidth `．env` is
 * `.env`; trailing dots and spaces dropped, as Windows drops them).
 */
function nameForms(name: string): string[] {
  const normalized = name.normalize('NFKC').replace(/[. ]+$/u, '');
  return normalized === name ? [name] : [name, normalized];
}

/**
 * A matcher for the default patterns plus `extra`. Both `/` and `\` separate
 * segments. Compiles the patterns on every call: make one per set of options
 * and keep it (the middleware makes one at construction, discovery one per
 * scan; compiling one per skill listed showed in discovery profiles).
 */
export function createSecretMatcher(extra: readonly string[] = []): SecretMatcher {
  // One expression for every pattern: one test per name instead of one per pattern.
  const secret = globRegExp([...new Set([...DEFAULT_SECRET_PATTERNS, ...extra])], 'iu');
  return (relativePath) =>
    relativePath
      .split(/[\\/]/u)
      .filter((segment) => segment !== '')
      .some((segment) => nameForms(segment).some((form) => secret.test(form)));
}

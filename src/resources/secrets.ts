/**
 * Secret file names: never listed as resources, never read. Patterns match
 * one path segment (a file or folder name), case-insensitively, so a folder
 * named `secrets/` hides everything under it.
 */
import { globRegExp } from '../base/glob.js';

/** Always applied; the `secretPatterns` option adds to these, it cannot remove them. */
export const DEFAULT_SECRET_PATTERNS: readonly string[] = Object.freeze(['.env*', '*.pem', '*.key', 'id_rsa*', 'credentials*', 'secrets*']);

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

const NO_EXTRA_PATTERNS: readonly string[] = Object.freeze([]);

/** Matchers already made, by the `extra` list they were made for (resolved options keep theirs). */
const matchers = new WeakMap<readonly string[], SecretMatcher>();

/**
 * A matcher for the default patterns plus `extra`. Both `/` and `\` separate
 * segments. Made once per `extra` list: the resource listing asks for one per
 * skill, and compiling the patterns each time showed in discovery profiles.
 */
export function createSecretMatcher(extra: readonly string[] = NO_EXTRA_PATTERNS): SecretMatcher {
  let matcher = matchers.get(extra);
  if (!matcher) {
    // One expression for every pattern: one test per name instead of one per pattern.
    const secret = globRegExp([...new Set([...DEFAULT_SECRET_PATTERNS, ...extra])], 'iu');
    matcher = (relativePath) =>
      relativePath
        .split(/[\\/]/u)
        .filter((segment) => segment !== '')
        .some((segment) => nameForms(segment).some((form) => secret.test(form)));
    matchers.set(extra, matcher);
  }
  return matcher;
}

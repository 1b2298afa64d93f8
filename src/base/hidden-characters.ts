/**
 * Control characters (NUL, newlines, escapes) and invisible format characters
 * (right-to-left override, zero-width joiners, BOM) in a file name or path: a
 * name holding them can look like another name, so it is neither listed nor
 * read.
 */
export function hasHiddenCharacters(name: string): boolean {
  return /[\p{Cc}\p{Cf}\u2028\u2029]/u.test(name);
}

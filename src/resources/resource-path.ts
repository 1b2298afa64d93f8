/**
 * Checking the path a model asks for, before any disk access: what it names
 * must be a plain relative path inside the skill folder, in every spelling
 * (as written, URL-decoded, and compatibility-normalized).
 */
import { hasHiddenCharacters } from '../base/hidden-characters.js';

export type PathProblem = 'empty' | 'nul' | 'hidden-characters' | 'absolute' | 'drive' | 'url' | 'parent' | 'encoded' | 'lookalike';

export type PathCheck = { ok: true; path: string } | { ok: false; problem: PathProblem; detail: string };

/** Characters that look like a slash or backslash but are neither; NFKC leaves some of them alone. */
const SLASH_LOOKALIKES = /[\u2044\u2215\u2216\u29f5\u29f8\u29f9\uff0f\uff3c\ufe68]/gu;

/** How many rounds of URL-decoding are tried (`%252e` is `%2e` is `.`). */
const DECODE_ROUNDS = 3;

function structural(path: string): PathCheck {
  if (/^[\\/]/u.test(path)) return { ok: false, problem: 'absolute', detail: 'it is an absolute path' };
  if (/^[a-z]:/iu.test(path)) return { ok: false, problem: 'drive', detail: 'it names a drive (like C:)' };
  if (/^[a-z][a-z0-9+.-]*:\/\//iu.test(path) || /^file:/iu.test(path)) return { ok: false, problem: 'url', detail: 'it is a URL' };
  const kept: string[] = [];
  for (const segment of path.split(/[\\/]/u)) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') return { ok: false, problem: 'parent', detail: 'it uses `..`' };
    kept.push(segment);
  }
  if (kept.length === 0) return { ok: false, problem: 'empty', detail: 'it names the skill folder itself, not a file' };
  return { ok: true, path: kept.join('/') };
}

function decodeOnce(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/**
 * Check `requested` and return it as a clean relative POSIX path (`\` read as
 * `/`, `.` and empty segments dropped), or the problem with it. Pure.
 */
export function checkResourcePath(requested: string): PathCheck {
  const path = requested.trim();
  if (path === '') return { ok: false, problem: 'empty', detail: 'the path is empty' };
  if (path.includes('\0')) return { ok: false, problem: 'nul', detail: 'it holds a NUL byte' };
  if (hasHiddenCharacters(path)) {
    return {
      ok: false,
      problem: 'hidden-characters',
      detail: 'it holds invisible or control characters (such as a right-to-left override)',
    };
  }
  const plain = structural(path);
  if (!plain.ok) return plain;

  // The literal name is what gets looked up; these spellings only catch disguised traversal.
  let decoded = path;
  for (let round = 0; round < DECODE_ROUNDS && /%[0-9a-f]{2}/iu.test(decoded); round++) {
    const next = decodeOnce(decoded);
    if (next === undefined || next === decoded) break;
    decoded = next;
    if (decoded.includes('\0') || !structural(decoded).ok) {
      return {
        ok: false,
        problem: 'encoded',
        detail: 'its URL-decoded form leaves the skill folder (it hides `..`, `/` or `\\` as %-escapes)',
      };
    }
  }
  const lookalike = path.normalize('NFKC').replace(SLASH_LOOKALIKES, '/');
  if (lookalike !== path && !structural(lookalike).ok) {
    return {
      ok: false,
      problem: 'lookalike',
      detail: 'it uses characters that look like `/`, `\\` or `.` (such as a fullwidth ／), read as a path that leaves the skill folder',
    };
  }
  return plain;
}

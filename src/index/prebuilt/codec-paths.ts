/**
 * Paths in an index file: written relative to the file's folder, so an
 * application moved whole (built in CI, run from /var/task) still finds its
 * skills; an index published to a bucket keeps them as they are. Decoding
 * resolves each `../` depth once and appends clean remainders as they are.
 */
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { SKILL_FILE } from '../../base/skill-file.js';
import { isObjectUrl } from '../../base/object-url.js';

/** `sep + SKILL.md`: a skill's SKILL.md path is its folder plus this, sharing the folder's characters. */
export const SKILL_SUFFIX = sep + SKILL_FILE;
export const skillFileIn = (directory: string): string => (directory.endsWith(sep) ? directory + SKILL_FILE : directory + sep + SKILL_FILE);

/**
 * How paths are written into an index bound for `output`: relative to its
 * folder on disk; as they are (absolute, or `s3://`) for an index published
 * to a bucket, whose folder is no place on any machine.
 */
export function pathEncoder(output: string): (path: string) => string {
  if (isObjectUrl(output)) return (path) => path;
  const base = dirname(resolve(output));
  return (path) => encodePath(path, base);
}

/** Where an index was read from: an absolute path, or its `s3://bucket/key` as it is. */
export function indexLocation(file: string): string {
  return isObjectUrl(file) ? file : resolve(file);
}

/** `./a/b` or `../a/b` (always `/`) for an absolute path; anything else (`<options>`, another drive) as it is. */
function encodePath(path: string, base: string): string {
  if (!isAbsolute(path)) return path;
  const rel = relative(base, path);
  if (isAbsolute(rel)) return path;
  const posix = sep === '/' ? rel : rel.split(sep).join('/');
  if (posix === '') return '.';
  return posix.startsWith('../') || posix === '..' ? posix : `./${posix}`;
}

/** Decodes paths for one index file; each `../` depth is resolved once, and clean remainders are appended as they are. */
function pathDecoder(base: string): (path: string) => string {
  const ups: string[] = [base];
  const upTo = (depth: number): string => {
    while (ups.length <= depth) ups.push(dirname(ups[ups.length - 1] ?? base));
    return ups[depth] ?? base;
  };
  return (path) => {
    if (path === '.') return base;
    let rest: string;
    let depth = 0;
    if (path.startsWith('./')) rest = path.slice(2);
    else if (path === '..' || path.startsWith('../')) {
      rest = path;
      while (rest === '..' || rest.startsWith('../')) {
        depth++;
        rest = rest.slice(3);
      }
    } else return path;
    // Anything path.relative would not have written (`.`, `..` or empty segments inside) goes the slow, normalising way.
    if (rest === '' || /(^|\/)\.{0,2}(\/|$)/.test(rest)) return resolve(base, path);
    const folder = upTo(depth);
    const tail = sep === '/' ? rest : rest.split('/').join(sep);
    // join gives one flat string: `+` would give a pair of pieces, which the first look at its
    // characters (the root check) copies flat anyway, keeping the pair as well.
    return folder.endsWith(sep) ? [folder, tail].join('') : [folder, tail].join(sep);
  };
}

/** How paths stored in the index read from `path` (an indexLocation) are decoded: as they are in a published index (see pathEncoder). */
export function pathDecoderFor(path: string): (stored: string) => string {
  return isObjectUrl(path) ? (stored: string) => stored : pathDecoder(dirname(path));
}

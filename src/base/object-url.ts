/**
 * Places in object storage and the paths of the objects under them:
 * `s3://bucket/prefix` (S3 and what speaks it) and `az://container/prefix`
 * (Azure Blob Storage, as fsspec and adlfs write it). Each scheme has its
 * engine in src/storage/engines.ts.
 */

export const S3_SCHEME = 's3://';
export const AZURE_SCHEME = 'az://';

/** A bucket (or container) and a key prefix: `''` (the whole bucket) or ending with `/`. */
export interface BucketPlace {
  bucket: string;
  prefix: string;
  root: string;
}

/** How each scheme names what holds its objects, and the names it allows. */
const CONTAINERS: Readonly<Record<string, { word: string; rule: RegExp; allowed: string; example: string }>> = {
  // S3's rule (MinIO and R2 follow it): 3-63 characters, lowercase letters, digits, dots and hyphens.
  [S3_SCHEME]: {
    word: 'bucket',
    rule: /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/u,
    allowed: '3-63 lowercase letters, digits, dots or hyphens',
    example: 's3://bucket/prefix/',
  },
  // Azure's: 3-63 characters, lowercase letters, digits and hyphens, starting and ending with a letter or digit, no `--`.
  [AZURE_SCHEME]: {
    word: 'container',
    rule: /^(?!.*--)[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/u,
    allowed: '3-63 lowercase letters, digits or single hyphens',
    example: 'az://container/prefix/',
  },
};

/** The storage scheme `path` starts with (`s3://`, `az://`), or undefined for a path on disk. */
export function storageScheme(path: string): string | undefined {
  const end = path.indexOf('://');
  const scheme = end < 0 ? undefined : path.slice(0, end + 3);
  return scheme !== undefined && scheme in CONTAINERS ? scheme : undefined;
}

/** Whether `path` names a place or an object in storage rather than a file on disk. */
export function isObjectUrl(path: string): boolean {
  return storageScheme(path) !== undefined;
}

/** What holds the objects of `url`'s scheme (`bucket`, `container`), and how to write a place of it. */
export function containerOf(url: string): { word: string; example: string } {
  return CONTAINERS[storageScheme(url) ?? S3_SCHEME] ?? { word: 'bucket', example: 's3://bucket/prefix/' };
}

/** The place a storage URL names, or why it names none. A prefix is a folder: `s3://b/skills` and `s3://b/skills/` are the same. */
export function parseObjectUrl(url: string): BucketPlace | { problem: string } {
  const scheme = storageScheme(url);
  const container = scheme === undefined ? undefined : CONTAINERS[scheme];
  if (scheme === undefined || container === undefined) return { problem: 'it is not an s3:// or az:// URL' };
  const rest = url.slice(scheme.length);
  const slash = rest.indexOf('/');
  const bucket = slash < 0 ? rest : rest.slice(0, slash);
  if (!container.rule.test(bucket)) return { problem: `"${bucket}" is not a ${container.word} name (${container.allowed})` };
  const segments = (slash < 0 ? '' : rest.slice(slash + 1)).split('/').filter((segment) => segment !== '');
  if (segments.some((segment) => segment === '.' || segment === '..')) return { problem: 'a prefix cannot hold `.` or `..` segments' };
  const prefix = segments.length === 0 ? '' : `${segments.join('/')}/`;
  return { bucket, prefix, root: prefix === '' ? `${scheme}${bucket}` : `${scheme}${bucket}/${prefix.slice(0, -1)}` };
}

/** The bucket and key of an object's path (`s3://bucket/key`, `az://container/key`). */
export function splitObjectPath(path: string): { bucket: string; key: string } {
  const rest = path.slice((storageScheme(path) ?? '').length);
  const slash = rest.indexOf('/');
  return slash < 0 ? { bucket: rest, key: '' } : { bucket: rest.slice(0, slash), key: rest.slice(slash + 1) };
}

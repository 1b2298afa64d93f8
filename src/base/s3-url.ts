/** `s3://bucket/prefix` places and the paths of the objects under them. */

export const S3_SCHEME = 's3://';

/** A bucket and a key prefix: `''` (the whole bucket) or ending with `/`. */
export interface BucketPlace {
  bucket: string;
  prefix: string;
  /** `s3://bucket/prefix` without a trailing slash: the path of the place as a folder. */
  root: string;
}

export function isS3Url(path: string): boolean {
  return path.startsWith(S3_SCHEME);
}

/** Bucket names as S3 allows them (3-63 characters: lowercase letters, digits, dots, hyphens); MinIO and R2 follow the same rule. */
const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/u;

/** The place an `s3://` URL names, or why it names none. A prefix is a folder: `s3://b/skills` and `s3://b/skills/` are the same. */
export function parseS3Url(url: string): BucketPlace | { problem: string } {
  const rest = url.slice(S3_SCHEME.length);
  const slash = rest.indexOf('/');
  const bucket = slash < 0 ? rest : rest.slice(0, slash);
  if (!BUCKET_NAME.test(bucket)) return { problem: `"${bucket}" is not a bucket name (3-63 lowercase letters, digits, dots or hyphens)` };
  const segments = (slash < 0 ? '' : rest.slice(slash + 1)).split('/').filter((segment) => segment !== '');
  if (segments.some((segment) => segment === '.' || segment === '..')) return { problem: 'a prefix cannot hold `.` or `..` segments' };
  const prefix = segments.length === 0 ? '' : `${segments.join('/')}/`;
  return { bucket, prefix, root: prefix === '' ? `${S3_SCHEME}${bucket}` : `${S3_SCHEME}${bucket}/${prefix.slice(0, -1)}` };
}

/** The bucket and key of an object's path (`s3://bucket/key`). */
export function splitS3Path(path: string): { bucket: string; key: string } {
  const rest = path.slice(S3_SCHEME.length);
  const slash = rest.indexOf('/');
  return slash < 0 ? { bucket: rest, key: '' } : { bucket: rest.slice(0, slash), key: rest.slice(slash + 1) };
}

/** `s3://bucket/key`. */
export function s3Path(bucket: string, key: string): string {
  return `${S3_SCHEME}${bucket}/${key}`;
}

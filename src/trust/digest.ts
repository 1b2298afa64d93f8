/**
 * The hashes a manifest records: SHA-256 of a file's bytes (hex), and the
 * per-skill digest of agentskills.io RFC #358, so our manifests speak the
 * language of the tools that adopt it. Pure functions over bytes.
 *
 * RFC #358: for every file, sorted by relative path, `relpath + 0x00 +
 * sha256(bytes) + 0x0A`, then `"sha256-" + base64url(sha256(all))`. In the
 * RFC's pseudocode `sha256()` yields the raw digest (its last line encodes
 * one explicitly), so each line holds the 32 raw bytes, not their hex; paths
 * are UTF-8 and sorted by their bytes; base64url is unpadded. We apply it to
 * the files a skill serves (SKILL.md and every listed resource).
 */
import * as crypto from 'node:crypto';

/** Node's one-shot hash (20.12+, 21.7+), typed here as the @types/node of Node 20.0 do not declare it. */
type OneShotHash = (algorithm: string, data: Uint8Array | string, outputEncoding: 'hex') => string;
const oneShot = (crypto as { hash?: OneShotHash }).hash;

/**
 * SHA-256 of `bytes` (a string: of its UTF-8 bytes), as 64 lowercase hex characters. Node's one-shot
 * `crypto.hash` where it exists: a scan hashes every SKILL.md head, and a Hash object per call took
 * 2-3 times as long (2,000 heads: 9-12 ms against 2-5 ms, cold).
 */
export function sha256Hex(bytes: Uint8Array | string): string {
  return oneShot ? oneShot('sha256', bytes, 'hex') : crypto.createHash('sha256').update(bytes).digest('hex');
}

/** A string's UTF-16 code unit, moved so that comparing them orders strings by code point (hence by UTF-8 bytes). */
function codePointRank(unit: number): number {
  // Surrogates (D800-DFFF) stand for code points above FFFF: they sort after E000-FFFF.
  if (unit >= 0xe000) return unit - 0x800;
  if (unit >= 0xd800) return unit + 0x2000;
  return unit;
}

/** Order of two strings by code point, which is the order of their UTF-8 bytes (RFC #358 sorts paths by those). */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

/** A file as the digest sees it: its path in the skill (`/`-separated) and the hex SHA-256 of its bytes. */
export interface DigestedFile {
  path: string;
  sha256: string;
}

/** The RFC #358 digest of a skill's files (any order given; duplicates are the caller's to refuse). */
export function skillDigest(files: readonly DigestedFile[]): string {
  const sorted = [...files].sort((a, b) => compareCodePoints(a.path, b.path));
  const hash = crypto.createHash('sha256');
  const separator = Buffer.of(0);
  const newline = Buffer.of(0x0a);
  for (const file of sorted)
    hash.update(Buffer.from(file.path, 'utf8')).update(separator).update(Buffer.from(file.sha256, 'hex')).update(newline);
  return `sha256-${hash.digest('base64url')}`;
}

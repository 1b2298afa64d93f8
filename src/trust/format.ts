/**
 * The signed manifest's format name and the limits a manifest is held to
 * before anything in it is believed. A leaf: the numbers, and why each.
 */

/** The `format` field of a manifest this package reads and writes; another value is refused. */
export const MANIFEST_FORMAT = 'sisu-skills-manifest/1';

/**
 * Largest manifest read, in bytes, checked before it is parsed. A manifest
 * lists about 100 bytes per file: the bench's 2,000 real-shaped skills
 * (11,893 files) make 1.3 MB, 20,000 make 13 MB; 32 MB holds 2.5 times that.
 */
export const MAX_MANIFEST_BYTES = 32 * 1024 * 1024;

/** Most signatures one manifest carries: room for every key of a rotation, and a bound on the verifying work. */
export const MAX_SIGNATURES = 16;

/** Longest path of a skill or file in a manifest, in characters (S3 keys stop at 1,024 bytes). */
export const MAX_PATH_CHARS = 1024;

/** Most files one skill lists (a real skill has a few dozen; discovery lists 8 folder levels deep). */
export const MAX_FILES_PER_SKILL = 100_000;

/** Hex characters of a hash shown in a message: enough to tell two apart at a glance. */
export const HASH_PREFIX_CHARS = 12;

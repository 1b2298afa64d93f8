/**
 * What differs between a place as signed and as it is: every mismatch, for
 * `sisu-skills verify` to list and for the middleware to refuse. Pure: the
 * caller observes the place (files, sizes, hashes, SKILL.md heads).
 */
import { compareCodePoints, skillDigest } from './digest.js';
import { HASH_PREFIX_CHARS } from './format.js';
import type { ManifestBody, ManifestFile, ManifestSkill } from './manifest.js';
import type { ObservedSkill } from './sign.js';

export type MismatchKind =
  /** A skill folder the manifest does not list (added, or renamed, after signing). */
  | 'unlisted-skill'
  /** A skill the manifest lists that the place no longer holds. */
  | 'missing-skill'
  /** SKILL.md's head differs from the one signed. */
  | 'frontmatter'
  /** A file the skill serves that the manifest does not list. */
  | 'added'
  /** A file the manifest lists that the skill no longer serves. */
  | 'removed'
  /** A file whose bytes differ from the ones signed. */
  | 'changed'
  /** The manifest's RFC #358 digest does not match its own file list (a signer's fault, not the place's). */
  | 'digest';

export interface Mismatch {
  kind: MismatchKind;
  /** The skill's path in the place. */
  skill: string;
  file?: string;
  /** Hex hashes (or digests), when there are two to compare. */
  expected?: string;
  actual?: string;
  /** Sizes in bytes, when a file changed. */
  expectedSize?: number;
  actualSize?: number;
}

/** A hash as messages show it. */
export function hashPrefix(hash: string): string {
  const bare = hash.startsWith('sha256-') ? hash.slice('sha256-'.length) : hash;
  return `${bare.slice(0, HASH_PREFIX_CHARS)}…`;
}

/** Every difference between a skill's manifest entry and the skill as observed. */
export function compareSkill(entry: ManifestSkill, observed: ObservedSkill): Mismatch[] {
  const skill = entry.path;
  const found: Mismatch[] = [];
  if (skillDigest(entry.files.map(([path, , sha256]) => ({ path, sha256 }))) !== entry.digest)
    found.push({ kind: 'digest', skill, expected: entry.digest });
  if (observed.frontmatter !== entry.frontmatter)
    found.push({ kind: 'frontmatter', skill, file: 'SKILL.md', expected: entry.frontmatter, actual: observed.frontmatter });
  const signed = new Map<string, ManifestFile>(entry.files.map((file) => [file[0], file]));
  const seen = new Set<string>();
  for (const file of observed.files) {
    seen.add(file.path);
    const listed = signed.get(file.path);
    if (!listed) found.push({ kind: 'added', skill, file: file.path, actual: file.sha256 });
    else if (listed[2] !== file.sha256)
      found.push({
        kind: 'changed',
        skill,
        file: file.path,
        expected: listed[2],
        actual: file.sha256,
        expectedSize: listed[1],
        actualSize: file.size,
      });
  }
  for (const [path, , sha256] of entry.files) if (!seen.has(path)) found.push({ kind: 'removed', skill, file: path, expected: sha256 });
  return found.sort((a, b) => compareCodePoints(a.file ?? '', b.file ?? ''));
}

/** Every difference between a place's manifest and the skills observed there, skill by skill in path order. */
export function compareLibrary(body: ManifestBody, observed: readonly ObservedSkill[]): Mismatch[] {
  const entries = new Map(body.skills.map((entry) => [entry.path, entry]));
  const found: Mismatch[] = [];
  const seen = new Set<string>();
  for (const skill of observed) {
    seen.add(skill.path);
    const entry = entries.get(skill.path);
    if (entry) found.push(...compareSkill(entry, skill));
    else found.push({ kind: 'unlisted-skill', skill: skill.path });
  }
  for (const entry of body.skills) if (!seen.has(entry.path)) found.push({ kind: 'missing-skill', skill: entry.path });
  return found.sort((a, b) => compareCodePoints(a.skill, b.skill));
}

function sizes(mismatch: Mismatch): string {
  if (mismatch.expectedSize === undefined || mismatch.actualSize === undefined || mismatch.expectedSize === mismatch.actualSize) return '';
  return `; ${mismatch.expectedSize} bytes signed, ${mismatch.actualSize} now`;
}

/** One line saying what differs and what to do, hash prefixes included. */
export function mismatchMessage(mismatch: Mismatch): string {
  const skill = `skill folder "${mismatch.skill}"`;
  const hashes = `expected sha256 ${hashPrefix(mismatch.expected ?? '')}, got ${hashPrefix(mismatch.actual ?? '')}`;
  const again = 'Sign the place again if the change is yours.';
  switch (mismatch.kind) {
    case 'unlisted-skill':
      return `${skill} is not in the signed manifest (added or renamed after signing): it is not served. ${again}`;
    case 'missing-skill':
      return `${skill} is in the signed manifest but not in the place (removed or renamed after signing). ${again}`;
    case 'frontmatter':
      return `${skill}: SKILL.md's frontmatter changed after signing (${hashes}). ${again}`;
    case 'added':
      return `${skill}: "${mismatch.file}" was added after signing; it is not in the manifest and is not served. ${again}`;
    case 'removed':
      return `${skill}: "${mismatch.file}" is in the signed manifest but missing. ${again}`;
    case 'changed':
      return `${skill}: "${mismatch.file}" changed after signing (${hashes}${sizes(mismatch)}). ${again}`;
    case 'digest':
      return (
        `${skill}: the manifest's RFC #358 digest ${hashPrefix(mismatch.expected ?? '')} does not match its own file list: ` +
        'the signer is at fault. Sign the place again.'
      );
  }
}

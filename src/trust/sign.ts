/**
 * Making a manifest: the body from what a place holds (the CLI observes
 * it), and the decision `sisu-skills sign` takes against the
 * manifest already there. Same content still valid and signed by others:
 * add this key's signature to those bytes, untouched, so several keys can
 * sign one version (threshold). Anything else: a new version (one more than
 * the one it replaces), signed by this key alone, the others listed as
 * dropped so they know to sign again.
 */
import { sign } from 'node:crypto';
import { compareCodePoints, skillDigest } from './digest.js';
import { MANIFEST_FORMAT } from './format.js';
import type { SigningKey } from './keys.js';
import {
  serializeBody,
  serializeManifest,
  type ManifestBody,
  type ManifestSignature,
  type ManifestSkill,
  type ParsedManifest,
} from './manifest.js';

/** A file as read from a place now. */
export interface ObservedFile {
  /** In the skill folder, `/`-separated. */
  path: string;
  size: number;
  /** Hex SHA-256 of its bytes. */
  sha256: string;
}

/** A skill as read from a place now. */
export interface ObservedSkill {
  /** The skill folder relative to the place's root (`.` when the place is the skill). */
  path: string;
  /** Hex SHA-256 of SKILL.md's head (discover/head.ts's headByteLength). */
  frontmatter: string;
  files: readonly ObservedFile[];
}

/** The manifest entry of an observed skill: its files sorted, its RFC #358 digest computed. */
export function manifestSkillOf(skill: ObservedSkill): ManifestSkill {
  const files = [...skill.files].sort((a, b) => compareCodePoints(a.path, b.path));
  return {
    path: skill.path,
    digest: skillDigest(files),
    frontmatter: skill.frontmatter,
    files: files.map((file): readonly [string, number, string] => [file.path, file.size, file.sha256]),
  };
}

/** The entries of `skills`, sorted by path. */
export function manifestSkills(skills: readonly ObservedSkill[]): ManifestSkill[] {
  return skills.map(manifestSkillOf).sort((a, b) => compareCodePoints(a.path, b.path));
}

/** `key`'s signature of a manifest body. */
export function signBody(bodyText: string, key: SigningKey): ManifestSignature {
  return { keyid: key.id, sig: sign(null, Buffer.from(bodyText, 'utf8'), key.key).toString('base64') };
}

/** What was there before signing. */
export type ExistingManifest = { kind: 'none' } | { kind: 'unreadable'; message: string } | { kind: 'manifest'; manifest: ParsedManifest };

export interface SignRequest {
  /** Sorted (manifestSkills). */
  skills: readonly ManifestSkill[];
  key: SigningKey;
  /** ms since the epoch. */
  now: number;
  /** How long a new version stays valid, in ms. */
  expiresInMs: number;
  /** An explicit version for a new body (must be above the one there). */
  version?: number;
  /** A new version even when the content is unchanged (to push the expiry back). */
  renew: boolean;
}

export interface SignOutcome {
  /** The file to write. */
  text: string;
  version: number;
  expires: string;
  /** This key's signature was added to the body already there, whose bytes are kept. */
  added: boolean;
  /** Key ids whose signatures there were not carried over (they signed an older version). */
  dropped: string[];
  signatures: number;
}

/** The skills' lines of a body: what "the same content" compares. */
function contentOf(skills: readonly ManifestSkill[]): string {
  const body = serializeBody({ format: MANIFEST_FORMAT, version: 1, created: '', expires: '', skills });
  return body.slice(body.indexOf('\n'));
}

/** The manifest to write over `existing`, or the problem that stops signing. */
export function signManifest(existing: ExistingManifest, request: SignRequest): SignOutcome | { problem: string } {
  const previous = existing.kind === 'manifest' ? existing.manifest : undefined;
  if (existing.kind === 'unreadable' && request.version === undefined) {
    return {
      problem:
        `the manifest there cannot be read (${existing.message}), so its version is unknown. Pass --version with a number above ` +
        'the last version you published (processes refuse a lower one), or restore the manifest.',
    };
  }
  if (previous && request.version !== undefined && request.version <= previous.body.version) {
    return {
      problem: `--version ${request.version} is not above the version there (${previous.body.version}); processes would refuse it.`,
    };
  }
  const others = previous ? previous.signatures.filter((s) => s.keyid !== request.key.id) : [];
  const addable =
    previous !== undefined &&
    others.length > 0 &&
    !request.renew &&
    request.version === undefined &&
    request.now < previous.expiresAt &&
    contentOf(previous.body.skills) === contentOf(request.skills);
  if (addable) {
    const signatures = [...others, signBody(previous.bodyText, request.key)];
    const text = serializeManifest(previous.bodyText, signatures);
    return {
      text,
      version: previous.body.version,
      expires: previous.body.expires,
      added: true,
      dropped: [],
      signatures: signatures.length,
    };
  }
  const body: ManifestBody = {
    format: MANIFEST_FORMAT,
    version: request.version ?? (previous ? previous.body.version + 1 : 1),
    created: new Date(request.now).toISOString(),
    expires: new Date(request.now + request.expiresInMs).toISOString(),
    skills: request.skills,
  };
  const bodyText = serializeBody(body);
  return {
    text: serializeManifest(bodyText, [signBody(bodyText, request.key)]),
    version: body.version,
    expires: body.expires,
    added: false,
    dropped: others.map((s) => s.keyid),
    signatures: 1,
  };
}

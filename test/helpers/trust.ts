/**
 * What the trust suites share: key pairs made once per worker, skills as the
 * CLI observes them (files hashed from their text), and signed manifests
 * built from them with the real signing code.
 */
import { createHash } from 'node:crypto';
import { readPrivateKey, readPublicKey, generateSigningKeys, type SigningKey, type TrustedKey } from '../../src/trust/keys.js';
import { manifestSkills, signManifest, type ObservedSkill } from '../../src/trust/sign.js';

export interface TestKeyPair {
  privatePem: string;
  publicPem: string;
  id: string;
  signing: SigningKey;
  trusted: TrustedKey;
}

function pairFrom(made: { privatePem: string; publicPem: string; id: string }): TestKeyPair {
  const signing = readPrivateKey(made.privatePem);
  const trusted = readPublicKey(made.publicPem);
  if (!signing.ok || !trusted.ok) throw new Error('a generated key did not read back');
  return { ...made, signing: signing.key, trusted: trusted.key };
}

const pairs: TestKeyPair[] = [];

/** The `n`th key pair of this worker (made on first use; Ed25519 generation is fast, but sharing keeps tests quick). */
export function keyPair(n = 0): TestKeyPair {
  while (pairs.length <= n) pairs.push(pairFrom(generateSigningKeys()));
  const pair = pairs[n];
  if (!pair) throw new Error('unreachable');
  return pair;
}

export const hex = (text: string | Uint8Array): string => createHash('sha256').update(text).digest('hex');

/** A skill observed with these files' texts (SKILL.md's whole text stands for its head unless `head` is given). */
export function observed(path: string, files: Record<string, string>, head?: string): ObservedSkill {
  return {
    path,
    frontmatter: hex(head ?? files['SKILL.md'] ?? ''),
    files: Object.entries(files).map(([file, text]) => ({ path: file, size: Buffer.byteLength(text), sha256: hex(text) })),
  };
}

/** A manifest text over `skills`, signed by `pair`, valid from `now` for `days`. */
export function signedManifest(
  skills: readonly ObservedSkill[],
  options: { pair?: TestKeyPair; now?: number; days?: number; version?: number } = {},
): string {
  const outcome = signManifest(
    { kind: 'none' },
    {
      skills: manifestSkills(skills),
      key: (options.pair ?? keyPair()).signing,
      now: options.now ?? Date.UTC(2026, 0, 1),
      expiresInMs: (options.days ?? 30) * 86_400_000,
      renew: false,
      ...(options.version === undefined ? {} : { version: options.version }),
    },
  );
  if ('problem' in outcome) throw new Error(outcome.problem);
  return outcome.text;
}

/**
 * What a bucket skill's refused local copy says (copy-write.ts): the skill,
 * the file (a pattern; any by default), the signed and the read hash prefixes.
 */
export function refusedCopy(skill: string, file = '.*'): RegExp {
  const hashes = String.raw`\(expected sha256 [0-9a-f]{12}…, read [0-9a-f]{12}…\)`;
  return new RegExp(
    `cannot copy skill "${skill}" to the local disk: ${file}: it is not the file its publisher signed ${hashes}, ` +
      'so nothing of this version was written or is used',
  );
}

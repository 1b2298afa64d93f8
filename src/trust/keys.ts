/**
 * Ed25519 keys, with Node's own crypto: made (PKCS#8 PEM for the private
 * key, SPKI PEM for the public one), read back, and named by a key id (the
 * hex SHA-256 of the public key's SPKI bytes). Reading never throws: a key
 * that cannot serve comes back as a problem and a hint, which the CLI shows
 * as a usage error and the middleware as a configuration error.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { sha256Hex } from './digest.js';

/** A public key trusted to sign manifests. */
export interface TrustedKey {
  id: string;
  key: KeyObject;
}

/** A private key that signs, with the id of its public half. */
export interface SigningKey {
  id: string;
  key: KeyObject;
}

/** Why a PEM cannot serve where it was given, and what to do instead. */
export interface KeyProblem {
  problem: string;
  hint: string;
}

export type KeyRead<T> = { ok: true; key: T } | ({ ok: false } & KeyProblem);

const PRIVATE_PEM = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/;
const PUBLIC_PEM = /-----BEGIN PUBLIC KEY-----/;
const KEYGEN_HINT = 'Make an Ed25519 pair with `sisu-skills keygen <prefix>`.';

/** The id of a public key: hex SHA-256 of its SPKI (DER) bytes. */
export function keyIdOf(publicKey: KeyObject): string {
  return sha256Hex(publicKey.export({ type: 'spki', format: 'der' }));
}

/** A new Ed25519 pair as PEM text, with its key id. */
export function generateSigningKeys(): { privatePem: string; publicPem: string; id: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    id: keyIdOf(publicKey),
  };
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function notEd25519(key: KeyObject): KeyRead<never> {
  const kind = key.asymmetricKeyType === undefined ? 'not an asymmetric key' : `an ${key.asymmetricKeyType.toUpperCase()} key`;
  return {
    ok: false,
    problem: `is ${kind}; manifests are signed with Ed25519 keys only`,
    hint: KEYGEN_HINT,
  };
}

/** A public key to trust, from SPKI PEM text. A private key is refused: one never belongs where keys are trusted. */
export function readPublicKey(pem: string): KeyRead<TrustedKey> {
  if (PRIVATE_PEM.test(pem)) {
    return {
      ok: false,
      problem: 'is a private key, where a public key belongs',
      hint:
        'Give the public key (the .pub file `sisu-skills keygen` wrote beside it). A private key must never reach ' +
        'the processes that verify: treat this one as exposed, make a new pair, sign again and trust the new .pub.',
    };
  }
  let key: KeyObject;
  try {
    key = createPublicKey({ key: pem, format: 'pem' });
  } catch (error) {
    return {
      ok: false,
      problem: `is not a PEM public key (${reason(error)})`,
      hint: `Give an SPKI PEM ("-----BEGIN PUBLIC KEY-----"). ${KEYGEN_HINT}`,
    };
  }
  if (key.asymmetricKeyType !== 'ed25519') return notEd25519(key);
  return { ok: true, key: { id: keyIdOf(key), key } };
}

/** A key to sign with, from PKCS#8 PEM text (unencrypted, as `sisu-skills keygen` writes it). */
export function readPrivateKey(pem: string): KeyRead<SigningKey> {
  if (PUBLIC_PEM.test(pem) && !PRIVATE_PEM.test(pem)) {
    return {
      ok: false,
      problem: 'is a public key; signing needs the private key',
      hint: 'Give the .key file `sisu-skills keygen` wrote beside the .pub (keep it in your CI secret store).',
    };
  }
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pem, format: 'pem' });
  } catch (error) {
    return {
      ok: false,
      problem: `is not an unencrypted PEM private key (${reason(error)})`,
      hint: `Give the PKCS#8 PEM ("-----BEGIN PRIVATE KEY-----") that keygen wrote. ${KEYGEN_HINT}`,
    };
  }
  if (key.asymmetricKeyType !== 'ed25519') return notEd25519(key);
  return { ok: true, key: { id: keyIdOf(createPublicKey(key)), key } };
}

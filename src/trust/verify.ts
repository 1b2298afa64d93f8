/**
 * Whether a manifest may be believed: enough distinct trusted keys signed
 * its exact body (threshold), and it has not expired by `now` (a clock the
 * caller passes, so tests can move it). Signatures are checked before
 * expiry: an unsigned manifest is invalid, whatever its dates say.
 */
import { verify } from 'node:crypto';
import { HASH_PREFIX_CHARS } from './format.js';
import type { TrustedKey } from './keys.js';
import { parseManifest, type ManifestRead, type ManifestSignature, type ParsedManifest } from './manifest.js';

export interface TrustPolicy {
  keys: readonly TrustedKey[];
  /** Distinct trusted keys that must have signed; at least 1. */
  threshold: number;
  /** ms since the epoch. */
  now: number;
}

/** A key id as messages show it. */
export function shortKeyId(id: string): string {
  return id.slice(0, HASH_PREFIX_CHARS);
}

/** Who signed some bytes: the trusted keys (ids, sorted, each once) whose signatures verify, and the signatures that fail or name no trusted key. */
export interface Signers {
  trusted: string[];
  unknown: string[];
  bad: string[];
}

/** The signers of `signed` (a manifest's body, a sealed index's statement) among `signatures`, by `keys`. */
export function signersOfBytes(signed: Uint8Array, signatures: readonly ManifestSignature[], keys: readonly TrustedKey[]): Signers {
  return tally(
    signatures,
    eachSignature(signatures, keys, (key, sig) => verify(null, signed, key.key, sig)),
  );
}

/** `check` of each signature with the trusted key it names; undefined for a signature that names none. */
function eachSignature<T>(
  signatures: readonly ManifestSignature[],
  keys: readonly TrustedKey[],
  check: (key: TrustedKey, sig: Buffer) => T,
): Array<T | undefined> {
  const byId = new Map(keys.map((key) => [key.id, key]));
  return signatures.map((signature) => {
    const key = byId.get(signature.keyid);
    return key ? check(key, Buffer.from(signature.sig, 'base64')) : undefined;
  });
}

/**
 * signersOfBytes with each signature checked on libuv's threadpool (crypto.verify's callback form), so
 * that the caller's thread goes on meanwhile: at 20,000 skills the 12.6 MB body took 12 ms of it.
 */
export async function signersOfBytesOffThread(
  signed: Uint8Array,
  signatures: readonly ManifestSignature[],
  keys: readonly TrustedKey[],
): Promise<Signers> {
  const checking = eachSignature(
    signatures,
    keys,
    (key, sig) =>
      new Promise<boolean>((resolve, reject) => verify(null, signed, key.key, sig, (error, ok) => (error ? reject(error) : resolve(ok)))),
  );
  return tally(signatures, await Promise.all(checking));
}

/** Signers from each signature's check: true or false by the trusted key it names, undefined when it names none. */
function tally(signatures: readonly ManifestSignature[], checked: ReadonlyArray<boolean | undefined>): Signers {
  const trusted = new Set<string>();
  const unknown: string[] = [];
  const bad: string[] = [];
  signatures.forEach(({ keyid }, i) => {
    const ok = checked[i];
    if (ok === undefined) unknown.push(keyid);
    else if (ok) trusted.add(keyid);
    else bad.push(keyid);
  });
  return { trusted: [...trusted].sort(), unknown, bad };
}

/** The signers of a manifest's body. */
export function signersOf(manifest: ParsedManifest, keys: readonly TrustedKey[]): Signers {
  // Read as bytes, the body is checked as read; a text is encoded once (the bytes it was read from).
  return signersOfBytes(manifest.bodyBytes ?? Buffer.from(manifest.bodyText, 'utf8'), manifest.signatures, keys);
}

function ids(list: readonly string[]): string {
  return list.map(shortKeyId).join(', ');
}

/** The signature check alone: at least `threshold` distinct trusted keys signed the body. */
export function checkSignatures(manifest: ParsedManifest, keys: readonly TrustedKey[], threshold: number): ManifestRead {
  return checkSigners(manifest, signersOf(manifest, keys), threshold);
}

/** checkSignatures from the signers already found (signersOfBytesOffThread). */
export function checkSigners(manifest: ParsedManifest, { trusted, unknown, bad }: Signers, threshold: number): ManifestRead {
  if (trusted.length >= threshold) return { ok: true, manifest };
  const found = [
    ...(bad.length > 0 ? [`a signature by trusted key ${ids(bad)} does not match its content (changed after signing)`] : []),
    ...(unknown.length > 0 ? [`signed by key ${ids(unknown)}, which is not trusted`] : []),
  ].join('; ');
  const have =
    trusted.length === 0 ? 'no trusted key' : `${trusted.length} trusted key${trusted.length === 1 ? '' : 's'} (${ids(trusted)})`;
  const fix =
    trusted.length === 0
      ? 'Trust the public key that signs your library (`trust.keys`), or sign the place with a trusted key (`sisu-skills sign`).'
      : `Add a signature by another trusted key (\`sisu-skills sign <place> --key <other.key>\`).`;
  return {
    ok: false,
    code: 'MANIFEST_INVALID',
    message: `is signed by ${have}, fewer than the ${threshold} required${found ? ` (${found})` : ''}. ${fix}`,
  };
}

/** Parse, then check the signatures and the expiry. */
export function verifyManifest(input: string | Uint8Array, policy: TrustPolicy): ManifestRead {
  const parsed = parseManifest(input);
  if (!parsed.ok) return parsed;
  const signed = checkSignatures(parsed.manifest, policy.keys, policy.threshold);
  if (!signed.ok) return signed;
  return checkExpiry(parsed.manifest, policy.now);
}

/** MANIFEST_EXPIRED from `expires` on. */
export function checkExpiry(manifest: ParsedManifest, now: number): ManifestRead {
  if (now < manifest.expiresAt) return { ok: true, manifest };
  return {
    ok: false,
    code: 'MANIFEST_EXPIRED',
    message:
      // No clock reading in the text: the same expired manifest reads the same each time (and is reported once).
      `expired at ${manifest.body.expires} (version ${manifest.body.version}). ` +
      'Sign the place again (`sisu-skills sign <place> --key <file> --expires 30d`); a scheduled CI job keeps it fresh.',
  };
}

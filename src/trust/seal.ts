/**
 * A prebuilt index under `trust`: sealed by the publisher's keys, so a fleet
 * that starts from it verifies with no extra request. `sisu-skills index
 * --key` appends two members to the index document (which stays one JSON
 * document):
 *
 *     …the index, as it is written without a seal…,
 *       "trust": {"statement":{…},"signatures":[…]},
 *       "manifests": {"<place>":"<its skills.manifest.json, verbatim>",…}
 *     }
 *
 * The statement names the SHA-256 of the index's text before the seal, and
 * for each place its manifest's version, expiry and SHA-256; the signatures
 * are over the statement's exact text. So the first request checks one hash
 * of the index and a small signature; a place's manifest is parsed (checked
 * against its hash) when one of its skills is first activated.
 */
import { createHash, sign, verify } from 'node:crypto';
import type { SigningKey, TrustedKey } from './keys.js';
import type { ManifestSignature, ParsedManifest } from './manifest.js';
import { sha256Hex } from './digest.js';
import { shortKeyId } from './verify.js';

export const SEAL_FORMAT = 'sisu-skills-index-trust/1';

/** A place's manifest as the seal names it. */
export interface SealedPlace {
  /** As the index stores paths (encoded). */
  place: string;
  version: number;
  expires: string;
  /** Hex SHA-256 of the manifest's text. */
  manifest: string;
}

export interface SealStatement {
  format: typeof SEAL_FORMAT;
  /** Hex SHA-256 of the index's text before the seal (ASCII, as the builder writes it). */
  index: string;
  places: SealedPlace[];
}

const TRUST = ',\n  "trust": {"statement":';
const SIGNATURES = ',"signatures":';
const MANIFESTS = '},\n  "manifests": ';
const END = '\n}';

/** A sealed index taken apart (nothing parsed but the statement and the signatures). */
export interface OpenedSeal {
  /** The index document as it was written before the seal. */
  indexText: string;
  /** Its text up to its closing brace: what the statement's `index` hashes. */
  bodyText: string;
  /** The statement's exact text, which the signatures sign. */
  statementText: string;
  statement: SealStatement;
  signatures: ManifestSignature[];
  /** The manifests' member, parsed when a place's manifest is first needed. */
  manifestsText: string;
}

/** Seal `indexText` (an index document ending in `\n}\n`) with `places`' manifests, signed by `keys`. */
export function sealIndex(
  indexText: string,
  places: ReadonlyArray<{ place: string; text: string; manifest: ParsedManifest }>,
  keys: readonly SigningKey[],
): string {
  const body = indexText.replace(/\n\}\n?$/u, '');
  const statement: SealStatement = {
    format: SEAL_FORMAT,
    index: indexHash(body),
    places: places.map(({ place, text, manifest }) => ({
      place,
      version: manifest.body.version,
      expires: manifest.body.expires,
      manifest: sha256Hex(Buffer.from(text, 'utf8')),
    })),
  };
  const statementText = asciiJson(JSON.stringify(statement));
  const signatures = keys.map((key) => ({
    keyid: key.id,
    sig: sign(null, Buffer.from(statementText, 'latin1'), key.key).toString('base64'),
  }));
  const manifests = asciiJson(JSON.stringify(Object.fromEntries(places.map(({ place, text }) => [place, text]))));
  return `${body}${TRUST}${statementText}${SIGNATURES}${JSON.stringify(signatures)}${MANIFESTS}${manifests}${END}\n`;
}

/** SHA-256 of the index's text as written (ASCII: one byte a character). */
function indexHash(text: string): string {
  return createHash('sha256').update(text, 'latin1').digest('hex');
}

/** JSON with every character past ASCII escaped, as the index itself is written (one byte a character). */
function asciiJson(text: string): string {
  return text.replace(/[\u0080-\uffff]/gu, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** `text` taken apart: undefined when it carries no seal, a problem when the seal is not in its layout. */
export function openSeal(text: string): OpenedSeal | undefined | { problem: string } {
  const at = text.indexOf(TRUST);
  if (at < 0) return undefined;
  const body = text.slice(0, at);
  const signaturesAt = text.indexOf(SIGNATURES, at);
  const manifestsAt = signaturesAt < 0 ? -1 : text.indexOf(MANIFESTS, signaturesAt);
  const end = text.endsWith(`${END}\n`) ? text.length - END.length - 1 : text.endsWith(END) ? text.length - END.length : -1;
  if (signaturesAt < 0 || manifestsAt < 0 || end < manifestsAt)
    return { problem: 'its seal is not in the layout `sisu-skills index --key` writes' };
  const statementText = text.slice(at + TRUST.length, signaturesAt);
  const parsed = parseParts(statementText, text.slice(signaturesAt + SIGNATURES.length, manifestsAt));
  if ('problem' in parsed) return parsed;
  return {
    indexText: `${body}\n}\n`,
    bodyText: body,
    statementText,
    statement: parsed.statement,
    signatures: parsed.signatures,
    manifestsText: text.slice(manifestsAt + MANIFESTS.length, end),
  };
}

function parseParts(
  statementText: string,
  signaturesText: string,
): { statement: SealStatement; signatures: ManifestSignature[] } | { problem: string } {
  let statement: unknown;
  let signatures: unknown;
  try {
    statement = JSON.parse(statementText);
    signatures = JSON.parse(signaturesText);
  } catch (error) {
    return { problem: `its seal is not JSON (${error instanceof Error ? error.message : String(error)})` };
  }
  if (!isStatement(statement)) return { problem: `its seal's statement is not a ${SEAL_FORMAT} statement` };
  if (!Array.isArray(signatures) || !signatures.every(isSignature))
    return { problem: "its seal's signatures are not { keyid, sig } entries" };
  return { statement, signatures };
}

const HEX = /^[0-9a-f]{64}$/u;

function isStatement(value: unknown): value is SealStatement {
  if (typeof value !== 'object' || value === null) return false;
  const { format, index, places } = value as Record<string, unknown>;
  return format === SEAL_FORMAT && typeof index === 'string' && HEX.test(index) && Array.isArray(places) && places.every(isSealedPlace);
}

function isSealedPlace(value: unknown): value is SealedPlace {
  if (typeof value !== 'object' || value === null) return false;
  const { place, version, expires, manifest } = value as Record<string, unknown>;
  return (
    typeof place === 'string' &&
    place !== '' &&
    typeof version === 'number' &&
    Number.isSafeInteger(version) &&
    version >= 1 &&
    typeof expires === 'string' &&
    !Number.isNaN(Date.parse(expires)) &&
    typeof manifest === 'string' &&
    HEX.test(manifest)
  );
}

function isSignature(value: unknown): value is ManifestSignature {
  if (typeof value !== 'object' || value === null) return false;
  const { keyid, sig } = value as Record<string, unknown>;
  return typeof keyid === 'string' && typeof sig === 'string';
}

/** The seal checked: the index's text is the one stated, and at least `threshold` distinct trusted keys signed the statement. */
export function checkSeal(opened: OpenedSeal, keys: readonly TrustedKey[], threshold: number): string | undefined {
  if (indexHash(opened.bodyText) !== opened.statement.index)
    return 'was changed after it was sealed: its text does not hash to the one its seal states';
  const byId = new Map(keys.map((key) => [key.id, key]));
  const statement = Buffer.from(opened.statementText, 'latin1');
  const signers = new Set<string>();
  for (const { keyid, sig } of opened.signatures) {
    const key = byId.get(keyid);
    if (key && verify(null, statement, key.key, Buffer.from(sig, 'base64'))) signers.add(keyid);
  }
  if (signers.size >= threshold) return undefined;
  const by = opened.signatures.map((s) => shortKeyId(s.keyid)).join(', ') || 'no key';
  return `is sealed by ${signers.size} trusted key${signers.size === 1 ? '' : 's'} (signatures by ${by}), fewer than the ${threshold} required`;
}

/** The sealed places' manifest texts, each checked against the hash its seal states (undefined: missing or not the one sealed). */
export function sealedManifests(opened: OpenedSeal): Map<string, string> {
  let member: unknown;
  try {
    member = JSON.parse(opened.manifestsText);
  } catch {
    return new Map();
  }
  const texts = new Map<string, string>();
  if (typeof member !== 'object' || member === null) return texts;
  for (const place of opened.statement.places) {
    const text = (member as Record<string, unknown>)[place.place];
    if (typeof text === 'string' && sha256Hex(Buffer.from(text, 'utf8')) === place.manifest) texts.set(place.place, text);
  }
  return texts;
}

/**
 * A prebuilt index under `trust`: sealed by the publisher's keys, so a fleet
 * that starts from it verifies with no extra request. `sisu-skills index
 * --key` writes the places' manifests into the index's `manifests` section
 * (`manifestsSection`: JSON `{"<place>": "<its skills.manifest.json,
 * verbatim>", …}`) and appends a seal after the index's last byte:
 *
 *     …the index (format 3), every section included…
 *     <statement: JSON, ASCII>\n
 *     <signatures: JSON [{ keyid, sig }]>\n
 *     <statement's length: 4 bytes LE><signatures' length: 4 bytes LE>SKSEAL01
 *
 * The statement names the SHA-256 of the index's bytes before the seal but
 * for the `manifests` section's own (the caller says where they lie), and for
 * each place its manifest's version, expiry and SHA-256; the signatures are
 * over the statement's exact bytes. So the first request checks one hash of
 * the index without its manifests (at 20,000 skills 1.1 of 5.7 MB: each
 * manifest has its own hash, checked when it is used) and a small signature;
 * a place's manifest is parsed (checked against its hash) when one of its
 * skills is first activated. A reader without `trust` reads the index and
 * ignores the seal after it.
 */
import { Buffer } from 'node:buffer';
import { createHash, sign } from 'node:crypto';
import type { SigningKey, TrustedKey } from './keys.js';
import type { ManifestSignature, ParsedManifest } from './manifest.js';
import { sha256Hex } from './digest.js';
import { shortKeyId, signersOfBytes } from './verify.js';

/**
 * The statement's format. /2 hashed every byte before the seal, the carried manifests too (most of a
 * sealed index); /1 was the seal of the JSON index (formats 1 and 2), which hashed its text.
 */
export const SEAL_FORMAT = 'sisu-skills-index-trust/3';
/** The seal's last bytes: what tells a sealed index from one without. */
const SEAL_MAGIC = Buffer.from('SKSEAL01', 'latin1');
/** The two lengths and the magic. */
const FOOTER_BYTES = 8 + SEAL_MAGIC.length;
/** One entry per place, and a signature per key: far under these. A seal that claims more is not one `index --key` wrote. */
const MAX_STATEMENT_BYTES = 4 << 20;
const MAX_SIGNATURES_BYTES = 1 << 20;
const NEWLINE = 0x0a;

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
  /** Hex SHA-256 of the index's bytes before the seal, but for the carried manifests' (`indexSha256`). */
  index: string;
  places: SealedPlace[];
}

/** A sealed index taken apart (nothing parsed but the statement and the signatures). */
export interface OpenedSeal {
  /** The index's bytes before the seal: what the statement's `index` hashes, and what the index reader reads. */
  indexBytes: Uint8Array;
  /** The statement's exact bytes, which the signatures sign. */
  statementBytes: Uint8Array;
  statement: SealStatement;
  signatures: ManifestSignature[];
}

/** A place the build accepted, with its manifest's text as read. */
export interface PlaceToSeal {
  place: string;
  text: string;
  manifest: ParsedManifest;
}

/** The `manifests` section's bytes: each place's manifest text, verbatim, by place (ASCII JSON). */
export function manifestsSection(places: readonly PlaceToSeal[]): Uint8Array {
  return asciiBytes(JSON.stringify(Object.fromEntries(places.map(({ place, text }) => [place, text]))));
}

/** Where the index's `manifests` section lies in its bytes, as stored: left out of the index's hash. */
export interface CarriedManifests {
  start: number;
  end: number;
}

/**
 * The hex SHA-256 a statement names for `indexBytes`: of every byte but the carried manifests' (none
 * when `carried` is undefined). The table of sections, in the bytes hashed, fixes where those lie.
 */
export function indexSha256(indexBytes: Uint8Array, carried: CarriedManifests | undefined): string {
  if (!carried) return sha256Hex(indexBytes);
  return createHash('sha256').update(indexBytes.subarray(0, carried.start)).update(indexBytes.subarray(carried.end)).digest('hex');
}

/**
 * `indexBytes` (an index holding `manifestsSection(places)`, its stored bytes at `carried`) with its
 * seal appended, signed by `keys`.
 */
export function sealIndex(
  indexBytes: Uint8Array,
  places: readonly PlaceToSeal[],
  keys: readonly SigningKey[],
  carried: CarriedManifests | undefined,
): Uint8Array {
  const statement: SealStatement = {
    format: SEAL_FORMAT,
    index: indexSha256(indexBytes, carried),
    places: places.map(({ place, text, manifest }) => ({
      place,
      version: manifest.body.version,
      expires: manifest.body.expires,
      manifest: sha256Hex(Buffer.from(text, 'utf8')),
    })),
  };
  const statementBytes = asciiBytes(JSON.stringify(statement));
  const signatures = asciiBytes(
    JSON.stringify(keys.map((key) => ({ keyid: key.id, sig: sign(null, statementBytes, key.key).toString('base64') }))),
  );
  const footer = Buffer.alloc(8);
  footer.writeUInt32LE(statementBytes.length, 0);
  footer.writeUInt32LE(signatures.length, 4);
  const newline = Buffer.from([NEWLINE]);
  return Buffer.concat([indexBytes, statementBytes, newline, signatures, newline, footer, SEAL_MAGIC]);
}

/** JSON's text with every character past ASCII escaped: one byte a character, the same bytes on every platform. */
function asciiBytes(json: string): Buffer {
  return Buffer.from(
    json.replace(/[\u0080-\uffff]/gu, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`),
    'latin1',
  );
}

/** `bytes` taken apart: undefined when they carry no seal, a problem when the seal is not in its layout. */
export function openSeal(bytes: Uint8Array): OpenedSeal | undefined | { problem: string } {
  const file = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (file.length < SEAL_MAGIC.length || !file.subarray(file.length - SEAL_MAGIC.length).equals(SEAL_MAGIC)) return undefined;
  const layout = { problem: 'its seal is not in the layout `sisu-skills index --key` writes' };
  if (file.length < FOOTER_BYTES) return layout;
  const statementLength = file.readUInt32LE(file.length - FOOTER_BYTES);
  const signaturesLength = file.readUInt32LE(file.length - FOOTER_BYTES + 4);
  const signaturesEnd = file.length - FOOTER_BYTES - 1;
  const statementEnd = signaturesEnd - signaturesLength - 1;
  const statementAt = statementEnd - statementLength;
  const laidOut =
    statementLength <= MAX_STATEMENT_BYTES &&
    signaturesLength <= MAX_SIGNATURES_BYTES &&
    statementAt >= 0 &&
    file[statementEnd] === NEWLINE &&
    file[signaturesEnd] === NEWLINE;
  if (!laidOut) return layout;
  const statementBytes = file.subarray(statementAt, statementEnd);
  const parsed = parseParts(statementBytes, file.subarray(statementEnd + 1, signaturesEnd));
  if ('problem' in parsed) return parsed;
  return { indexBytes: file.subarray(0, statementAt), statementBytes, ...parsed };
}

function parseParts(statementBytes: Buffer, signaturesBytes: Buffer): Pick<OpenedSeal, 'statement' | 'signatures'> | { problem: string } {
  let statement: unknown;
  let signatures: unknown;
  try {
    statement = JSON.parse(statementBytes.toString('latin1'));
    signatures = JSON.parse(signaturesBytes.toString('latin1'));
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

/**
 * The seal checked: the index's bytes (but for the carried manifests at `carried`) are the ones stated,
 * and at least `threshold` distinct trusted keys signed the statement.
 */
export function checkSeal(
  opened: OpenedSeal,
  keys: readonly TrustedKey[],
  threshold: number,
  carried: CarriedManifests | undefined,
): string | undefined {
  if (indexSha256(opened.indexBytes, carried) !== opened.statement.index)
    return 'was changed after it was sealed: its bytes do not hash to the ones its seal states';
  const { trusted } = signersOfBytes(opened.statementBytes, opened.signatures, keys);
  if (trusted.length >= threshold) return undefined;
  const by = opened.signatures.map((s) => shortKeyId(s.keyid)).join(', ') || 'no key';
  return `is sealed by ${trusted.length} trusted key${trusted.length === 1 ? '' : 's'} (signatures by ${by}), fewer than the ${threshold} required`;
}

/**
 * The sealed places' manifest texts from the index's `manifests` section
 * (undefined: the index has none), each checked against the hash the seal
 * states; a place whose text is missing or not the one sealed has none.
 */
export function sealedManifests(section: Uint8Array | undefined, statement: SealStatement): Map<string, string> {
  const texts = new Map<string, string>();
  if (!section) return texts;
  let member: unknown;
  try {
    member = JSON.parse(Buffer.from(section.buffer, section.byteOffset, section.byteLength).toString('latin1'));
  } catch {
    return texts;
  }
  if (typeof member !== 'object' || member === null) return texts;
  for (const place of statement.places) {
    const text = (member as Record<string, unknown>)[place.place];
    if (typeof text === 'string' && sha256Hex(Buffer.from(text, 'utf8')) === place.manifest) texts.set(place.place, text);
  }
  return texts;
}

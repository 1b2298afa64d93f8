/**
 * `skills.manifest.json`: what a place serves, as its publisher signed it.
 * Written in one layout and read back only in that layout, so that the
 * signatures cover exact bytes and nothing is re-serialized to check them:
 *
 *     {"signatures":[{"keyid":"<hex>","sig":"<base64>"}],"signed":
 *     {"format":"sisu-skills-manifest/1","version":3,"created":"…","expires":"…","skills":[
 *     {"path":"pdf","digest":"sha256-…","frontmatter":"<hex>","files":[["SKILL.md",812,"<hex>"],…]},
 *     …
 *     ]}
 *     }
 *
 * The whole file is one JSON document. The second line to the one before the
 * last `}` is the signed body: its UTF-8 bytes are what every signature
 * signs, so `sign` adds a signature without touching them. The body is
 * written canonically (fixed key order, skills and files sorted by code
 * point, one skill a line), so the same content always gives the same bytes.
 *
 * Reading refuses, with one MANIFEST_INVALID message each: a file over
 * MAX_MANIFEST_BYTES (before parsing), another layout, bad JSON, fields of
 * the wrong type or format, `..`, absolute, `s3://` or backslash paths,
 * duplicate or unsorted entries, hashes of the wrong length. The envelope is
 * checked with zod; the skill entries (100,000s of them) with checkSkills
 * below: zod took 40-80 ms for the 14,000 entries of 2,000 skills and 450 ms
 * at 20,000, more than a whole first request may add.
 */
import { isAscii, isUtf8 } from 'node:buffer';
import { z } from 'zod';
import type { DiagnosticCode } from '../base/diagnostics.js';
import { SKILL_FILE } from '../base/skill-file.js';
import { readCanonicalSkills, type Utf8Of } from './canonical-skills.js';
import type { ManifestSkill } from './entries.js';
import { compareCodePoints } from './digest.js';
import { MANIFEST_FORMAT, MAX_FILES_PER_SKILL, MAX_MANIFEST_BYTES, MAX_PATH_CHARS, MAX_SIGNATURES } from './format.js';

export type { ManifestFile, ManifestSkill } from './entries.js';

export interface ManifestBody {
  format: typeof MANIFEST_FORMAT;
  /** Grows with each new signed content of a place; a process refuses one lower than it has accepted there. */
  version: number;
  /** ISO 8601 UTC. */
  created: string;
  /** ISO 8601 UTC: from then on the manifest is refused (MANIFEST_EXPIRED). */
  expires: string;
  /** Sorted by path. */
  skills: readonly ManifestSkill[];
}

export interface ManifestSignature {
  /** The signing key's id (keys.ts). */
  keyid: string;
  /** Ed25519 signature of the body's UTF-8 bytes, base64. */
  sig: string;
}

export interface ParsedManifest {
  body: ManifestBody;
  /** The body exactly as signed. */
  bodyText: string;
  /** The body's bytes as read, when the manifest was read as bytes: what the signatures are checked over (no encoding again). */
  bodyBytes?: Uint8Array;
  signatures: readonly ManifestSignature[];
  /** `expires` in ms since the epoch. */
  expiresAt: number;
}

/** What reading or checking a manifest gave: the manifest, or the one problem that stops it, with its code. */
export type ManifestRead = { ok: true; manifest: ParsedManifest } | ManifestRefusal;

/** The one problem that stops a manifest, with its code. */
export interface ManifestRefusal {
  ok: false;
  code: DiagnosticCode;
  message: string;
}

const HEADER_START = '{"signatures":';
const HEADER_END = ',"signed":';
const TRAILER = '\n}';

const HEX_SHA256 = /^[0-9a-f]{64}$/;
const SKILL_DIGEST = /^sha256-[A-Za-z0-9_-]{43}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;

const signatureSchema = z
  .object({
    keyid: z.string().regex(HEX_SHA256, 'a key id is 64 lowercase hex characters'),
    sig: z
      .string()
      .regex(/^[A-Za-z0-9+/]{86}==$/, 'an Ed25519 signature is 64 bytes in base64 (88 characters)')
      // Node's decoder ignores the last character's unused bits: only one spelling of a signature is accepted.
      .refine((sig) => Buffer.from(sig, 'base64').toString('base64') === sig, 'a signature in canonical base64'),
  })
  .strict();

const headerSchema = z.object({ signatures: z.array(signatureSchema).min(1).max(MAX_SIGNATURES) }).strict();

const timestamp = z
  .string()
  .regex(TIMESTAMP, 'an ISO 8601 UTC time such as 2026-01-31T12:00:00Z')
  .refine((value) => !Number.isNaN(Date.parse(value)), 'a real date');

const bodySchema = z
  .object({
    format: z.literal(MANIFEST_FORMAT),
    version: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
    created: timestamp,
    expires: timestamp,
    skills: z.array(z.unknown()),
  })
  .strict();

const invalid = (message: string): ManifestRefusal => ({ ok: false, code: 'MANIFEST_INVALID', message });

const SIGN_AGAIN = 'Sign the place again with `sisu-skills sign`.';

/** The body as `sign` writes it: fixed key order, one skill a line. `body.skills` and their files must be sorted. */
export function serializeBody(body: ManifestBody): string {
  const skills = body.skills.map(
    (skill) =>
      `{"path":${JSON.stringify(skill.path)},"digest":${JSON.stringify(skill.digest)},"frontmatter":${JSON.stringify(skill.frontmatter)},` +
      `"files":[${skill.files.map(([path, size, sha256]) => `[${JSON.stringify(path)},${size},${JSON.stringify(sha256)}]`).join(',')}]}`,
  );
  const head =
    `{"format":${JSON.stringify(body.format)},"version":${body.version},` +
    `"created":${JSON.stringify(body.created)},"expires":${JSON.stringify(body.expires)},"skills":[`;
  return `${head}\n${skills.map((line, i) => (i < skills.length - 1 ? `${line},\n` : `${line}\n`)).join('')}]}`;
}

/** The whole file: the signatures (sorted by key id), then the body exactly as given. */
export function serializeManifest(bodyText: string, signatures: readonly ManifestSignature[]): string {
  const sorted = [...signatures].sort((a, b) => compareCodePoints(a.keyid, b.keyid));
  const header = `${HEADER_START}[${sorted.map((s) => `{"keyid":${JSON.stringify(s.keyid)},"sig":${JSON.stringify(s.sig)}}`).join(',')}]${HEADER_END}`;
  return `${header}\n${bodyText}${TRAILER}\n`;
}

function zodProblem(error: z.ZodError, where: string): string {
  const issue = error.issues[0];
  const at = issue && issue.path.length > 0 ? `${where}.${issue.path.join('.')}` : where;
  return `${at}: ${issue?.message ?? 'invalid'}`;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; reason: string } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}

/** Why a manifest of `size` bytes is refused unread (readers that know the size first say it before reading). */
export function manifestTooLarge(size: number): string {
  return `is ${size} bytes, over the ${MAX_MANIFEST_BYTES}-byte limit for a manifest; it was not read. A manifest lists about 100 bytes a file.`;
}

/**
 * A manifest ready to read. Bytes are read over their Latin-1 reading (one
 * character a byte, so its offsets are the bytes'), not their UTF-8 text:
 * decoding cost 20 ms at 20,000 skills, and one character outside ASCII made
 * the whole text two bytes a character (25 MB), every slice of it slow to
 * compare. The layout and every field but paths are ASCII, which both
 * readings share; paths outside ASCII are decoded where they are kept.
 */
export interface ManifestSource {
  /** The text; for bytes, their Latin-1 reading (their UTF-8 text too when all are ASCII). */
  text: string;
  /** The bytes read, a leading byte order mark left out, when the manifest was read as bytes. */
  bytes?: Uint8Array;
  /** Whether `text` is a Latin-1 reading that differs from the UTF-8 text (bytes outside ASCII). */
  latin1: boolean;
}

const BYTE_ORDER_MARK = [0xef, 0xbb, 0xbf];

/** The manifest as a source to read, refused over MAX_MANIFEST_BYTES before any decoding, and when its bytes are not UTF-8. */
export function manifestSource(input: string | Uint8Array): { ok: true; source: ManifestSource } | { ok: false; message: string } {
  const size = typeof input === 'string' ? Buffer.byteLength(input, 'utf8') : input.length;
  if (size > MAX_MANIFEST_BYTES) return { ok: false, message: manifestTooLarge(size) };
  if (typeof input === 'string') return { ok: true, source: { text: input, latin1: false } };
  // A UTF-8 decoder drops one leading byte order mark: so does this reading.
  const bytes = BYTE_ORDER_MARK.every((byte, i) => input[i] === byte) ? input.subarray(BYTE_ORDER_MARK.length) : input;
  if (!isUtf8(bytes)) return { ok: false, message: `is not UTF-8 text. ${SIGN_AGAIN}` };
  const text = asBuffer(bytes).toString('latin1');
  return { ok: true, source: { text, bytes, latin1: !isAscii(bytes) } };
}

/** The manifest's own text (its UTF-8 decoded), as `sisu-skills index --key` carries it. */
export function manifestTextOf(source: ManifestSource): string {
  return source.latin1 && source.bytes ? asBuffer(source.bytes).toString('utf8') : source.text;
}

const asBuffer = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** Where the header's JSON and the body lie in `text`, as the layout above places them. */
export interface Layout {
  /** The header line's end, before `,"signed":`. */
  headerEnd: number;
  bodyStart: number;
  bodyEnd: number;
}

function splitLayout(text: string): Layout | undefined {
  const newline = text.indexOf('\n');
  if (newline < 0) return undefined;
  if (!text.startsWith(HEADER_START) || !text.startsWith(HEADER_END, newline - HEADER_END.length)) return undefined;
  if (newline < HEADER_START.length + HEADER_END.length) return undefined;
  // One final line break is optional (editors add or drop it); nothing else may follow.
  const end = text.endsWith('\n') && text.length > newline + 1 ? text.length - 1 : text.length;
  if (end - TRAILER.length < newline + 1 || !text.startsWith(TRAILER, end - TRAILER.length)) return undefined;
  return { headerEnd: newline - HEADER_END.length, bodyStart: newline + 1, bodyEnd: end - TRAILER.length };
}

/**
 * Read a manifest (file bytes, or its text), checking its layout and every
 * field; signatures and expiry are verify.ts's. Never throws.
 */
export function parseManifest(input: string | Uint8Array): ManifestRead {
  const read = manifestSource(input);
  if (!read.ok) return invalid(read.message);
  const header = readManifestHeader(read.source);
  return header.ok ? readManifestBody(header.header) : header;
}

/** A manifest's layout and signatures, read before its body: what the signatures sign is known from here on. */
export interface ManifestHeader {
  source: ManifestSource;
  layout: Layout;
  signatures: readonly ManifestSignature[];
  /** Decodes bytes `start` to `end` as UTF-8, when `source.text` is a Latin-1 reading outside ASCII. */
  utf8: Utf8Of | undefined;
}

/** The layout and the signatures line of a manifest (parseManifest's first half). */
export function readManifestHeader(source: ManifestSource): { ok: true; header: ManifestHeader } | ManifestRefusal {
  const { text, bytes } = source;
  const layout = splitLayout(text);
  if (!layout) {
    return invalid(
      `is not a signed skills manifest: its first line must be {"signatures":[...],"signed": and its last } closes it. ${SIGN_AGAIN}`,
    );
  }
  const utf8 = source.latin1 && bytes ? (start: number, end: number) => asBuffer(bytes).toString('utf8', start, end) : undefined;
  const headerJson = parseJson(`${utf8 ? utf8(0, layout.headerEnd) : text.slice(0, layout.headerEnd)}}`);
  if (!headerJson.ok) return invalid(`has a signatures line that is not JSON (${headerJson.reason}). ${SIGN_AGAIN}`);
  const header = headerSchema.safeParse(headerJson.value);
  if (!header.success) return invalid(`has a bad signature entry: ${zodProblem(header.error, 'signatures')}. ${SIGN_AGAIN}`);
  return { ok: true, header: { source, layout, signatures: header.data.signatures, utf8 } };
}

/** The bytes a manifest's signatures sign: its body's, as read, or its text's encoded (a bucket's manifest is read as text). */
export function signedBytesOf({ source, layout }: ManifestHeader): Uint8Array {
  const { bodyStart, bodyEnd } = layout;
  return source.bytes ? source.bytes.subarray(bodyStart, bodyEnd) : Buffer.from(source.text.slice(bodyStart, bodyEnd), 'utf8');
}

/** The body of a manifest whose header was read (parseManifest's second half): every entry checked. */
export function readManifestBody({ source, layout, signatures, utf8 }: ManifestHeader): ManifestRead {
  const { text, bytes } = source;
  const { bodyStart, bodyEnd } = layout;
  const read = text.slice(bodyStart, bodyEnd);
  let bodyText = utf8 ? undefined : read;
  const exactBody = (): string => (bodyText ??= utf8 ? utf8(bodyStart, bodyEnd) : read);
  const inBody = utf8 ? (start: number, end: number) => utf8(bodyStart + start, bodyStart + end) : undefined;
  const body = canonicalBody(read, inBody) ?? readBody(exactBody());
  if (!body.ok) return body;
  const expiresAt = Date.parse(body.body.expires);
  if (expiresAt < Date.parse(body.body.created))
    return invalid(`expires (${body.body.expires}) before it was created (${body.body.created}). ${SIGN_AGAIN}`);
  const manifest: ParsedManifest = {
    body: body.body,
    // Decoded at first use (sign and `index --key` use it; admission checks the bytes): 20 ms at 20,000 skills.
    get bodyText() {
      return exactBody();
    },
    signatures,
    expiresAt,
  };
  // Offsets in a reading of bytes are the bytes': the body's bytes as read, what the signatures sign.
  if (bytes) manifest.bodyBytes = bytes.subarray(bodyStart, bodyEnd);
  return { ok: true, manifest };
}

type BodyRead = { ok: true; body: ManifestBody } | ManifestRefusal;

/** The body's last line in the layout `sign` writes, after its line break. */
const BODY_END = '\n]}';

/**
 * The body in the layout `sign` writes, every entry checked (canonical-skills.ts); undefined when it is in
 * any other. `utf8`: given when `bodyText` is a Latin-1 reading of bytes outside ASCII (an envelope outside
 * ASCII breaks its schema, so the general reader, over the decoded text, says what is wrong).
 */
function canonicalBody(bodyText: string, utf8?: Utf8Of): BodyRead | undefined {
  const envelopeEnd = bodyText.indexOf('\n');
  if (envelopeEnd < 0 || !bodyText.endsWith(BODY_END)) return undefined;
  const envelope = parseJson(`${bodyText.slice(0, envelopeEnd)}]}`);
  const checked = envelope.ok ? bodySchema.safeParse(envelope.value) : undefined;
  if (!checked?.success) return undefined;
  // The skill lines lie between the envelope's line and the last: none when those two are all.
  const linesEnd = bodyText.length - BODY_END.length;
  const skills = linesEnd === envelopeEnd ? [] : readCanonicalSkills(bodyText, envelopeEnd + 1, linesEnd, utf8);
  return skills ? { ok: true, body: { ...checked.data, skills } } : undefined;
}

/** The body in any JSON spelling, each entry checked by the rules below, which name the first problem. */
function readBody(bodyText: string): BodyRead {
  const bodyJson = parseJson(bodyText);
  if (!bodyJson.ok) return invalid(`has a signed part that is not JSON (${bodyJson.reason}). ${SIGN_AGAIN}`);
  const body = bodySchema.safeParse(bodyJson.value);
  if (!body.success) return invalid(`${zodProblem(body.error, 'signed')}. ${SIGN_AGAIN}`);
  const skillsProblem = checkSkills(body.data.skills);
  if (skillsProblem !== undefined) return invalid(`${skillsProblem}. ${SIGN_AGAIN}`);
  return { ok: true, body: { ...body.data, skills: body.data.skills as ManifestSkill[] } };
}

/**
 * A path every rule below accepts: `/`-separated parts, none empty, `.` or `..`, no backslash or control
 * character, no `:` in the first. One test for the 100,000s of entries of a large library; any other
 * string goes through the rules one by one, which say what is wrong.
 */
// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
const PLAIN_PATH = /^(?!\.\.?(?:\/|$))[^/\\:\u0000-\u001f\u007f]+(?:\/(?!\.\.?(?:\/|$))[^/\\\u0000-\u001f\u007f]+)*$/;

/** What is wrong with a skill's or file's path in a manifest, if anything. A skill's may be `.` (the place is the skill). */
export function manifestPathProblem(path: unknown, kind: 'skill' | 'file'): string | undefined {
  if (typeof path === 'string' && path.length <= MAX_PATH_CHARS && PLAIN_PATH.test(path)) return undefined;
  return pathProblemByRule(path, kind);
}

/** manifestPathProblem's rules one by one (exported for the test that holds PLAIN_PATH to them). */
export function pathProblemByRule(path: unknown, kind: 'skill' | 'file'): string | undefined {
  if (typeof path !== 'string' || path === '') return 'a path must be a non-empty string';
  if (kind === 'skill' && path === '.') return undefined;
  if (path.length > MAX_PATH_CHARS) return `a path is at most ${MAX_PATH_CHARS} characters`;
  if (path.includes('\\')) return 'a path uses / between its parts, never \\';
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (/[\u0000-\u001f\u007f]/.test(path)) return 'a path holds no control characters';
  const parts = path.split('/');
  if ((parts[0] ?? '').includes(':')) return 'a path is relative to the place, never a URL (s3://...) or a drive (C:)';
  if (parts.some((part) => part === '')) return 'a path is relative to the place: no leading, trailing or doubled /';
  if (parts.some((part) => part === '.' || part === '..')) return 'a path has no . or .. parts: it never leaves the place';
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const SKILL_KEYS = ['path', 'digest', 'frontmatter', 'files'];

/** The problem of the skill entries (their fields, paths, order, hashes), or undefined when every one is sound. */
function checkSkills(skills: readonly unknown[]): string | undefined {
  let previous: string | undefined;
  for (let i = 0; i < skills.length; i++) {
    const skill = skills[i];
    const where = `signed.skills.${i}`;
    if (!isRecord(skill)) return `${where}: a skill entry is an object`;
    const keys = Object.keys(skill);
    const unknown = keys.find((key) => !SKILL_KEYS.includes(key));
    if (unknown !== undefined) return `${where}: unknown field "${unknown}"`;
    const pathProblem = manifestPathProblem(skill.path, 'skill');
    if (pathProblem !== undefined) return `${where}.path: ${pathProblem} (got ${JSON.stringify(skill.path)})`;
    const path = skill.path as string;
    const order = orderProblem(previous, path, 'skill');
    if (order !== undefined) return `${where}.path: ${order}`;
    previous = path;
    if (typeof skill.digest !== 'string' || !SKILL_DIGEST.test(skill.digest))
      return `${where}.digest: an RFC #358 digest is "sha256-" and 43 base64url characters`;
    if (typeof skill.frontmatter !== 'string' || !HEX_SHA256.test(skill.frontmatter))
      return `${where}.frontmatter: a SHA-256 is 64 lowercase hex characters`;
    const filesProblem = checkFiles(skill.files);
    if (filesProblem !== undefined) return `${where}.files${filesProblem} (skill "${path}")`;
  }
  return undefined;
}

/** Entries must be sorted and unique: one check finds duplicates and disorder. */
function orderProblem(previous: string | undefined, path: string, kind: 'skill' | 'file'): string | undefined {
  if (previous === undefined) return undefined;
  const order = compareCodePoints(previous, path);
  if (order === 0) return `duplicate ${kind} entry "${path}"`;
  if (order > 0) return `${kind} entries must be sorted by path: "${path}" comes after "${previous}"`;
  return undefined;
}

function checkFiles(files: unknown): string | undefined {
  if (!Array.isArray(files) || files.length === 0) return ': a skill lists its files (SKILL.md at least)';
  if (files.length > MAX_FILES_PER_SKILL) return `: at most ${MAX_FILES_PER_SKILL} files a skill`;
  let previous: string | undefined;
  let hasSkillFile = false;
  for (let j = 0; j < files.length; j++) {
    const file: unknown = files[j];
    if (!Array.isArray(file) || file.length !== 3) return `.${j}: a file entry is [path, size, sha256]`;
    const [path, size, sha256] = file as unknown[];
    const pathProblem = manifestPathProblem(path, 'file');
    if (pathProblem !== undefined) return `.${j}: ${pathProblem} (got ${JSON.stringify(path)})`;
    const order = orderProblem(previous, path as string, 'file');
    if (order !== undefined) return `.${j}: ${order}`;
    previous = path as string;
    if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) return `.${j}: a size is a whole number of bytes`;
    if (typeof sha256 !== 'string' || !HEX_SHA256.test(sha256)) return `.${j}: a SHA-256 is 64 lowercase hex characters`;
    if (path === SKILL_FILE) hasSkillFile = true;
  }
  return hasSkillFile ? undefined : ': a skill lists its SKILL.md';
}

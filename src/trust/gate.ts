/**
 * What a process believes of each place, over its lifetime: a place's
 * manifest admitted (signatures by enough trusted keys, not expired, not a
 * lower version than the place has shown this process), kept as the last
 * good one, and the checks of what a place serves against it. No file
 * system: the caller reads the manifest and the bytes, and passes them in.
 */
import { SKILL_FILE } from '../base/skill-file.js';
import type { Mismatch } from './compare.js';
import { compareCodePoints, sha256Hex } from './digest.js';
import type { TrustedKey } from './keys.js';
import {
  manifestSource,
  manifestTextOf,
  readManifestBody,
  readManifestHeader,
  signedBytesOf,
  type ManifestSkill,
  type ManifestSource,
  type ParsedManifest,
} from './manifest.js';
import { AcceptedVersions } from './rollback.js';
import { checkSeal, type CarriedManifests, type OpenedSeal } from './seal.js';
import { checkExpiry, checkSigners, signersOfBytesOffThread } from './verify.js';
import type { DiagnosticCode } from '../base/diagnostics.js';

/** A place's manifest as this process accepted it, with its entries by skill path. */
export interface AcceptedManifest {
  place: string;
  manifest: ParsedManifest;
  readonly skills: ReadonlyMap<string, ManifestSkill>;
}

/** An accepted manifest whose entries by path are made at their first use: a scan finds its skills without (EntryCursor). */
export function acceptedManifest(place: string, manifest: ParsedManifest): AcceptedManifest {
  let byPath: Map<string, ManifestSkill> | undefined;
  return {
    place,
    manifest,
    get skills() {
      byPath ??= skillsByPath(manifest.body.skills);
      return byPath;
    },
  };
}

/** What admitting a place's manifest gave. A rollback keeps the last good manifest, which still serves. */
export type PlaceVerdict =
  { ok: true; accepted: AcceptedManifest } | { ok: false; code: DiagnosticCode; message: string; lastGood?: AcceptedManifest };

export interface GatePolicy {
  keys: readonly TrustedKey[];
  threshold: number;
  /** ms since the epoch; tests pass a fake clock. */
  now: () => number;
}

/** The manifest file's name in messages. */
const MANIFEST_NAME = 'skills.manifest.json';

export class TrustGate {
  private readonly versions = new AcceptedVersions();
  /**
   * Per place: the manifest last accepted, and what it gave (an unchanged one is not parsed or verified
   * again). Bytes are held as their Latin-1 reading, which is equal only for equal bytes.
   */
  private readonly accepted = new Map<string, { source: ManifestSource; accepted: AcceptedManifest }>();
  /** Per place admitted from a sealed index: its manifest's expiry (ms), so that a kept index stops at it too. */
  private readonly sealedExpiries = new Map<string, number>();

  constructor(private readonly policy: GatePolicy) {}

  /**
   * Admit `input`, the manifest now at `place`, as text or as the bytes read (undefined: there is none).
   * Its signatures are checked on libuv's threadpool while its body is read here.
   */
  async admit(place: string, input: string | Uint8Array | undefined): Promise<PlaceVerdict> {
    if (input === undefined) {
      return {
        ok: false,
        code: 'MANIFEST_INVALID',
        message: `has no ${MANIFEST_NAME}: nothing here is signed, so nothing is served. Sign the place (\`sisu-skills sign ${place} --key <file>\`).`,
      };
    }
    const decoded = manifestSource(input);
    if (!decoded.ok) return { ok: false, code: 'MANIFEST_INVALID', message: decoded.message };
    const { source } = decoded;
    const held = this.accepted.get(place);
    if (held && held.source.text === source.text && (held.source.bytes === undefined) === (source.bytes === undefined)) {
      const fresh = checkExpiry(held.accepted.manifest, this.policy.now());
      if (fresh.ok) return { ok: true, accepted: held.accepted };
      // Expired: no longer the place's last good manifest (and no longer a reason to rebuild: `hasExpired`).
      this.accepted.delete(place);
      return fresh;
    }
    const header = readManifestHeader(source);
    if (!header.ok) return header;
    const signing = signersOfBytesOffThread(signedBytesOf(header.header), header.header.signatures, this.policy.keys);
    const read = readManifestBody(header.header);
    const signers = await signing;
    if (!read.ok) return read;
    const signed = checkSigners(read.manifest, signers, this.policy.threshold);
    if (!signed.ok) return signed;
    return this.accept(place, read.manifest, source);
  }

  /** A manifest read and signed: accepted unless it expired or rolls the place back. */
  private accept(place: string, manifest: ParsedManifest, source: ManifestSource): PlaceVerdict {
    const fresh = checkExpiry(manifest, this.policy.now());
    if (!fresh.ok) return fresh;
    // After the signatures' wait: the last good manifest is the one held now.
    const held = this.accepted.get(place);
    const rollback = this.versions.check(place, manifest.body.version);
    if (rollback) {
      const lastGood = held && checkExpiry(held.accepted.manifest, this.policy.now()).ok ? held.accepted : undefined;
      return { ok: false, ...rollback, ...(lastGood ? { lastGood } : {}) };
    }
    this.versions.accept(place, manifest.body.version);
    const accepted = acceptedManifest(place, manifest);
    this.accepted.set(place, { source, accepted });
    return { ok: true, accepted };
  }

  /**
   * Whether a manifest this gate holds as a place's last good one has expired by now: the skills an index
   * built on it serves must be judged again (freeze: a manifest never changed must still stop at its expiry).
   */
  hasExpired(): boolean {
    const now = this.policy.now();
    for (const { accepted } of this.accepted.values()) if (now >= accepted.manifest.expiresAt) return true;
    for (const expiresAt of this.sealedExpiries.values()) if (now >= expiresAt) return true;
    return false;
  }

  /** Every place's manifest this gate accepted last, with its text (what `sisu-skills index --key` carries). */
  acceptedPlaces(): Array<{ place: string; text: string; manifest: ParsedManifest }> {
    return [...this.accepted.values()].map(({ source, accepted }) => ({
      place: accepted.place,
      text: manifestTextOf(source),
      manifest: accepted.manifest,
    }));
  }

  /** A sealed index's seal checked with this gate's keys and threshold (trust/seal.ts); undefined when it holds. */
  checkSeal(opened: OpenedSeal, carried: CarriedManifests | undefined): string | undefined {
    return checkSeal(opened, this.policy.keys, this.policy.threshold, carried);
  }

  /**
   * Admit a place's manifest as a sealed index states it (its version and
   * expiry; the index's signature vouches for its content): expiry and
   * rollback are checked, as for a manifest read from the place.
   */
  admitSealed(place: string, version: number, expires: string): { ok: true } | { ok: false; code: DiagnosticCode; message: string } {
    const expiresAt = Date.parse(expires);
    if (this.policy.now() >= expiresAt) {
      // No longer a reason to rebuild (`hasExpired`): the rebuild this expiry asked for is this one.
      this.sealedExpiries.delete(place);
      return {
        ok: false,
        code: 'MANIFEST_EXPIRED',
        message:
          `expired at ${expires} (version ${version}, as the skills index carries it). Sign the place again and build the index ` +
          'again (`sisu-skills sign`, then `sisu-skills index --key`).',
      };
    }
    const rollback = this.versions.check(place, version);
    if (rollback) return { ok: false, ...rollback };
    this.versions.accept(place, version);
    this.sealedExpiries.set(place, expiresAt);
    return { ok: true };
  }
}

/** A manifest's skill entries by path, with no [path, entry] pair made for each (20,000 at 20,000 skills). */
function skillsByPath(skills: readonly ManifestSkill[]): Map<string, ManifestSkill> {
  const byPath = new Map<string, ManifestSkill>();
  for (const skill of skills) byPath.set(skill.path, skill);
  return byPath;
}

/**
 * Finds a scan's skills among a manifest's entries. A scan meets them in tree order, which is mostly the
 * entries' own (both compare names by code unit): the entry after the last one found is tried first, and
 * a skill met out of that order is searched for in the entries (sorted by path, which admission checked).
 * No Map of every path is made for a scan, nor hashed into (20,000 lookups, and making the Map, cost some
 * 20 ms of a first request). Either way, only the entry of that exact path.
 */
export class EntryCursor {
  private next = 0;

  constructor(private readonly accepted: AcceptedManifest) {}

  find(skillPath: string): ManifestSkill | undefined {
    const { skills } = this.accepted.manifest.body;
    const expected = skills[this.next];
    if (expected !== undefined && expected.path === skillPath) {
      this.next++;
      return expected;
    }
    const at = indexOfPath(skills, skillPath);
    if (at < 0) return undefined;
    this.next = at + 1;
    return skills[at];
  }
}

/** The index of the entry at `path` in `skills` (sorted by path, by code point), by binary search; -1 when there is none. */
function indexOfPath(skills: readonly ManifestSkill[], path: string): number {
  let low = 0;
  let high = skills.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const order = compareCodePoints((skills[middle] as ManifestSkill).path, path);
    if (order === 0) return middle;
    if (order < 0) low = middle + 1;
    else high = middle - 1;
  }
  return -1;
}

/**
 * The skill at `skillPath` in the place, checked from its SKILL.md head alone (what a scan reads); undefined
 * when it matches. `entries`: where a scan finds the entries, in place of looking each up by path.
 */
export function checkHead(accepted: AcceptedManifest, skillPath: string, headSha256: string, entries?: EntryCursor): Mismatch | undefined {
  const entry = entries ? entries.find(skillPath) : accepted.skills.get(skillPath);
  if (!entry) return { kind: 'unlisted-skill', skill: skillPath };
  if (entry.frontmatter !== headSha256)
    return { kind: 'frontmatter', skill: skillPath, file: SKILL_FILE, expected: entry.frontmatter, actual: headSha256 };
  return undefined;
}

/**
 * A file the place is about to serve, checked from the very bytes (or text,
 * as UTF-8) that will be served; undefined when they are the signed ones.
 */
export function checkFile(
  accepted: AcceptedManifest,
  skillPath: string,
  filePath: string,
  bytes: Uint8Array | string,
): Mismatch | undefined {
  const entry = accepted.skills.get(skillPath);
  if (!entry) return { kind: 'unlisted-skill', skill: skillPath };
  const signed = entry.files.find(([path]) => path === filePath);
  const actual = sha256Hex(bytes);
  if (!signed) return { kind: 'added', skill: skillPath, file: filePath, actual };
  if (signed[2] !== actual) {
    const size = typeof bytes === 'string' ? Buffer.byteLength(bytes, 'utf8') : bytes.length;
    return { kind: 'changed', skill: skillPath, file: filePath, expected: signed[2], actual, expectedSize: signed[1], actualSize: size };
  }
  return undefined;
}

/**
 * A skill's resource listing against its entry: files it lists that were
 * not signed (never offered, never read) and signed files it no longer
 * lists, but for those `unlisted` says a listing leaves out anyway (the
 * app's secret patterns). SKILL.md is the caller's to check whole.
 */
export function checkListing(
  accepted: AcceptedManifest,
  skillPath: string,
  listed: readonly string[],
  unlisted: (path: string) => boolean = () => false,
): Mismatch[] {
  const entry = accepted.skills.get(skillPath);
  if (!entry) return [{ kind: 'unlisted-skill', skill: skillPath }];
  const signed = new Set(entry.files.map(([path]) => path));
  const found: Mismatch[] = [];
  const seen = new Set(listed);
  for (const path of listed) if (!signed.has(path)) found.push({ kind: 'added', skill: skillPath, file: path });
  for (const [path, , sha256] of entry.files)
    if (path !== SKILL_FILE && !seen.has(path) && !unlisted(path))
      found.push({ kind: 'removed', skill: skillPath, file: path, expected: sha256 });
  return found;
}

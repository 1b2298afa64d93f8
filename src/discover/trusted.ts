/**
 * Discovery under the `trust` option: each place's manifest admitted before
 * its skills are judged (trust/gate.ts), each found skill judged from its
 * SKILL.md head alone (what the scan reads anyway), and at activation the
 * whole SKILL.md and the resource listing checked against the entry that
 * vouches for the skill. In mode 'enforce' what is not verified is left
 * out; in 'report' it is served, and the same diagnostics say what would not
 * be. Each diagnostic is given once per middleware (TrustState.once).
 */
import { isUtf8 } from 'node:buffer';
import { relative, sep } from 'node:path';
import { createDiagnostic, type Diagnostic } from '../base/diagnostics.js';
import { errorReason, readFileBytes, type SkillsFileSystem } from '../base/fs.js';
import { childPath } from '../base/paths.js';
import { MANIFEST_FILE, SKILL_FILE } from '../base/skill-file.js';
import type { SkillEntry, SkillResource } from '../base/model.js';
import { SkillUnavailableError } from '../config/errors.js';
import { hashPrefix, mismatchMessage, type Mismatch } from '../trust/compare.js';
import { sha256Hex } from '../trust/digest.js';
import { MAX_MANIFEST_BYTES } from '../trust/format.js';
import { checkFile, checkHead, checkListing, EntryCursor, type AcceptedManifest } from '../trust/gate.js';
import { manifestTooLarge } from '../trust/manifest.js';
import { mismatchFile, type SkillBinding, type TrustState } from '../trust/state.js';
import { headLength } from './head.js';
import type { SkillLocation } from './walk.js';

/** What the gate said of the place a scanned root belongs to. */
export interface Admission {
  /** Where the place's manifest is: the root, or for a package's skills/, the package's folder. */
  placeDir: string;
  /** Undefined: the place cannot be trusted (its one diagnostic was given). */
  accepted: AcceptedManifest | undefined;
  /** Where this scan finds its skills' entries in `accepted`. */
  entries?: EntryCursor;
}

/** Each scanned root's admission, and the place diagnostics to give (new ones only). */
export interface Admissions {
  byRoot: ReadonlyMap<string, Admission>;
  diagnostics: Diagnostic[];
}

/**
 * The manifest at `placeDir`: its bytes (a folder's) or its text (a bucket's, whose storage reads
 * whole objects as text); undefined when there is none, or why it cannot be read (a MANIFEST_INVALID
 * message). Bytes are checked as read: its signatures need no second encoding (12.7 MB at 20,000 skills).
 */
async function readManifest(
  fs: SkillsFileSystem,
  placeDir: string,
): Promise<{ manifest: string | Uint8Array | undefined } | { problem: string }> {
  const path = childPath(placeDir, MANIFEST_FILE);
  try {
    const { size } = await fs.stat(path);
    if (size > MAX_MANIFEST_BYTES) return { problem: manifestTooLarge(size) };
    const local = !placeDir.includes('://');
    return {
      manifest: local ? await readFileBytes(fs, path, MAX_MANIFEST_BYTES, 'a manifest may be') : await fs.readFile(path, 'utf8'),
    };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { manifest: undefined };
    return { problem: `cannot be read (${errorReason(error)}); nothing from this place is served until it can.` };
  }
}

/**
 * Admit the manifest of every place the roots belong to (`placeOf`: a root's
 * place folder). A rollback keeps the last good manifest, which still judges
 * the place's skills.
 */
export async function admitPlaces(
  fs: SkillsFileSystem,
  roots: readonly string[],
  placeOf: (root: string) => string,
  trust: TrustState,
): Promise<Admissions> {
  const places = [...new Set(roots.map(placeOf))];
  const diagnostics: Diagnostic[] = [];
  const byPlace = new Map<string, Admission>();
  await Promise.all(
    places.map(async (placeDir) => {
      const file = childPath(placeDir, MANIFEST_FILE);
      const read = await readManifest(fs, placeDir);
      const verdict =
        'problem' in read
          ? ({ ok: false, code: 'MANIFEST_INVALID', message: read.problem } as const)
          : await trust.gate.admit(placeDir, read.manifest);
      if (verdict.ok) {
        byPlace.set(placeDir, admissionOf(placeDir, verdict.accepted));
        return;
      }
      const given = trust.once(createDiagnostic(verdict.code, file, verdict.message));
      if (given) diagnostics.push(given);
      byPlace.set(placeDir, admissionOf(placeDir, 'lastGood' in verdict ? verdict.lastGood : undefined));
    }),
  );
  const byRoot = new Map(roots.map((root) => [root, byPlace.get(placeOf(root)) as Admission]));
  return { byRoot, diagnostics };
}

const admissionOf = (placeDir: string, accepted: AcceptedManifest | undefined): Admission =>
  accepted ? { placeDir, accepted, entries: new EntryCursor(accepted) } : { placeDir, accepted };

/** A `/`-separated path with an empty, `.` or `..` part. */
const UNRESOLVED = /(?:^|\/)\.{0,2}(?:\/|$)/;

/** A skill folder's path in its place: `/`-separated, `.` for the place itself. */
export function skillPathIn(placeDir: string, directory: string): string {
  if (placeDir.includes('://')) {
    const root = placeDir.endsWith('/') ? placeDir.slice(0, -1) : placeDir;
    return directory === root ? '.' : directory.slice(root.length + 1);
  }
  // Discovery reaches a place's skills through the place's own path: a slice, not `relative`, which
  // resolves both paths again (22 ms of 2,000 judgements at load). A part that is empty, `.` or `..`
  // would need resolving: `relative` then, as before.
  if (directory === placeDir) return '.';
  if (directory.startsWith(placeDir + sep)) {
    const rest = directory.slice(placeDir.length + 1);
    const parts = sep === '/' ? rest : rest.split(sep).join('/');
    if (!UNRESOLVED.test(parts)) return parts;
  }
  const rel = relative(placeDir, directory);
  return rel === '' ? '.' : rel.split(sep).join('/');
}

/**
 * The SHA-256 of a SKILL.md's head, from the text read: a head, or more (a
 * whole file, or a bucket's cached object where a head was asked for). The
 * head is found again in every case: a head's own end is its length. Found
 * and hashed in the text (its UTF-8 bytes are hashed), not in a copy as bytes.
 */
export function headSha256(text: string): string {
  const length = headLength(text);
  return sha256Hex(length === text.length ? text : text.slice(0, length));
}

/**
 * The SHA-256 of a head's bytes as read (readSkillHead's `onHead`): no head found again in the text and
 * no text encoded again (at 20,000 skills ~30 ms of the scan). Undefined when they are not UTF-8: the
 * text decoded from them then differs, and is what is judged (headSha256), as the model would see it.
 */
export function headBytesSha256(head: Uint8Array): string | undefined {
  return isUtf8(head) ? sha256Hex(head) : undefined;
}

/** What judging a found skill gave: leave it out (enforce), a diagnostic to give, its binding when it is vouched for. */
export interface HeadVerdict {
  drop: boolean;
  diagnostic?: Diagnostic;
  binding?: SkillBinding;
}

/** Judge the skill in `directory` (SKILL.md at `file`) under `admission` from its head's hash. */
export function judgeSkill(
  trust: TrustState,
  admission: Admission | undefined,
  where: { directory: string; file: string },
  head: string,
): HeadVerdict {
  const accepted = admission?.accepted;
  // The place's own diagnostic was given: its skills go quietly (or, reporting, are served as they are).
  if (!admission || !accepted) return { drop: trust.enforcing };
  const skillPath = skillPathIn(admission.placeDir, where.directory);
  const binding: SkillBinding = { accepted, skillPath };
  const mismatch = checkHead(accepted, skillPath, head, admission.entries);
  if (!mismatch) {
    if (trust.isRevoked(where.directory, binding)) return { drop: trust.enforcing, binding };
    return { drop: false, binding };
  }
  const file = mismatch.kind === 'unlisted-skill' ? where.directory : where.file;
  const diagnostic = trust.once(createDiagnostic('UNTRUSTED_SKILL', file, mismatchMessage(mismatch)), mismatch.skill);
  return { drop: trust.enforcing, ...(diagnostic ? { diagnostic } : {}) };
}

/** The diagnostic for `mismatch` of the skill in `directory`, when new. */
function diagnosticOf(trust: TrustState, directory: string, mismatch: Mismatch): Diagnostic | undefined {
  return trust.once(createDiagnostic('UNTRUSTED_SKILL', mismatchFile(directory, mismatch), mismatchMessage(mismatch)), mismatch.skill);
}

/**
 * The whole SKILL.md, read at activation, checked against the skill's
 * binding: its diagnostics (report mode), or a SkillUnavailableError
 * (enforce; the skill is revoked, so the next request leaves it out).
 */
export function checkSkillText(trust: TrustState, entry: SkillEntry, text: string): Diagnostic[] {
  const skill = entry.metadata.name;
  const binding = trust.bindingOf(entry.directory);
  if (!binding) {
    if (!trust.enforcing) return [];
    throw new SkillUnavailableError({ skill, path: entry.path, reason: 'untrusted', detail: 'no signed manifest vouches for it' });
  }
  if (trust.isRevoked(entry.directory, binding) && trust.enforcing)
    throw new SkillUnavailableError({ skill, path: entry.path, reason: 'untrusted', detail: 'it was refused before' });
  const mismatch = checkFile(binding.accepted, binding.skillPath, SKILL_FILE, text);
  if (!mismatch) return [];
  const diagnostic = diagnosticOf(trust, entry.directory, mismatch);
  if (!trust.enforcing) return diagnostic ? [diagnostic] : [];
  trust.revoke(entry.directory, binding);
  const detail =
    mismatch.kind === 'changed'
      ? `expected sha256 ${hashPrefix(mismatch.expected ?? '')}, got ${hashPrefix(mismatch.actual ?? '')}`
      : 'unsigned';
  throw new SkillUnavailableError({ skill, path: entry.path, reason: 'untrusted', detail, ...(diagnostic ? { diagnostic } : {}) });
}

/**
 * A skill's resource listing checked against its binding: files its manifest
 * does not list are left out (enforce) and remembered as unsigned, so a read
 * of one says so; signed files no longer there are reported.
 */
export function checkResources(
  trust: TrustState,
  directory: string,
  binding: SkillBinding | undefined,
  resources: SkillResource[],
  limits: { isSecret: (path: string) => boolean; maxFileSize: number },
): { resources: SkillResource[]; diagnostics: Diagnostic[] } {
  if (!binding) return { resources: trust.enforcing ? [] : resources, diagnostics: [] };
  // A place that is itself the skill holds its manifest beside SKILL.md: the place's file, never the skill's.
  const own = binding.skillPath === '.' ? resources.filter((resource) => resource.path !== MANIFEST_FILE) : resources;
  const mismatches = checkListing(
    binding.accepted,
    binding.skillPath,
    own.map((resource) => resource.path),
    limits.isSecret,
  );
  const unsigned = mismatches.filter((m) => m.kind === 'added').map((m) => m.file ?? '');
  trust.markUnsigned(directory, unsigned);
  const diagnostics = mismatches.flatMap((m) => diagnosticOf(trust, directory, m) ?? []);
  const kept = trust.enforcing ? own.filter((resource) => !unsigned.includes(resource.path)) : own;
  return { resources: kept.map((resource) => asSigned(binding, resource, limits.maxFileSize)), diagnostics };
}

/**
 * A listed resource as its manifest signed it: its size is the signed one, so
 * the listing the model gets is the signed library's (a file edited since is
 * refused when read, by the hash of its bytes).
 */
function asSigned(binding: SkillBinding, resource: SkillResource, maxFileSize: number): SkillResource {
  const signed = binding.accepted.skills.get(binding.skillPath)?.files.find(([path]) => path === resource.path);
  if (!signed || signed[1] === resource.size) return resource;
  const { tooLarge: _tooLarge, ...rest } = resource;
  return signed[1] > maxFileSize ? { ...rest, size: signed[1], tooLarge: true } : { ...rest, size: signed[1] };
}

/** The trust side of one discovery: the places admitted, a judge for each found skill, the bindings it made. */
export class TrustedScan {
  private readonly bindings = new Map<string, SkillBinding>();

  constructor(
    private readonly trust: TrustState,
    private readonly admissions: Admissions,
    /** Whether a judge gets each SKILL.md whole (`preload`: no activation reads it again, so it is checked whole here). */
    private readonly whole: boolean,
  ) {}

  /** Judge a found skill from the SKILL.md text read for it (`headHash`: its head's hash, when taken from the bytes read). */
  judge(where: { root: string; directory: string; file: string }, text: string, headHash?: string): HeadVerdict {
    const verdict = judgeSkill(this.trust, this.admissions.byRoot.get(where.root), where, headHash ?? headSha256(text));
    if (!verdict.binding || verdict.drop) return verdict;
    const mismatch = this.whole ? checkFile(verdict.binding.accepted, verdict.binding.skillPath, SKILL_FILE, text) : undefined;
    if (mismatch) {
      const diagnostic = diagnosticOf(this.trust, where.directory, mismatch);
      return { drop: this.trust.enforcing, ...(diagnostic ? { diagnostic } : {}) };
    }
    this.bindings.set(where.directory, verdict.binding);
    return verdict;
  }

  /**
   * Judge, in one pass, each skill whose head's hash `heads` holds (by real folder; the heads read by
   * now): a verdict for each of `locations`, undefined where there is no hash yet (judged from its text).
   */
  judgeHeads(locations: readonly SkillLocation[], heads: ReadonlyMap<string, string>): Array<HeadVerdict | undefined> {
    // A judge of whole files (preload) needs each text: nothing is judged from a hash alone.
    if (this.whole) return locations.map(() => undefined);
    return locations.map((location) => {
      const hash = heads.get(location.realDirectory);
      return hash === undefined ? undefined : this.judge(location, '', hash);
    });
  }

  /** An accepted skill's listing, when discovery lists resources (preload). */
  resources(directory: string, resources: SkillResource[], limits: { isSecret: (path: string) => boolean; maxFileSize: number }) {
    return checkResources(this.trust, directory, this.bindings.get(directory), resources, limits);
  }

  /** The discovery is over: its bindings replace the last one's; the place diagnostics to report. */
  finish(): Diagnostic[] {
    this.trust.setBindings(this.bindings);
    return this.admissions.diagnostics;
  }
}

/** Admit the places of `roots`, for a discovery about to judge their skills. */
export async function startTrustedScan(
  fs: SkillsFileSystem,
  roots: readonly string[],
  placeOf: (root: string) => string,
  trust: TrustState,
  whole: boolean,
): Promise<TrustedScan> {
  return new TrustedScan(trust, await admitPlaces(fs, roots, placeOf, trust), whole);
}

/**
 * A prebuilt index (a file, or one published to a bucket) under `trust`:
 * used only when sealed by trusted keys (`sisu-skills index --key`; see
 * trust/seal.ts), else it is unusable and every place is scanned and judged
 * instead. The first request checks the seal (one hash of the index but its
 * carried manifests, one small signature) and each sealed place's expiry and
 * version; a skill's
 * signed files are found when it is first activated, from its place's
 * manifest carried in the index (parsed then, once). Nothing is read from
 * the places to verify: a fleet that starts from the index verifies with no
 * extra request.
 */
import { resolve } from 'node:path';
import { createDiagnostic, type Diagnostic } from '../base/diagnostics.js';
import { childPath } from '../base/paths.js';
import { MANIFEST_FILE } from '../base/skill-file.js';
import type { SkillEntry } from '../base/model.js';
import { acceptedManifest, type AcceptedManifest } from '../trust/gate.js';
import { parseManifest } from '../trust/manifest.js';
import { openSeal, sealedManifests, type CarriedManifests, type SealedPlace } from '../trust/seal.js';
import type { SkillBinding, TrustState } from '../trust/state.js';
import { skillPathIn } from '../discover/trusted.js';
import { DamagedIndexError } from './prebuilt/codec-bytes.js';
import { Container, containerVersion } from './prebuilt/codec-container.js';
import { indexLocation, pathDecoderFor } from './prebuilt/codec-paths.js';
import { malformed, unusable } from './prebuilt/problems.js';
import { PREBUILT_INDEX_VERSION, SECTIONS } from './prebuilt/format.js';
import { readIndexBytes, type PrebuiltIndexRead, type PrebuiltReader } from './prebuilt/read.js';
import { skillRoots } from './prebuilt/read-skills.js';

const SEAL_FIX =
  'Build it with `sisu-skills index <sources> -o <file> --key <private key>`, or leave `index` out (every place is then scanned).';

/** `reader`, reading only sealed indexes under `trust`. */
export function trustedReader(reader: PrebuiltReader, trust: TrustState): PrebuiltReader {
  const parse: PrebuiltReader['parse'] = (bytes, file, options) => readSealed(bytes, file, options, reader, trust);
  return {
    parse,
    read: async (file, options) => {
      const path = resolve(file);
      // Bounded as the reader bounds it; when the file cannot be read, the reader says why, in its own words.
      const bytes = await readIndexBytes(path, options.fs);
      return bytes instanceof Uint8Array ? parse(bytes, path, options) : bytes;
    },
  };
}

/**
 * Where an index's `manifests` section lies in its bytes, as stored: what its seal's hash leaves out
 * (trust/seal.ts). Undefined when it has none, or is of another format (the reader says so). Throws
 * DamagedIndexError when its header cannot be read.
 */
export function carriedManifests(indexBytes: Uint8Array): CarriedManifests | undefined {
  if (containerVersion(indexBytes) !== PREBUILT_INDEX_VERSION) return undefined;
  return Container.open(indexBytes).stored(SECTIONS.manifests);
}

/** A sealed place where the index was read: its folder (decoded), and whether this process accepted it. */
interface Place extends SealedPlace {
  dir: string;
  /** `dir` ending in a separator: what a folder inside it starts with. */
  within: string;
  accepted: boolean;
}

function readSealed(
  bytes: Uint8Array,
  file: string,
  options: Parameters<PrebuiltReader['parse']>[2],
  reader: PrebuiltReader,
  trust: TrustState,
): PrebuiltIndexRead {
  const path = indexLocation(file);
  const opened = openSeal(bytes);
  if (opened === undefined) return unusable(path, 'malformed', 'is not sealed, so `trust` cannot use it', SEAL_FIX);
  if ('problem' in opened) return unusable(path, 'malformed', opened.problem, SEAL_FIX);
  let carried: CarriedManifests | undefined;
  try {
    carried = carriedManifests(opened.indexBytes);
  } catch (error) {
    if (error instanceof DamagedIndexError) return malformed(path, error.message);
    throw error;
  }
  const problem = trust.gate.checkSeal(opened, carried);
  if (problem) return unusable(path, 'malformed', problem, SEAL_FIX);
  const read = reader.parse(opened.indexBytes, file, options);
  if (!read.ok) return read;
  const decode = pathDecoderFor(path);
  const diagnostics: Diagnostic[] = [];
  const places: Place[] = opened.statement.places.map((sealed) => {
    const dir = decode(sealed.place);
    const verdict = trust.gate.admitSealed(dir, sealed.version, sealed.expires);
    if (!verdict.ok) {
      const given = trust.once(createDiagnostic(verdict.code, childPath(dir, MANIFEST_FILE), verdict.message));
      if (given) diagnostics.push(given);
    }
    return { ...sealed, dir, within: childPath(dir, ''), accepted: verdict.ok };
  });
  // The innermost place holding the folder; asked once a skill at the first request, so nothing is made per call.
  const placeOf = (directory: string): Place | undefined => {
    let found: Place | undefined;
    for (const place of places) {
      const inside = directory === place.dir || directory.startsWith(place.within);
      if (inside && place.dir.length > (found?.dir.length ?? -1)) found = place;
    }
    return found;
  };
  const manifests = () => sealedManifests(read.result.section(SECTIONS.manifests), opened.statement);
  trust.setResolver(bindingsOf(manifests, placeOf));
  // The reader holds every skill inside these folders (read-skills.ts): when all lie in the one sealed place, so do its skills.
  const roots = skillRoots(options, read.result.scannedDirectories);
  const only = places.length === 1 ? places[0] : undefined;
  const whole = only && roots.every((root) => root === only.dir || root.startsWith(only.within)) ? only : undefined;
  const skills = servedSkills(read.result.skills, { placeOf, whole }, trust, diagnostics);
  const errors = [...diagnostics, ...read.result.errors];
  return { ok: true, result: { ...read.result, skills, errors } };
}

/**
 * The sealed index's skills that are served. `whole`: the one place every skill lies in, when the
 * index's folders say so; nothing is then asked of each skill (20,000 folder paths at the first request)
 * unless one was refused at an activation before.
 */
function servedSkills(
  skills: SkillEntry[],
  where: { placeOf: (directory: string) => Place | undefined; whole: Place | undefined },
  trust: TrustState,
  diagnostics: Diagnostic[],
): SkillEntry[] {
  const { whole } = where;
  if (whole && !whole.accepted) return trust.enforcing ? [] : skills;
  if (whole && !trust.hasRevokedAny()) return skills;
  return skills.filter((entry) => served(entry, where.placeOf(entry.directory), trust, diagnostics));
}

/** Whether a sealed index's skill is served; a skill outside every sealed place is reported once. */
function served(entry: SkillEntry, place: Place | undefined, trust: TrustState, diagnostics: Diagnostic[]): boolean {
  if (!place) {
    const message = `skill folder "${entry.directory}" lies in no place the index's seal names: it is not served. Sign its place and build the index again.`;
    const given = trust.once(createDiagnostic('UNTRUSTED_SKILL', entry.directory, message));
    if (given) diagnostics.push(given);
    return !trust.enforcing;
  }
  if (!place.accepted) return !trust.enforcing;
  // A skill refused at an activation stays out of this index, as out of a scan's (its binding is needed to tell).
  const binding = trust.hasRevoked(entry.directory) ? trust.bindingOf(entry.directory) : undefined;
  return !(binding && trust.isRevoked(entry.directory, binding) && trust.enforcing);
}

/** Finds a skill's binding in its place's manifest, which the index carries; each manifest is parsed once, at first use. */
function bindingsOf(
  manifests: () => Map<string, string>,
  placeOf: (directory: string) => Place | undefined,
): (directory: string) => SkillBinding | undefined {
  let texts: Map<string, string> | undefined;
  const accepted = new Map<string, AcceptedManifest | undefined>();
  const manifestOf = (place: Place): AcceptedManifest | undefined => {
    if (!accepted.has(place.place)) {
      texts ??= manifests();
      const read = parseManifest(texts.get(place.place) ?? '');
      accepted.set(place.place, read.ok ? acceptedManifest(place.dir, read.manifest) : undefined);
    }
    return accepted.get(place.place);
  };
  return (directory) => {
    const place = placeOf(directory);
    const manifest = place?.accepted ? manifestOf(place) : undefined;
    if (!place || !manifest) return undefined;
    const skillPath = skillPathIn(place.dir, directory);
    return manifest.skills.has(skillPath) ? { accepted: manifest, skillPath } : undefined;
  };
}

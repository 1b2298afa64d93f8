/**
 * `sisu-skills verify <place...> --key <file.pub>...`: the CI gate. For each
 * place: its manifest read and checked (signatures by the keys given, the
 * threshold, the expiry), then every skill observed and compared with it.
 * Every problem is listed as `file severity code message`, with the codes
 * the middleware uses (MANIFEST_INVALID, MANIFEST_EXPIRED, UNTRUSTED_SKILL),
 * then one line per place. The files are compared whenever the manifest
 * parses, even when its signatures or expiry fail, so one run shows all.
 *
 * Exit codes: 0 when every place verifies; 1 when any does not (or cannot
 * be read); 2 for wrong usage (a key file that is no Ed25519 public key).
 */
import { join } from 'node:path';
import { createDiagnostic, type Diagnostic } from '../base/diagnostics.js';
import { errorReason } from '../base/fs.js';
import { MANIFEST_FILE } from '../base/skill-file.js';
import { PlaceFiles, TooLargeError, type PlaceLocation } from '../source/place-files.js';
import { MAX_MANIFEST_BYTES } from '../trust/format.js';
import { compareLibrary, mismatchMessage, type Mismatch } from '../trust/compare.js';
import type { TrustedKey } from '../trust/keys.js';
import { manifestTooLarge, parseManifest, type ParsedManifest } from '../trust/manifest.js';
import { checkExpiry, checkSignatures, shortKeyId, signersOf } from '../trust/verify.js';
import type { VerifyArgs } from './args.js';
import { count, EXIT, formatForCli, type CliIO } from './io.js';
import { trustedKeyFiles } from './key-files.js';
import { locationOf, observePlace, progress, unsignedLine } from './observe.js';

/** What verify found at one place. */
interface PlaceResult {
  place: string;
  manifest: string;
  ok: boolean;
  version?: number;
  expires?: string;
  /** Ids of the trusted keys whose signatures verify. */
  signers: string[];
  skills: number;
  files: number;
  problems: Diagnostic[];
}

export async function verifyCommand(
  args: VerifyArgs,
  io: CliIO,
  deps: { files: PlaceFiles; now(): number } = { files: new PlaceFiles(), now: Date.now },
): Promise<number> {
  const keys = await trustedKeyFiles(args.keys, io);
  const locations = args.places.map((place) => locationOf('verify', place, io.cwd));
  const results: PlaceResult[] = [];
  for (const [i, place] of args.places.entries()) {
    results.push(await verifyPlace(place, locations[i] as PlaceLocation, keys, args.threshold, io, deps));
  }
  const ok = results.every((result) => result.ok);
  if (args.json) {
    io.out(JSON.stringify({ ok, threshold: args.threshold, keys: keys.map((key) => key.id), places: results }, null, 2));
    return ok ? EXIT.ok : EXIT.problems;
  }
  for (const result of results) {
    for (const problem of result.problems) io.out(formatForCli(problem, io.cwd));
    io.out(summary(result, args.threshold));
  }
  return ok ? EXIT.ok : EXIT.problems;
}

function summary(result: PlaceResult, threshold: number): string {
  if (!result.ok) return `FAILED: ${result.place}: ${count(result.problems.length, 'problem')}.`;
  return (
    `OK: ${result.place}: version ${result.version}, ${count(result.skills, 'skill')} and ${count(result.files, 'file')} as signed; ` +
    `signed by ${count(result.signers.length, 'trusted key')} (${result.signers.map(shortKeyId).join(', ')}), ${threshold} needed; ` +
    `expires ${result.expires}.`
  );
}

async function verifyPlace(
  place: string,
  location: PlaceLocation,
  keys: readonly TrustedKey[],
  threshold: number,
  io: CliIO,
  deps: { files: PlaceFiles; now(): number },
): Promise<PlaceResult> {
  const result: PlaceResult = { place, manifest: location.manifestPath, ok: false, signers: [], skills: 0, files: 0, problems: [] };
  const problem = (code: Diagnostic['code'], file: string, message: string): void => {
    result.problems.push(createDiagnostic(code, file, message));
  };
  const manifestFile = location.manifestPath;
  let manifest: ParsedManifest;
  try {
    const bytes = await deps.files.readIfThere(manifestFile, MAX_MANIFEST_BYTES);
    if (bytes === undefined) {
      problem(
        'MANIFEST_INVALID',
        manifestFile,
        `no ${MANIFEST_FILE} here: sign the place with \`sisu-skills sign ${place} --key <file>\`.`,
      );
      return result;
    }
    const parsed = parseManifest(bytes);
    if (!parsed.ok) {
      problem(parsed.code, manifestFile, parsed.message);
      return result;
    }
    manifest = parsed.manifest;
  } catch (error) {
    const why = error instanceof TooLargeError ? manifestTooLarge(error.size) : `cannot be read (${errorReason(error)}).`;
    problem('MANIFEST_INVALID', manifestFile, why);
    return result;
  }
  for (const check of [checkSignatures(manifest, keys, threshold), checkExpiry(manifest, deps.now())])
    if (!check.ok) problem(check.code, manifestFile, check.message);
  Object.assign(result, { version: manifest.body.version, expires: manifest.body.expires, signers: signersOf(manifest, keys).trusted });
  try {
    const observed = await observePlace(place, location, deps.files, io.cwd, progress(io, 'verify', place));
    result.problems.push(...observed.unreadable);
    // Not a problem of the manifest's (it lists what is served); said so the folder is not lost from sight.
    for (const folder of observed.unsigned) io.err(unsignedLine('verify', place, folder, io.cwd));
    for (const mismatch of compareLibrary(manifest.body, observed.skills))
      problem('UNTRUSTED_SKILL', fileOf(location, mismatch), mismatchMessage(mismatch));
    result.skills = observed.skills.length;
    result.files = observed.skills.reduce((sum, skill) => sum + skill.files.length, 0);
  } catch (error) {
    problem('UNTRUSTED_SKILL', location.root, `the place cannot be read (${errorReason(error)}).`);
  }
  result.ok = result.problems.length === 0;
  return result;
}

/** The path a mismatch is about: the skill's folder, or its file. */
function fileOf(location: PlaceLocation, mismatch: Mismatch): string {
  const parts = [mismatch.skill === '.' ? '' : mismatch.skill, mismatch.file ?? ''].filter((part) => part !== '');
  if (location.inBucket) return [location.root, ...parts].join('/');
  return join(location.root, ...parts);
}

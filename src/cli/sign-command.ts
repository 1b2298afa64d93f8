/**
 * `sisu-skills sign <place...> --key <file>`: observe each place (observe.ts),
 * decide against the manifest already there (trust/sign.ts), and write
 * `skills.manifest.json` at its root: a file replaced at once (a temporary
 * file, then a rename), or one PutObject in a bucket (as `index -o s3://`).
 *
 * Exit codes: 0 when every place was signed; 1 when a place cannot be read,
 * its manifest cannot be read without --version, or cannot be written (it
 * is then left as it was); 2 for wrong usage (a key file that is no Ed25519
 * private key included).
 */
import { errorReason } from '../base/fs.js';
import { PlaceFiles, TooLargeError, type PlaceLocation } from '../source/place-files.js';
import { MAX_MANIFEST_BYTES } from '../trust/format.js';
import { publishIndex } from '../index/published-index.js';
import type { SigningKey } from '../trust/keys.js';
import { manifestTooLarge, parseManifest } from '../trust/manifest.js';
import { manifestSkills, signManifest, type ExistingManifest, type SignOutcome } from '../trust/sign.js';
import { shortKeyId } from '../trust/verify.js';
import type { SignArgs } from './args.js';
import { count, displayPath, EXIT, formatForCli, type CliIO } from './io.js';
import { signingKeyFile } from './key-files.js';
import { locationOf, observePlace, progress, unsignedLine } from './observe.js';
import { writeFileAtomically } from './write-atomic.js';

/** How sign reaches the world; tests replace parts. */
export interface SignDeps {
  write(path: string, text: string): Promise<void>;
  publish(url: string, text: string): Promise<void>;
  now(): number;
  files: PlaceFiles;
}

const defaultDeps = (): SignDeps => ({ write: writeFileAtomically, publish: publishIndex, now: Date.now, files: new PlaceFiles() });

interface Signed extends SignOutcome {
  place: string;
  manifest: string;
  skills: number;
  files: number;
}

export async function signCommand(args: SignArgs, io: CliIO, deps: SignDeps = defaultDeps()): Promise<number> {
  const key = await signingKeyFile(args.key, io);
  const locations = args.places.map((place) => locationOf('sign', place, io.cwd));
  const signed: Signed[] = [];
  let failed = false;
  for (const [i, place] of args.places.entries()) {
    const location = locations[i] as PlaceLocation;
    const result = await signPlace(place, location, args, key, io, deps);
    if (result) signed.push(result);
    else failed = true;
  }
  if (args.json) {
    io.out(
      JSON.stringify(
        signed.map(({ text: _text, ...rest }) => ({ ...rest, keyid: key.id })),
        null,
        2,
      ),
    );
  }
  return failed ? EXIT.problems : EXIT.ok;
}

/** The manifest at `location` before signing: none, one, or one that cannot be read (with why). */
async function existingAt(location: PlaceLocation, files: PlaceFiles): Promise<ExistingManifest> {
  let bytes: Uint8Array | undefined;
  try {
    bytes = await files.readIfThere(location.manifestPath, MAX_MANIFEST_BYTES);
  } catch (error) {
    if (error instanceof TooLargeError) return { kind: 'unreadable', message: manifestTooLarge(error.size) };
    throw error;
  }
  if (bytes === undefined) return { kind: 'none' };
  const read = parseManifest(bytes);
  return read.ok ? { kind: 'manifest', manifest: read.manifest } : { kind: 'unreadable', message: read.message };
}

async function signPlace(
  place: string,
  location: PlaceLocation,
  args: SignArgs,
  key: SigningKey,
  io: CliIO,
  deps: SignDeps,
): Promise<Signed | undefined> {
  const shown = displayPath(location.manifestPath, io.cwd);
  const fail = (why: string): undefined => {
    io.err(`sisu-skills: sign: ${place}: ${why}; nothing was written to ${shown}.`);
    return undefined;
  };
  let observed: Awaited<ReturnType<typeof observePlace>>;
  let existing: ExistingManifest;
  try {
    observed = await observePlace(place, location, deps.files, io.cwd, progress(io, 'sign', place));
    existing = await existingAt(location, deps.files);
  } catch (error) {
    return fail(`cannot read it (${errorReason(error)})`);
  }
  if (observed.unreadable.length > 0) {
    for (const d of observed.unreadable) io.err(formatForCli(d, io.cwd));
    return fail('the place cannot be read');
  }
  const skills = manifestSkills(observed.skills);
  const outcome = signManifest(existing, {
    skills,
    key,
    now: deps.now(),
    expiresInMs: args.expiresInMs,
    renew: args.renew,
    ...(args.version === undefined ? {} : { version: args.version }),
  });
  if ('problem' in outcome) return fail(outcome.problem);
  try {
    await (location.inBucket ? deps.publish : deps.write)(location.manifestPath, outcome.text);
  } catch (error) {
    const fix = location.inBucket ? 'Check the bucket, its credentials and s3:PutObject' : 'Check that you can write to the folder';
    return fail(`cannot write the manifest (${errorReason(error)}). ${fix}`);
  }
  const files = skills.reduce((sum, skill) => sum + skill.files.length, 0);
  report(place, shown, outcome, { skills: skills.length, files, leftOut: observed.leftOut }, key, io, args.json);
  for (const folder of observed.unsigned) io.err(unsignedLine('sign', place, folder, io.cwd));
  return { ...outcome, place, manifest: location.manifestPath, skills: skills.length, files };
}

function report(
  place: string,
  shown: string,
  outcome: SignOutcome,
  counts: { skills: number; files: number; leftOut: number },
  key: SigningKey,
  io: CliIO,
  json: boolean,
): void {
  const id = shortKeyId(key.id);
  if (!json) {
    io.out(
      outcome.added
        ? `Added a signature to ${shown}: version ${outcome.version} (content unchanged), now ${count(outcome.signatures, 'signature')}; ` +
            `expires ${outcome.expires}; key ${id}.`
        : `Signed ${shown}: version ${outcome.version}, ${count(counts.skills, 'skill')}, ${count(counts.files, 'file')}; ` +
            `expires ${outcome.expires}; key ${id}.`,
    );
  }
  if (outcome.dropped.length > 0)
    io.err(
      `sign: ${place}: the signatures of ${count(outcome.dropped.length, 'other key')} (${outcome.dropped.map(shortKeyId).join(', ')}) were on ` +
        `version ${outcome.version - 1} and are not on version ${outcome.version}: each must sign again (sisu-skills sign ${place} --key <its key>).`,
    );
  if (counts.leftOut > 0)
    io.err(
      `sign: ${place}: ${count(counts.leftOut, 'skill folder')} did not load ` +
        `(${counts.leftOut === 1 ? 'it is signed as it is' : 'they are signed as they are'}, and not served); \`sisu-skills validate ${place}\` lists why.`,
    );
  if (counts.skills === 0) io.err(`sign: ${place}: no skills found: the manifest lists none.`);
}

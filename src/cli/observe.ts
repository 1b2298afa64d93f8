/**
 * A place as `sign` and `verify` see it: every skill discovery loads there
 * (the same listing the middleware serves from: SKILL.md and every resource,
 * never secrets, dot-files or node_modules), each file hashed, and each
 * SKILL.md's head hashed as the scan reads it. One place at a time, so a
 * name in one place never hides a skill of another. Skill folders discovery
 * found but did not load (an error, a name loaded before) are signed too, as
 * they are: a library's broken fixtures then read at run time as what they
 * are (their own diagnostic), not as unsigned folders. On disk their
 * resources are listed as discovery lists them; in a bucket, their SKILL.md
 * alone (they are not served).
 */
import { realpath } from 'node:fs/promises';
import { sep } from 'node:path';
import type { Diagnostic } from '../base/diagnostics.js';
import { errorReason, nodeFileSystem } from '../base/fs.js';
import { DEFAULTS } from '../config/defaults.js';
import { listResources, resourceLimits } from '../discover/resources.js';
import { createLimiter } from '../base/concurrency.js';
import { MANIFEST_FILE, SKILL_FILE } from '../base/skill-file.js';
import { headByteLength } from '../discover/head.js';
import type { Skill } from '../base/model.js';
import { SkillsUsageError } from '../config/errors.js';
import { pathInPlace, placeLocation, type PlaceFiles, type PlaceLocation } from '../source/place-files.js';
import { sha256Hex } from '../trust/digest.js';
import type { ObservedFile, ObservedSkill } from '../trust/sign.js';
import { displayPath, type CliIO } from './io.js';
import { load, type Loaded } from './load.js';
import { progressReporter } from './progress.js';

export interface ObservedPlace {
  skills: ObservedSkill[];
  /** Skill folders discovery found but did not load (errors, a name loaded before): signed as they are, not served. */
  leftOut: number;
  /** Of those, the folders that could not be read either: not in the manifest (so never served), each with why. */
  unsigned: UnsignedFolder[];
  /** Problems with the place itself (missing, unreadable): nothing was observed. */
  unreadable: Diagnostic[];
}

/** A folder that did not load and could not be read: `directory` as discovery gave it, `reason` the read's error. */
export interface UnsignedFolder {
  directory: string;
  reason: string;
}

/** Files read at once: enough to keep a bucket's round trips overlapping. */
const READS_IN_FLIGHT = 16;

/** Reports hashing progress: files done, of how many. */
export type OnHashed = (done: number, total: number) => void;

/** Discover the place at `location` (given as `place`), then hash what it serves. */
export async function observePlace(
  place: string,
  location: PlaceLocation,
  files: PlaceFiles,
  cwd: string,
  onHashed: OnHashed = () => undefined,
): Promise<ObservedPlace> {
  const loaded = await load({ directories: [place], packages: [], strict: false, include: [], exclude: [] }, cwd);
  if (loaded.unreadable.length > 0) return { skills: [], leftOut: 0, unsigned: [], unreadable: loaded.unreadable };
  const left = await leftOutSkills(loaded, location);
  const every = [...loaded.skills, ...left];
  const run = createLimiter(READS_IN_FLIGHT);
  const total = every.reduce((sum, skill) => sum + 1 + skill.resources.length, 0);
  let done = 0;
  const counted = async <T>(work: () => Promise<T>): Promise<T> => {
    const result = await run(work);
    onHashed(++done, total);
    return result;
  };
  const unsigned: UnsignedFolder[] = [];
  // A folder that did not load may not even be readable: it is then left unsigned (it is unserved), and said so.
  const unsignedWhen = (directory: string) => (error: unknown) => {
    unsigned.push({ directory, reason: errorReason(error) });
    return undefined;
  };
  const skills = await Promise.all(
    every.flatMap((skill, i) => {
      const path = pathInPlace(location, skill.directory);
      if (path === undefined) return [];
      const observed = observeSkill(skill, path, files, counted);
      return [i < loaded.skills.length ? observed : observed.catch(unsignedWhen(skill.directory))];
    }),
  );
  unsigned.sort((a, b) => (a.directory < b.directory ? -1 : a.directory > b.directory ? 1 : 0));
  return { skills: skills.filter((skill) => skill !== undefined), leftOut: left.length - unsigned.length, unsigned, unreadable: [] };
}

/** The skill folders the scan found but did not load (their SKILL.md named by a diagnostic), as skills to sign. */
async function leftOutSkills(loaded: Loaded, location: PlaceLocation): Promise<Array<Pick<Skill, 'path' | 'directory' | 'resources'>>> {
  const loadedFolders = new Set(loaded.skills.map((skill) => skill.directory));
  const suffix = `${location.inBucket ? '/' : sep}${SKILL_FILE}`;
  const folders = new Set(
    loaded.diagnostics
      .filter((d) => d.file.endsWith(suffix))
      .map((d) => d.file.slice(0, -suffix.length))
      .filter((folder) => !loadedFolders.has(folder)),
  );
  const limits = resourceLimits({ maxFileSize: DEFAULTS.maxFileSize });
  return Promise.all(
    [...folders].map(async (directory) => {
      const path = `${directory}${suffix}`;
      if (location.inBucket) return { path, directory, resources: [] };
      const real = await realpath(directory).catch(() => directory);
      return { path, directory, resources: (await listResources(nodeFileSystem, directory, real, limits)).resources };
    }),
  );
}

async function observeSkill(
  skill: Pick<Skill, 'path' | 'directory' | 'resources'>,
  path: string,
  files: PlaceFiles,
  counted: <T>(work: () => Promise<T>) => Promise<T>,
): Promise<ObservedSkill> {
  // The manifest is the place's, never a resource of the skill that is the place.
  const resources = skill.resources.filter((resource) => !(path === '.' && resource.path === MANIFEST_FILE));
  const [head, hashed] = await Promise.all([
    counted(async () => {
      const bytes = await files.read(skill.path);
      return { size: bytes.length, sha256: sha256Hex(bytes), frontmatter: sha256Hex(bytes.subarray(0, headByteLength(bytes))) };
    }),
    Promise.all(
      resources.map((resource) =>
        counted(async (): Promise<ObservedFile> => ({ path: resource.path, ...(await files.hash(resource.absolutePath)) })),
      ),
    ),
  ]);
  return { path, frontmatter: head.frontmatter, files: [{ path: SKILL_FILE, size: head.size, sha256: head.sha256 }, ...hashed] };
}

/** Where `place` is, or a usage error for an s3:// URL that names no place. */
export function locationOf(command: 'sign' | 'verify', place: string, cwd: string): PlaceLocation {
  const location = placeLocation(place, cwd);
  if ('problem' in location) throw new SkillsUsageError(`${command}: ${place} names no place: ${location.problem}.`);
  return location;
}

/** Hashing progress on a terminal (progress.ts): a line per tenth of the files hashed, for places of more than 100 files. */
export function progress(io: CliIO, command: string, place: string): OnHashed {
  const report = progressReporter(io, command, { least: 101 });
  return report ? (done, total) => report(`hashing the files of ${place}`, done, total) : () => undefined;
}

/** A folder that did not load and could not be read: not in the manifest, so never served; how to fix it. */
export function unsignedLine(command: 'sign' | 'verify', place: string, folder: UnsignedFolder, cwd: string): string {
  return (
    `${command}: ${place}: ${displayPath(folder.directory, cwd)} did not load and cannot be read (${folder.reason}): ` +
    `it is not in the manifest, so it is never served. Fix or remove it, then sign the place again.`
  );
}

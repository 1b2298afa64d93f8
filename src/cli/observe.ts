/**
 * A place as `sign` and `verify` see it: every skill discovery loads there
 * (the same listing the middleware serves from: SKILL.md and every resource,
 * never secrets, dot-files or node_modules), each file hashed, and each
 * SKILL.md's head hashed as the scan reads it. One place at a time, so a
 * name in one place never hides a skill of another. Skill folders left out
 * by errors or a clashing name are counted: they are not signed, and never
 * served either.
 */
import type { Diagnostic } from '../base/diagnostics.js';
import { createLimiter } from '../base/concurrency.js';
import { MANIFEST_FILE, SKILL_FILE } from '../base/skill-file.js';
import { headByteLength } from '../discover/head.js';
import type { Skill } from '../base/model.js';
import { SkillsUsageError } from '../config/errors.js';
import { pathInPlace, placeLocation, type PlaceFiles, type PlaceLocation } from '../source/place-files.js';
import { sha256Hex } from '../trust/digest.js';
import type { ObservedFile, ObservedSkill } from '../trust/sign.js';
import type { CliIO } from './io.js';
import { load } from './load.js';

export interface ObservedPlace {
  skills: ObservedSkill[];
  /** Skill folders discovery did not load (errors, a name loaded before): not signed, not served. */
  leftOut: number;
  /** Problems with the place itself (missing, unreadable): nothing was observed. */
  unreadable: Diagnostic[];
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
  if (loaded.unreadable.length > 0) return { skills: [], leftOut: 0, unreadable: loaded.unreadable };
  const leftOut = loaded.errors + loaded.diagnostics.filter((d) => d.code === 'SKILL_DUPLICATE').length;
  const run = createLimiter(READS_IN_FLIGHT);
  const total = loaded.skills.reduce((sum, skill) => sum + 1 + skill.resources.length, 0);
  let done = 0;
  const counted = async <T>(work: () => Promise<T>): Promise<T> => {
    const result = await run(work);
    onHashed(++done, total);
    return result;
  };
  const skills = await Promise.all(
    loaded.skills.flatMap((skill) => {
      const path = pathInPlace(location, skill.directory);
      return path === undefined ? [] : [observeSkill(skill, path, files, counted)];
    }),
  );
  return { skills, leftOut, unreadable: [] };
}

async function observeSkill(
  skill: Skill,
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

/** A progress line per tenth of the files hashed, for places of more than 100 files, when stderr is a terminal. */
export function progress(io: CliIO, place: string): (done: number, total: number) => void {
  let shown = -1;
  return (done, total) => {
    if (!io.progress || total <= 100) return;
    const step = Math.floor((done * 10) / total);
    if (step === shown && done !== total) return;
    shown = step;
    io.progress(`${place}: ${done}/${total} files hashed`);
  };
}

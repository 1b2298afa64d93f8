/**
 * The skill index: discovery's result frozen into a name lookup, shared by
 * every request until it is rebuilt. A request's run (src/run/run.ts) publishes a
 * view of it that other middleware reads as `ctx.skills` / `ctx.state.skills`.
 *
 * The index holds metadata (level 1). A skill's instructions and resource
 * listing (level 2) are loaded on first activation and kept as long as the
 * index, so start-up reads only frontmatter and memory stays small.
 */
import { sep } from 'node:path';
import { compactCopies, sharingParents } from '../base/compact.js';
import { nameLookup } from '../base/name-lookup.js';
import type { Diagnostic } from '../base/diagnostics.js';
import { SKILL_FILE } from '../base/skill-file.js';
import type { Skill, SkillEntry } from '../base/model.js';

/** A skill loaded for activation, with the problems found while loading it (resource warnings). */
export interface LoadedSkill {
  skill: Skill;
  diagnostics: readonly Diagnostic[];
  /** True for the call that actually loaded it; later calls get the cached copy. */
  first: boolean;
}

export interface SkillIndex {
  /** Loaded skills, in catalog order. Names are unique. */
  readonly skills: readonly SkillEntry[];
  get(name: string): SkillEntry | undefined;
  /** The skill's instructions and resources, read on first use and then cached; undefined for an unknown name. Rejects when the files can no longer be read. */
  load(name: string): Promise<Skill | undefined>;
  /** `load`, plus the diagnostics found while loading. */
  loadDetailed(name: string): Promise<LoadedSkill | undefined>;
  readonly errors: readonly Diagnostic[];
  readonly warnings: readonly Diagnostic[];
  readonly scannedDirectories: readonly string[];
  /** When discovery finished (epoch milliseconds). */
  readonly loadedAt: number;
}

/** What an index is built from: a discovery result, or just a list of skills. */
export interface SkillIndexInput<S extends SkillEntry = Skill> {
  skills: readonly S[];
  errors?: readonly Diagnostic[];
  warnings?: readonly Diagnostic[];
  scannedDirectories?: readonly string[];
}

/** Reads a skill's instructions and resources (level 2) for an index entry (`S`: what the index holds of each skill). */
export type SkillLoader<S extends SkillEntry = SkillEntry> = (entry: S) => Promise<{ skill: Skill; diagnostics: readonly Diagnostic[] }>;

/**
 * First wins, as in discovery, so a hand-built list agrees with the catalog
 * too. A function of its own so its set of names is dropped when it returns:
 * built inside buildIndex, it would share the scope the index's closures keep.
 */
export function firstOfEachName<S extends SkillEntry>(skills: readonly S[]): S[] {
  const seen = new Set<string>();
  return skills.filter((entry) => !seen.has(entry.metadata.name) && Boolean(seen.add(entry.metadata.name)));
}

function buildIndex<S extends SkillEntry>(input: SkillIndexInput<S>, loader: SkillLoader<S>, loadedAt: number): SkillIndex {
  const skills = firstOfEachName(input.skills);
  const find = nameLookup(skills, (entry) => entry.metadata.name);
  const loads = new Map<string, Promise<{ skill: Skill; diagnostics: readonly Diagnostic[] }>>();

  async function loadDetailed(name: string): Promise<LoadedSkill | undefined> {
    const entry = find(name);
    if (!entry) return undefined;
    let pending = loads.get(name);
    const first = pending === undefined;
    if (!pending) {
      pending = loader(entry);
      loads.set(name, pending);
      // A failed load is not kept: the next activation tries again.
      pending.catch(() => loads.delete(name));
    }
    const { skill, diagnostics } = await pending;
    return { skill, diagnostics, first };
  }

  return Object.freeze({
    skills: Object.freeze(skills),
    get: find,
    load: async (name: string) => (await loadDetailed(name))?.skill,
    loadDetailed,
    errors: Object.freeze([...(input.errors ?? [])]),
    warnings: Object.freeze([...(input.warnings ?? [])]),
    scannedDirectories: Object.freeze([...(input.scannedDirectories ?? [])]),
    loadedAt,
  });
}

/** An index over skills already loaded in full (discoverSkills' result, or a hand-built list). */
export function createSkillIndex(input: SkillIndexInput<Skill>, loadedAt = Date.now()): SkillIndex {
  // Each entry is the skill, loaded already.
  return buildIndex(input, async (skill) => ({ skill, diagnostics: [] }), loadedAt);
}

const SKILL_SUFFIX = `${sep}${SKILL_FILE}`;

/**
 * An index that keeps metadata only and loads each skill with `loader` on
 * first activation. It keeps only level-1 fields, copied compactly (see
 * src/base/compact.ts), so nothing else discovery produced stays reachable.
 */
export function createLazySkillIndex(
  input: SkillIndexInput<SkillEntry>,
  loader: SkillLoader,
  loadedAt = Date.now(),
  /**
   * True when the entries are already compact: a prebuilt index's, made by
   * its reader with these three fields only, whose metadata is fresh from
   * JSON.parse (what the copy would make) and whose SKILL.md paths share
   * their folder's characters. They are kept as they are (a copy of each
   * was 20,000 objects of garbage at a first request). Their folder paths are
   * left as decoding joined them, pieces and all: about 1 MB more at 20,000
   * skills than flat copies, where the copies cost about 25 ms of the start-up
   * from an index (and the index path's heap is far within its bound).
   */
  compact = false,
): SkillIndex {
  if (compact) return buildIndex(input, loader, loadedAt);
  const directories = sharingParents(
    input.skills.map((entry) => entry.directory),
    sep,
  );
  const metadata = compactCopies(input.skills.map((entry) => entry.metadata));
  const entries = input.skills.map(({ path, directory }, i) => {
    const folder = directories[i] ?? directory;
    // Compared with the given folder, not `folder`: reading a pair's characters would copy it flat.
    const inFolder = path.length === directory.length + SKILL_SUFFIX.length && path.endsWith(SKILL_SUFFIX) && path.startsWith(directory);
    return { metadata: metadata[i] as SkillEntry['metadata'], path: inFolder ? folder + SKILL_SUFFIX : path, directory: folder };
  });
  return buildIndex({ ...input, skills: entries }, loader, loadedAt);
}

/**
 * The part of `index` whose entries pass `keep`, sharing its loader and cache:
 * what the model may see and activate when some skills opt out of it.
 * `keep` must give one answer per entry: lookups ask it again.
 */
export function narrowIndex(index: SkillIndex, keep: (entry: SkillEntry) => boolean): SkillIndex {
  const skills = index.skills.filter(keep);
  if (skills.length === index.skills.length) return index;
  // Names are unique in an index, so a name is in the part when the whole's skill of that name passes `keep`:
  // asked again per lookup instead of a Set of the part's names (some 0.5 MB and 7 ms at 20,000 skills).
  const inPart = (name: string): boolean => {
    const entry = index.get(name);
    return entry !== undefined && keep(entry);
  };
  return Object.freeze({
    ...index,
    skills: Object.freeze(skills),
    get: (name: string) => (inPart(name) ? index.get(name) : undefined),
    load: async (name: string) => (inPart(name) ? index.load(name) : undefined),
    loadDetailed: async (name: string) => (inPart(name) ? index.loadDetailed(name) : undefined),
  });
}

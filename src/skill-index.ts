/**
 * The skill index: discovery's result frozen into a name lookup, shared by
 * every request until it is rebuilt. A request's run (src/run.ts) publishes a
 * view of it that other middleware reads as `ctx.skills` / `ctx.state.skills`.
 *
 * The index holds metadata (level 1). A skill's instructions and resource
 * listing (level 2) are loaded on first activation and kept as long as the
 * index, so start-up reads only frontmatter and memory stays small.
 */
import { sep } from 'node:path';
import type { CatalogReport } from './catalog.js';
import type { Diagnostic } from './diagnostics.js';
import { SKILL_FILE } from './discover/scan.js';
import { nameLookup } from './name-lookup.js';
import type { Skill, SkillEntry } from './types.js';

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

/** What one run (one ctx) sees: the index it was given, and what it activated. */
export interface SkillsState extends SkillIndex {
  /** Names of the skills activated in this conversation (earlier turns included), in activation order. */
  readonly activated: readonly string[];
  /** What the catalog in this run's system prompt holds, and what the budget cut. */
  readonly catalog: CatalogReport | undefined;
}

/** What an index is built from: a discovery result, or just a list of skills. */
export interface SkillIndexInput<S extends SkillEntry = Skill> {
  skills: readonly S[];
  errors?: readonly Diagnostic[];
  warnings?: readonly Diagnostic[];
  scannedDirectories?: readonly string[];
}

/** Reads a skill's instructions and resources (level 2) for an index entry. */
export type SkillLoader = (entry: SkillEntry) => Promise<{ skill: Skill; diagnostics: readonly Diagnostic[] }>;

/**
 * First wins, as in discovery, so a hand-built list agrees with the catalog
 * too. A function of its own so its set of names is dropped when it returns:
 * built inside buildIndex, it would share the scope the index's closures keep.
 */
function firstOfEachName<S extends SkillEntry>(skills: readonly S[]): S[] {
  const seen = new Set<string>();
  return skills.filter((entry) => !seen.has(entry.metadata.name) && Boolean(seen.add(entry.metadata.name)));
}

function buildIndex(input: SkillIndexInput<SkillEntry>, loader: SkillLoader, loadedAt: number): SkillIndex {
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
  return buildIndex(input, async (entry) => ({ skill: entry as Skill, diagnostics: [] }), loadedAt);
}

const SKILL_SUFFIX = `${sep}${SKILL_FILE}`;

/** An index that keeps metadata only and loads each skill with `loader` on first activation. */
export function createLazySkillIndex(input: SkillIndexInput<SkillEntry>, loader: SkillLoader, loadedAt = Date.now()): SkillIndex {
  // Folder paths come from joins: strings built of pieces (some shared, some not) that cost
  // about twice a flat copy. JSON.parse gives one flat string each, in one pass for all.
  const directories = JSON.parse(JSON.stringify(input.skills.map((entry) => entry.directory))) as string[];
  // Keep only level-1 fields, so nothing else discovery produced stays reachable.
  const entries = input.skills.map(({ metadata, path, directory }, i) => {
    const folder = directories[i] ?? directory;
    return {
      metadata: compactCopy(metadata) as SkillEntry['metadata'],
      // The usual path is the folder plus a fixed suffix: stored as a pair that shares the folder's characters.
      path: path.length === folder.length + SKILL_SUFFIX.length && path.endsWith(SKILL_SUFFIX) && path.startsWith(folder) ? folder + SKILL_SUFFIX : path,
      directory: folder,
    };
  });
  return buildIndex({ ...input, skills: entries }, loader, loadedAt);
}

/**
 * A deep copy of parsed frontmatter with every string stored on its own. The
 * parser's strings are slices of the file text, and a slice keeps its whole
 * source alive; the index lives for the whole process, so it keeps copies.
 */
export function compactCopy(value: unknown): unknown {
  // JSON.parse builds flat strings (no slice wrapper around a copy) and objects sized
  // to their keys: about 5 MB less at 20,000 skills than copying value by value, for
  // some milliseconds more per 2,000. Only for values JSON carries unchanged.
  if (jsonExact(value)) return JSON.parse(JSON.stringify(value)) as unknown;
  return copyEach(value);
}

/** Whether a JSON round trip gives back a deep-equal value (no NaN, ±Infinity, -0 or undefined). */
function jsonExact(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value) && !Object.is(value, -0);
    case 'object':
      if (value === null) return true;
      if (Array.isArray(value)) return value.every(jsonExact);
      if (Object.getPrototypeOf(value) !== Object.prototype) return false;
      for (const key in value) {
        if (!jsonExact((value as Record<string, unknown>)[key])) return false;
      }
      return true;
    default:
      return false;
  }
}

function copyEach(value: unknown): unknown {
  if (typeof value === 'string') return flatString(value);
  if (Array.isArray(value)) return value.map(copyEach);
  if (typeof value === 'object' && value !== null) {
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (key === '__proto__') {
        // Assignment would set the prototype; keep it an ordinary property, as the parser made it.
        Object.defineProperty(copy, key, { value: copyEach(item), enumerable: true, writable: true, configurable: true });
      } else {
        // Plain assignment keeps the object in V8's compact (shared-shape) form.
        copy[flatString(key)] = copyEach(item);
      }
    }
    return copy;
  }
  return value;
}

function flatString(text: string): string {
  // Slicing a concatenation makes V8 copy it into one new string; V8 copies
  // strings under 13 characters anyway.
  return text.length < 13 ? text : ` ${text}`.slice(1);
}

/**
 * The part of `index` whose entries pass `keep`, sharing its loader and cache:
 * what the model may see and activate when some skills opt out of it.
 */
export function narrowIndex(index: SkillIndex, keep: (entry: SkillEntry) => boolean): SkillIndex {
  const skills = index.skills.filter(keep);
  if (skills.length === index.skills.length) return index;
  const names = new Set(skills.map((entry) => entry.metadata.name));
  return Object.freeze({
    ...index,
    skills: Object.freeze(skills),
    get: (name: string) => (names.has(name) ? index.get(name) : undefined),
    load: async (name: string) => (names.has(name) ? index.load(name) : undefined),
    loadDetailed: async (name: string) => (names.has(name) ? index.loadDetailed(name) : undefined),
  });
}

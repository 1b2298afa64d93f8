/**
 * The skill index: discovery's result frozen into a name lookup, shared by
 * every request until it is rebuilt, and the per-run view of it that other
 * middleware reads as `ctx.skills` / `ctx.state.skills`.
 */
import type { Diagnostic } from './diagnostics.js';
import type { Skill } from './types.js';

export interface SkillIndex {
  /** Loaded skills, in catalog order. Names are unique. */
  readonly skills: readonly Skill[];
  get(name: string): Skill | undefined;
  readonly errors: readonly Diagnostic[];
  readonly warnings: readonly Diagnostic[];
  readonly scannedDirectories: readonly string[];
  /** When discovery finished (epoch milliseconds). */
  readonly loadedAt: number;
}

/** What one run (one ctx) sees: the index it was given, and what it activated. */
export interface SkillsState extends SkillIndex {
  /** Names of the skills activated in this run, in activation order. */
  readonly activated: readonly string[];
}

/** What an index is built from: a discovery result, or just a list of skills. */
export interface SkillIndexInput {
  skills: readonly Skill[];
  errors?: readonly Diagnostic[];
  warnings?: readonly Diagnostic[];
  scannedDirectories?: readonly string[];
}

export function createSkillIndex(result: SkillIndexInput, loadedAt = Date.now()): SkillIndex {
  const byName = new Map<string, Skill>();
  // First wins, as in discovery, so a hand-built list agrees with the catalog too.
  for (const skill of result.skills) {
    if (!byName.has(skill.metadata.name)) byName.set(skill.metadata.name, skill);
  }
  const skills = Object.freeze([...byName.values()]);
  return Object.freeze({
    skills,
    get: (name: string) => byName.get(name),
    errors: Object.freeze([...(result.errors ?? [])]),
    warnings: Object.freeze([...(result.warnings ?? [])]),
    scannedDirectories: Object.freeze([...(result.scannedDirectories ?? [])]),
    loadedAt,
  });
}

interface RunState {
  index: SkillIndex;
  activated: string[];
}

// Run states are found by the ctx.state object they belong to, so a tool
// handler given only the ctx finds the same run as the middleware did.
const runs = new WeakMap<object, RunState>();
const views = new WeakSet<object>();

function viewOf(run: RunState): SkillsState {
  const { index } = run;
  const view: SkillsState = {
    skills: index.skills,
    get: index.get,
    errors: index.errors,
    warnings: index.warnings,
    scannedDirectories: index.scannedDirectories,
    loadedAt: index.loadedAt,
    get activated() {
      return run.activated;
    },
  };
  views.add(view);
  return view;
}

/** Start (or continue) a run on `state` with `index`; returns the view to publish. */
export function beginRun(state: Record<string, unknown>, index: SkillIndex): SkillsState {
  const existing = runs.get(state);
  if (existing && existing.index === index) return viewOf(existing);
  // A rerun on the same ctx keeps what it already activated.
  const run: RunState = { index, activated: existing ? existing.activated : [] };
  runs.set(state, run);
  return viewOf(run);
}

/** The index of the run on `state`, if the middleware started one. */
export function runIndexOf(state: Record<string, unknown>): SkillIndex | undefined {
  return runs.get(state)?.index;
}

/** The names activated in the run on `state` (mutable), starting a run with `index` when there is none. */
export function activationsOf(state: Record<string, unknown>, index: SkillIndex): string[] {
  let run = runs.get(state);
  if (!run) {
    run = { index, activated: [] };
    runs.set(state, run);
  }
  return run.activated;
}

/** Whether `value` is a SkillsState made by this package. */
export function isSkillsState(value: unknown): value is SkillsState {
  return typeof value === 'object' && value !== null && views.has(value);
}

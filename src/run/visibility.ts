/**
 * Per-request visibility: the `visible(skill, ctx)` option asked once per
 * skill per request, and the part of an index a request may see. A hidden
 * skill is left out of that part entirely (entries, lookups, loads, and the
 * warnings about its files), so everything a request reads from it behaves
 * as if the skill had never been installed.
 */
import { sep } from 'node:path';
import type { Diagnostic } from '../base/diagnostics.js';
import type { SkillEntry } from '../base/model.js';
import { narrowIndex, type SkillIndex } from '../index/skill-index.js';
import type { SkillsContext } from './context.js';

/**
 * Decides, per request, whether a skill exists for it. Only `true` (or a
 * promise of `true`) shows the skill; `false`, anything else, a throw or a
 * rejection hides it.
 */
export type SkillVisibility = (skill: SkillEntry, ctx: SkillsContext) => boolean | Promise<boolean>;

/** A skill `visible` could not judge (it threw, rejected or returned something other than a boolean): hidden. */
export interface VisibilityFailure {
  skill: string;
  error: string;
}

export interface VisibleSet {
  /** Positions in `index.skills` of the hidden skills, ascending; empty when every skill is visible. */
  hidden: number[];
  failures: VisibilityFailure[];
}

/**
 * Ask `visible` about every skill of `index`, once each. Synchronous answers
 * cost no promise; asynchronous ones are awaited together.
 */
export async function askVisible(index: SkillIndex, visible: SkillVisibility, ctx: SkillsContext): Promise<VisibleSet> {
  const { skills } = index;
  const shown = new Uint8Array(skills.length);
  const failures: VisibilityFailure[] = [];
  const fail = (i: number, error: unknown): void => {
    failures.push({ skill: (skills[i] as SkillEntry).metadata.name, error: reasonOf(error) });
  };
  const judge = (i: number, answer: unknown): void => {
    if (answer === true) shown[i] = 1;
    else if (answer !== false) fail(i, `returned ${describe(answer)}, not true or false`);
  };
  let pending: Array<Promise<void>> | undefined;
  for (let i = 0; i < skills.length; i++) {
    let answer: unknown;
    try {
      answer = visible(skills[i] as SkillEntry, ctx);
    } catch (error) {
      fail(i, error);
      continue;
    }
    if (isThenable(answer)) {
      (pending ??= []).push(
        Promise.resolve(answer).then(
          (value) => judge(i, value),
          (error: unknown) => fail(i, error),
        ),
      );
    } else {
      judge(i, answer);
    }
  }
  if (pending) await Promise.all(pending);
  const hidden: number[] = [];
  for (let i = 0; i < shown.length; i++) if (shown[i] === 0) hidden.push(i);
  // Asynchronous failures arrive in settling order: report them in catalog order.
  if (pending && failures.length > 1) {
    const order = new Map(skills.map((entry, i) => [entry.metadata.name, i]));
    failures.sort((a, b) => (order.get(a.skill) ?? 0) - (order.get(b.skill) ?? 0));
  }
  return { hidden, failures };
}

/** A key naming the same hidden set for the same index: the positions, joined. */
export function visibilityKey(hidden: readonly number[]): string {
  return hidden.join(',');
}

/**
 * The part of `index` without the skills at `hidden`, sharing its loader and
 * cache. Warnings about a hidden skill's files are left out too (a skill
 * never installed has none); errors are kept, as they are about files that
 * did not load as skills at all.
 */
export function withoutSkills(index: SkillIndex, hidden: readonly number[]): SkillIndex {
  if (hidden.length === 0) return index;
  const hiddenEntries = new Set<SkillEntry>();
  for (const i of hidden) hiddenEntries.add(index.skills[i] as SkillEntry);
  const folders = [...hiddenEntries].map((entry) => entry.directory + sep);
  const aboutShown = (diagnostic: Diagnostic): boolean =>
    !folders.some((folder) => diagnostic.file.startsWith(folder) || `${diagnostic.file}${sep}` === folder);
  // The skills, lookups and loads of a narrowed index; warnings about hidden skills' folders left out too.
  const part = narrowIndex(index, (entry) => !hiddenEntries.has(entry));
  return Object.freeze({ ...part, warnings: Object.freeze(index.warnings.filter(aboutShown)) });
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)}`;
}

/**
 * Each skill's SKILL.md as the build saw it (size and mtime), and the check
 * at activation: a SKILL.md that changed or vanished since the build is
 * refused (INDEX_STALE) until the index is rebuilt, so the model never gets
 * text the catalog did not describe. On the middleware's path.
 */
import { createDiagnostic, type Diagnostic } from '../../base/diagnostics.js';
import { errorCode, errorReason, type FileStats, type SkillsFileSystem } from '../../base/fs.js';
import { SKILL_FILE } from '../../base/skill-file.js';
import type { SkillEntry } from '../../base/model.js';
import type { SkillStamp } from './format.js';

/** Each stored skill's SKILL.md stamp. */
export interface SkillStamps {
  /** The stamp of `entry` (an index's skill: the first of its name), or undefined when the index holds no such skill. */
  of(entry: SkillEntry): SkillStamp | undefined;
}

/**
 * Stamps kept in the skills' order, two numbers each. The lookup is built on
 * the first call (an activation), not at start-up, and by name, not by path:
 * names are short and already hashed, while a path as a key is first copied
 * flat (a Map by path held about 3 MB at 20,000 skills, and took 10 ms to
 * build). An index serves the first skill of each name, so the first wins.
 * The skills themselves give each name and path: no list of either is made
 * at start-up.
 */
export class StampTable implements SkillStamps {
  private byName: Map<string, number> | undefined;

  /** Skill i's SKILL.md size and mtime at positions i, as the index read them. */
  constructor(
    private readonly skills: readonly SkillEntry[],
    private readonly sizes: Float64Array,
    private readonly mtimes: Float64Array,
  ) {}

  of(entry: SkillEntry): SkillStamp | undefined {
    if (!this.byName) {
      this.byName = new Map();
      for (let i = 0; i < this.skills.length; i++) {
        const name = (this.skills[i] as SkillEntry).metadata.name;
        if (!this.byName.has(name)) this.byName.set(name, i);
      }
    }
    const at = this.byName.get(entry.metadata.name);
    if (at === undefined || this.skills[at]?.path !== entry.path) return undefined;
    return { size: this.sizes[at] as number, mtimeMs: this.mtimes[at] as number };
  }
}

export type SkillFileCheck =
  | { status: 'unchanged' }
  | {
      /** changed: other size or mtime (or no longer a regular file); vanished: gone; unreadable: stat failed otherwise. */
      status: 'changed' | 'vanished' | 'unreadable';
      skill: string;
      path: string;
      /** Briefly, what differs: "size 120 -> 98 bytes". */
      detail: string;
      /** For the model, in place of the skill's text. */
      message: string;
      /** For the operator (code INDEX_STALE). */
      diagnostic: Diagnostic;
    };

/**
 * Copies that keep timestamps through a double (node's `fs.cp`, `utimes`) move
 * mtime by a fraction of a millisecond; an edit after the build moves it by
 * far more. Copies that keep whole seconds only (tar, zip) still count as changed.
 */
export const MTIME_TOLERANCE_MS = 1;

/** Compare `entry`'s SKILL.md as it is now (`current`, from stat) with its stamp from the index. */
export function compareSkillStamp(entry: SkillEntry, recorded: SkillStamp, current: FileStats): SkillFileCheck {
  if (!current.isFile()) return stale(entry, 'changed', 'it is no longer a regular file');
  const changes: string[] = [];
  if (current.size !== recorded.size) changes.push(`size ${recorded.size} -> ${current.size} bytes`);
  if (Math.abs(current.mtimeMs - recorded.mtimeMs) >= MTIME_TOLERANCE_MS)
    changes.push(`modified ${isoOf(recorded.mtimeMs)} -> ${isoOf(current.mtimeMs)}`);
  return changes.length === 0 ? { status: 'unchanged' } : stale(entry, 'changed', changes.join(', '));
}

/** Stat `entry`'s SKILL.md through `fs` and compare it with its stamp. Never throws. */
export async function checkSkillFile(fs: SkillsFileSystem, entry: SkillEntry, recorded: SkillStamp): Promise<SkillFileCheck> {
  let current: FileStats;
  try {
    current = await fs.stat(entry.path);
  } catch (error) {
    const code = errorCode(error);
    return stale(entry, code === 'ENOENT' || code === 'ENOTDIR' ? 'vanished' : 'unreadable', errorReason(error));
  }
  return compareSkillStamp(entry, recorded, current);
}

function isoOf(ms: number): string {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? String(ms) : date.toISOString();
}

function stale(entry: SkillEntry, status: 'changed' | 'vanished' | 'unreadable', detail: string): SkillFileCheck {
  const skill = entry.metadata.name;
  const what =
    status === 'vanished'
      ? `was removed after the skills index was built (${detail})`
      : status === 'changed'
        ? `changed after the skills index was built (${detail}), so what the catalog says about it may be wrong`
        : `cannot be checked against the skills index (${detail})`;
  const message =
    `Skill "${skill}" is not available: its ${SKILL_FILE} ${what}. Continue without it or choose ` +
    `another skill; the operator must rebuild the skills index (sisu-skills index) to use it.`;
  return {
    status,
    skill,
    path: entry.path,
    detail,
    message,
    diagnostic: createDiagnostic(
      'INDEX_STALE',
      entry.path,
      `${SKILL_FILE} of skill "${skill}" ${what}. Rebuild the index with \`sisu-skills index\` after changing skills.`,
    ),
  };
}

/**
 * Directory scanning: which folders under the configured directories are
 * skills. Every folder holding a SKILL.md is a skill, a configured directory
 * itself included, and a folder inside a skill holding its own SKILL.md is a
 * separate skill.
 *
 * Two passes: walk.ts lists each real folder once (which is also why there
 * is no depth limit), tree-order.ts then goes through what was found in tree
 * order; link-loops.ts explains the links the system would not follow.
 */
import type { Diagnostic } from '../base/diagnostics.js';
import type { SkillsFileSystem } from '../base/fs.js';
import { explainLinkLoops } from './link-loops.js';
import { inTreeOrder, type Start } from './tree-order.js';
import { Walker, type FoundSkill, type SkillLocation } from './walk.js';

export type { FoundSkill, SkillFileType, SkillLocation } from './walk.js';
// Kept here while other modules still import them from the scanner; they live in leaf modules now.
export { createLimiter, limitConcurrency, MAX_CONCURRENT_FS_CALLS, memoizeReaddir, type Limiter } from '../base/concurrency.js';
export { childPath, isSameOrInside } from '../base/paths.js';
export { hasSkillFile, isSkippedName, SKILL_FILE } from '../base/skill-file.js';
export { symlinkLoop } from './link-loops.js';

export interface ScanResult {
  skills: SkillLocation[];
  diagnostics: Diagnostic[];
}

/**
 * Find the skills under one configured directory. Never throws. `onSkill` is
 * told of each skill as soon as its folder is listed (in no fixed order), so a
 * caller can start reading it while the walk goes on; the result's order is
 * the tree's.
 */
export function scanDirectory(fs: SkillsFileSystem, root: string, onSkill?: (found: FoundSkill) => void): Promise<ScanResult> {
  return scanDirectories(fs, [root], onSkill);
}

/**
 * Find the skills under several configured directories, each real folder
 * once: a folder reachable from two of them belongs to the first listed.
 */
export async function scanDirectories(
  fs: SkillsFileSystem,
  roots: readonly string[],
  onSkill?: (found: FoundSkill) => void,
): Promise<ScanResult> {
  const walker = new Walker(fs, onSkill);
  const starts = await Promise.all(roots.map((root) => start(fs, walker, root)));
  const { skills, notes } = inTreeOrder(walker.folders, starts);
  return { skills, diagnostics: await explainLinkLoops(fs, notes) };
}

/** Walk one configured directory from its real path. */
async function start(fs: SkillsFileSystem, walker: Walker, root: string): Promise<Start> {
  let realRoot: string;
  try {
    realRoot = await fs.realpath(root);
  } catch (error) {
    return { root, error };
  }
  await walker.visit(root, realRoot);
  return { root, realRoot };
}

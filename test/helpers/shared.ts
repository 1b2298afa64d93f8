/**
 * ../shared beside the clone: SISU's compiled packages and a corpus of
 * published skills, which CI links in and a clone anywhere else does not
 * have. The one place that says where each part is and whether it is here:
 * the suites that need a part skip without it (describeWith), vitest.config.ts
 * applies the coverage thresholds only when every part is here (the whole
 * suite runs), and the run's closing lines (run-summary.ts) name what was
 * skipped. Nothing finds ../shared through package.json or tsconfig, so
 * `npm ci` and `npm run typecheck` need none of it.
 *
 * No vitest import at the top level: vitest.config.ts loads this file too.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

export const SHARED_ROOT = resolve(REPO_ROOT, '..', 'shared');
export const SISU_ROOT = join(SHARED_ROOT, 'sisu');
export const SISU_MODULES = join(SISU_ROOT, 'node_modules');
/** @sisu-ai/core's entry point: the real host is here when this file is. */
export const SISU_CORE = join(SISU_MODULES, '@sisu-ai', 'core', 'dist', 'index.js');
/** SISU's published skill packages (`skill-code-review`, ...). */
export const SISU_SKILLS = join(SISU_ROOT, 'skills');
/** The corpus's SKILL.md files, one folder per skill. */
export const CORPUS = join(SHARED_ROOT, 'corpus', 'skills');

export type SharedPart = 'sisu' | 'sisu-skills' | 'corpus';

interface PartInfo {
  /** How the part is named in messages. */
  shown: string;
  /** What it holds, for someone who has never seen it. */
  what: string;
  /** The file or folder whose presence means the part is here. */
  probe: string;
}

export const SHARED_PARTS: Readonly<Record<SharedPart, PartInfo>> = {
  sisu: { shown: '../shared/sisu', what: "SISU's compiled packages: the real host, its adapters and .d.ts", probe: SISU_CORE },
  'sisu-skills': { shown: '../shared/sisu/skills', what: "SISU's published skill packages", probe: SISU_SKILLS },
  corpus: { shown: '../shared/corpus', what: 'a corpus of 1,129 published SKILL.md files', probe: CORPUS },
};

export function hasShared(part: SharedPart): boolean {
  return existsSync(SHARED_PARTS[part].probe);
}

/** The parts not beside this clone; empty when the whole suite can run. */
export function missingShared(): SharedPart[] {
  return (Object.keys(SHARED_PARTS) as SharedPart[]).filter((part) => !hasShared(part));
}

/**
 * What a test or suite skipped for want of `part` carries at the end of its
 * name: the reporters show why, and the run's summary finds it there.
 */
export function skipNote(part: SharedPart): string {
  return `(skipped: ${SHARED_PARTS[part].shown} not found)`;
}

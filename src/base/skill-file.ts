/**
 * The skill file's name, the signed manifest's, and the folders no skill or resource is looked for
 * in. Shared by discovery, the watcher, the index and the resource reader.
 */
import type { DirEntry } from './fs.js';

export const SKILL_FILE = 'SKILL.md';

/** A place's signed manifest (trust/), at the root of the place: never one of a skill's resources. */
export const MANIFEST_FILE = 'skills.manifest.json';

/** Dot-folders (.git, .venv ...) and node_modules never hold skills or resources. */
export function isSkippedName(name: string): boolean {
  return name.startsWith('.') || name === 'node_modules';
}

/** Whether a folder listing holds a SKILL.md (a file or a link, not a folder of that name). */
export function hasSkillFile(entries: readonly DirEntry[]): boolean {
  return entries.some((entry) => entry.name === SKILL_FILE && !entry.isDirectory());
}

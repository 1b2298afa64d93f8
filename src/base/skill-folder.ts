/**
 * Where an activated skill's files are on this machine: the folder
 * `${CLAUDE_SKILL_DIR}` and the use_skill answer name, and which files a
 * local copy left out; and the version of a skill a conversation was shown
 * (its instructions and its folder), to tell when it changed since. A leaf:
 * the run, the tools and the sources share it.
 */
import { createHash } from 'node:crypto';

/**
 * A file of a local copy whose bytes are not the ones its signed manifest
 * names (`trust`): its path in the skill, and what was read (no `read`: the
 * manifest does not list it).
 */
export interface UntrustedFile {
  path: string;
  read?: { sha256: string; size: number };
}

export interface SkillFolder {
  /** The skill's own folder, or its local copy (a bucket skill). */
  path: string;
  /** Files a local copy left out, by path relative to the skill folder, with why (`not copied: over maxFileSize (100 KB)`). */
  notCopied: ReadonlyMap<string, string>;
  /**
   * Files of a local copy that are not as signed: copied anyway in `trust`'s report mode, or (enforce)
   * left out because the signed manifest does not list them. For the one diagnostic each gets.
   */
  untrusted: readonly UntrustedFile[];
}

/**
 * What a conversation is shown of a skill, as one string: its folder and a
 * hash of its instructions. A bucket skill's folder changes with any of its
 * files; a skill on the disk keeps its folder, so its instructions tell.
 */
export function skillVersion(instructions: string, folder: string): string {
  return `${folder}\n${createHash('sha256').update(instructions).digest('hex')}`;
}

/** The folder a version names. */
export function versionFolder(version: string): string {
  return version.slice(0, version.lastIndexOf('\n'));
}

/**
 * Where an activated skill's files are on this machine: the folder
 * `${CLAUDE_SKILL_DIR}` and the use_skill answer name, and which files a
 * local copy left out. A leaf: the run, the tools and the sources share it.
 */

export interface SkillFolder {
  /** The skill's own folder, or its local copy (a bucket skill). */
  path: string;
  /** Files a local copy left out, by path relative to the skill folder, with why (`not copied: over maxFileSize (100 KB)`). */
  notCopied: ReadonlyMap<string, string>;
}

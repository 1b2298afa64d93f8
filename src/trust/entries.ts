/** A manifest's skill entries (manifest.ts reads them, canonical-skills.ts reads the layout `sign` writes). */

/** One file a skill serves: its path in the skill folder (`/`-separated), its size in bytes, its hex SHA-256. */
export type ManifestFile = readonly [path: string, size: number, sha256: string];

export interface ManifestSkill {
  /** The skill folder, relative to the place's root (`.` when the place is the skill). */
  path: string;
  /** agentskills.io RFC #358's digest of `files` (digest.ts). */
  digest: string;
  /** Hex SHA-256 of SKILL.md's head: its bytes through the closing fence's line break (discover/head.ts). */
  frontmatter: string;
  /** Sorted by path; SKILL.md among them. */
  files: readonly ManifestFile[];
}

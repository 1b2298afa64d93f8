/**
 * The package's data model: skills, their resources and discovery's result.
 * A leaf (it imports only the diagnostic type), so every layer can use it.
 */
import type { Diagnostic } from './diagnostics.js';

export type ResourceType = 'script' | 'template' | 'reference' | 'asset' | 'other';

/** A file bundled with a skill (`scripts/`, `references/`, `assets/` ...). */
export interface SkillResource {
  /** File name, e.g. `deploy.sh`. */
  name: string;
  /** Path relative to the skill folder, with `/` separators. */
  path: string;
  absolutePath: string;
  type: ResourceType;
  /** Size in bytes. */
  size: number;
  /** Over `maxFileSize`: listed so the model knows it exists, never read. */
  tooLarge?: boolean;
}

/** Validated frontmatter. Keys the schema does not know are kept as they were. */
export interface SkillMetadata {
  name: string;
  description: string;
  license?: string;
  compatibility?: string;
  metadata?: Record<string, unknown>;
  'allowed-tools'?: string | string[];
  version?: string;
  author?: string;
  tags?: string[];
  [key: string]: unknown;
}

/** What the index keeps for every skill: enough for the catalog and lookups (level 1). */
export interface SkillEntry {
  metadata: SkillMetadata;
  /** Absolute path of the SKILL.md file. */
  path: string;
  /** Absolute path of the skill folder. */
  directory: string;
}

/** A skill with its instructions and resource listing (level 2). */
export interface Skill extends SkillEntry {
  /** The markdown after the frontmatter. */
  instructions: string;
  /** 1-based line of SKILL.md on which `instructions` start, when discovery read the file. */
  instructionsLine?: number;
  /** Bundled files, relative to `directory`, within the size limits. */
  resources: SkillResource[];
}

/**
 * What discovery found. `S` says how far the skills were read: `Skill`, in
 * full (`discoverSkills`, `preload`); `SkillEntry`, their frontmatter only
 * (the middleware's default: instructions and resources are read at
 * activation).
 */
export interface DiscoveryResult<S extends SkillEntry = Skill> {
  /** Loaded skills, in discovery order (configured directory order, then path order). */
  skills: S[];
  /** Absolute paths of the configured directories that were scanned. */
  scannedDirectories: string[];
  /** Problems that kept a skill (or a directory) from loading. */
  errors: Diagnostic[];
  /** Problems that did not: the skill loaded, or nothing was lost. */
  warnings: Diagnostic[];
}

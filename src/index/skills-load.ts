/**
 * What loading skills gave, before an index is built from it: the skills,
 * how far they were read, and where they came from. A prebuilt index's load
 * also carries what the file held beside the skills (`PrebuiltDiscovery`:
 * the SKILL.md stamps, the ranker's data, the vectors): declared here, so
 * nothing downstream asks an object what it secretly is.
 */
import type { DiscoveryResult, Skill, SkillEntry } from '../base/model.js';
import type { PrebuiltDiscovery } from './prebuilt/read.js';

export type SkillsLoad =
  /** A scan with `preload`: every skill read whole. */
  | { from: 'scan'; read: 'whole'; discovery: DiscoveryResult<Skill> }
  /** A scan (the default): each skill read to the end of its frontmatter, the rest at activation. */
  | { from: 'scan'; read: 'frontmatter'; discovery: DiscoveryResult<SkillEntry> }
  /** An index file (`index: <file>`) or an index object in a bucket (`index: 's3://...'`). */
  | { from: 'prebuilt' | 'published'; read: 'frontmatter'; discovery: PrebuiltDiscovery };

/** Where a loaded index came from: a scan, an index file, or an index object in a bucket (`location`: its path or URL). */
export type IndexOrigin =
  { kind: 'scan' } | { kind: 'prebuilt' | 'published'; location: string; createdAt: string; packageVersion: string };

export function originOf(load: SkillsLoad): IndexOrigin {
  if (load.from === 'scan') return { kind: 'scan' };
  const { file, createdAt, packageVersion } = load.discovery;
  return { kind: load.from, location: file, createdAt, packageVersion };
}

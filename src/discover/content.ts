/**
 * Level 2 for a skill found by frontmatter-only discovery: its instructions
 * and resource listing, read when it is first activated.
 */
import { isError, type Diagnostic } from '../base/diagnostics.js';
import { SkillUnavailableError } from '../config/errors.js';
import { errorReason } from '../base/fs.js';
import { parseFrontmatter } from '../frontmatter/parse.js';
import type { SkillsFileSystem } from '../base/fs.js';
import type { Skill, SkillEntry } from '../base/model.js';
import { listResources, type ResourceLimits } from './resources.js';
import type { TrustState } from '../trust/state.js';
import { checkResources, checkSkillText } from './trusted.js';

/** What a diagnostic that stops SKILL.md from parsing says, briefly, for a retry message. */
function parseProblem(diagnostic: Diagnostic): string {
  const what =
    diagnostic.code === 'FRONTMATTER_UNCLOSED'
      ? 'unclosed frontmatter'
      : // Parser messages are "what: quoted line"; the line is no use to the model.
        (diagnostic.message.split(': "')[0] ?? diagnostic.code);
  return `${what} at line ${diagnostic.line}`;
}

/**
 * The instructions (the body of SKILL.md as it is now) and resource listing
 * of `entry`. Rejects with a SkillUnavailableError whose message the model
 * can act on when SKILL.md can no longer be read, or no longer parses (caught
 * mid-write, say): the index keeps no failed load, so the next activation
 * reads it again.
 */
export async function loadSkillContent(
  entry: SkillEntry,
  fs: SkillsFileSystem,
  limits: ResourceLimits,
  trust?: TrustState,
): Promise<{ skill: Skill; diagnostics: Diagnostic[] }> {
  const skill = entry.metadata.name;
  let text: string;
  let realDirectory: string;
  try {
    text = await fs.readFile(entry.path, 'utf8');
    realDirectory = await fs.realpath(entry.directory);
  } catch (error) {
    throw new SkillUnavailableError({ skill, path: entry.path, reason: 'unreadable', detail: errorReason(error) }, { cause: error });
  }
  // `trust`: the very text the instructions come from must be the signed SKILL.md (throws when enforcing).
  const vouched = trust ? checkSkillText(trust, entry, text) : [];
  const parsed = parseFrontmatter(text, { file: entry.path });
  const problem = parsed.diagnostics.find(isError);
  if (problem) throw new SkillUnavailableError({ skill, path: entry.path, reason: 'changed', detail: parseProblem(problem) });
  const listed = await listResources(fs, entry.directory, realDirectory, limits);
  const listing = trust
    ? checkResources(trust, entry.directory, trust.bindingOf(entry.directory), listed.resources, limits)
    : { resources: listed.resources, diagnostics: [] };
  return {
    skill: { ...entry, instructions: parsed.body, instructionsLine: parsed.bodyLine, resources: listing.resources },
    diagnostics: [...vouched, ...listed.diagnostics, ...listing.diagnostics],
  };
}

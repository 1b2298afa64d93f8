/**
 * The package's two entries, as their names: the main entry holds what the
 * README and docs/usage.md teach (at most 25 values), and
 * `@sisu-ai/mw-skills/internals` the pieces the middleware is built from.
 * A value added to either is a decision: this list says which.
 */
import { describe, expect, it } from 'vitest';
import * as main from '../src/index.js';
import * as internals from '../src/internals.js';

const MAIN = [
  'DEFAULTS',
  'DiagnosticCodes',
  'FIND_SKILLS_TOOL',
  'FindSkillsArgsSchema',
  'READ_RESOURCE_TOOL',
  'ReadResourceArgsSchema',
  'SKILL_TOOLS',
  'SkillMetadataSchema',
  'SkillsConfigError',
  'SkillsError',
  'SkillsUsageError',
  'SkillsWatchError',
  'USE_SKILL_TOOL',
  'UseSkillArgsSchema',
  'WatchProblem',
  'createFindSkillsTool',
  'createReadResourceTool',
  'createUseSkillTool',
  'discoverSkills',
  'formatDiagnostic',
  'getSkills',
  'parseFrontmatter',
  'skillDirectories',
  'skillsMiddleware',
  'watchSkillDirectories',
];

const INTERNALS = [
  'DEFAULT_SECRET_PATTERNS',
  'SKILL_TOOL_FOLDERS',
  'argumentHint',
  'buildCatalog',
  'catalogEntries',
  'createRanker',
  'findMentions',
  'isModelInvocable',
  'isUserInvocable',
  'leadingMention',
  'parseAllowedTools',
  'parseRequires',
  'renderResourceListing',
  'splitArguments',
  'substitutePlaceholders',
  'substitutesInCode',
];

describe('the public surface', () => {
  it('the main entry exports what the README teaches, at most 25 values', () => {
    expect(Object.keys(main).sort()).toEqual([...MAIN].sort());
    expect(MAIN.length).toBeLessThanOrEqual(25);
  });

  it('the internals export the rest, and nothing twice', () => {
    expect(Object.keys(internals).sort()).toEqual([...INTERNALS].sort());
    expect(INTERNALS.filter((name) => MAIN.includes(name))).toEqual([]);
  });
});

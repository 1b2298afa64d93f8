/**
 * use_skill: level 2 of progressive disclosure. Returns a skill's
 * instructions, its folder and its resource list. Never throws: every failure
 * is a message the model can act on.
 */
import { z } from 'zod';
import { activationsOf, createSkillIndex, type SkillIndex } from '../skill-index.js';
import { closestNames } from '../text.js';
import { renderResourceListing, type ListingOptions } from './resource-listing.js';
import { skillTool, type IndexSource } from './skill-tool.js';
import type { HostTool, Skill } from '../types.js';

export const USE_SKILL_TOOL = 'use_skill';

/**
 * Arguments of use_skill. Plain zod 3 object and string on purpose: SISU's
 * adapters read `_def.typeName` and know only a few types (no enums, no zod 4).
 */
export const UseSkillArgsSchema = z.object({
  skill_name: z.string().describe('Name of the skill to activate, exactly as listed in <available_skills>.'),
});

export type UseSkillArgs = z.infer<typeof UseSkillArgsSchema>;

/** How many names a "not found" message suggests. */
const SUGGESTED_NAMES = 10;

/** "Not found" with the available names, closest first: every skill tool answers an unknown name this way. */
export function unknownSkillMessage(requested: string, index: SkillIndex, retry = ''): string {
  const names = index.skills.map((s) => s.metadata.name);
  if (names.length === 0) return `Skill "${requested}" not found: no skills are loaded.`;
  const ranked = closestNames(names, requested);
  const shown = ranked.slice(0, SUGGESTED_NAMES);
  const more = ranked.length - shown.length;
  return `Skill "${requested}" not found. Available skills (closest first): ${shown.join(', ')}${more > 0 ? `, and ${more} more` : ''}.${retry ? ` ${retry}` : ''}`;
}

function notFound(requested: string, index: SkillIndex): string {
  return unknownSkillMessage(requested, index, `Call ${USE_SKILL_TOOL} again with one of these names.`);
}

/** The text the model gets when it activates `skill`. */
export function renderActivation(skill: Skill, listing: ListingOptions = {}): string {
  const lines = [
    `<skill name="${skill.metadata.name}">`,
    `Skill directory: ${skill.directory}`,
    '',
    skill.instructions.trim(),
    '',
  ];
  lines.push(renderResourceListing(skill.resources, listing));
  lines.push('</skill>');
  return lines.join('\n');
}

export type { IndexSource } from './skill-tool.js';

export function makeUseSkillTool(source: IndexSource, listing: ListingOptions = {}): HostTool<UseSkillArgs> {
  return skillTool<UseSkillArgs>({
    name: USE_SKILL_TOOL,
    description:
      'Activate a skill: returns its full instructions and the files bundled with it. Use it when a task matches a skill listed in <available_skills>.',
    schema: UseSkillArgsSchema,
    source,
    noSkills: 'No skills are loaded, so there is nothing to activate.',
    parse(args, index) {
      const parsed = UseSkillArgsSchema.safeParse(args);
      if (parsed.success) return parsed.data;
      return { invalid: `${USE_SKILL_TOOL} needs a \`skill_name\` string, e.g. {"skill_name": "${index.skills[0]?.metadata.name ?? 'my-skill'}"}.` };
    },
    async run(args, index, ctx) {
      const requested = args.skill_name.trim();
      const entry = index.get(requested);
      if (!entry) return notFound(requested, index);
      const name = entry.metadata.name;
      const activated = activationsOf(ctx.state, index);
      if (activated.includes(name)) {
        return `Skill "${name}" is already active in this conversation: its instructions are above. Continue following them.`;
      }
      const loaded = await index.loadDetailed(name);
      if (!loaded) return notFound(requested, index);
      if (loaded.first) {
        for (const diagnostic of loaded.diagnostics) ctx.log?.warn('[skills] warning', diagnostic);
      }
      activated.push(name);
      ctx.log?.info('[skills] activated', { skill: name, route: 'tool' });
      return renderActivation(loaded.skill, listing);
    },
    failed: (reason) => `Could not activate the skill: ${reason}. Try again, or continue without it.`,
  });
}

/** A use_skill tool over a fixed list of skills, for apps that wire tools by hand. */
export function createUseSkillTool(skills: readonly Skill[]): HostTool<UseSkillArgs> {
  const index = createSkillIndex({ skills });
  return makeUseSkillTool(() => index);
}

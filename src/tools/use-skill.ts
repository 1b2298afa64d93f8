/**
 * use_skill: level 2 of progressive disclosure. Returns a skill's
 * instructions, its folder and its resource list. Never throws: every failure
 * is a message the model can act on.
 */
import { z } from 'zod';
import { argumentHint, substitute } from '../base/arguments.js';
import { lackedToolsLine } from '../base/required-tools.js';
import { logEvent, type SkillEvent } from '../base/skill-event.js';
import type { HostLogger } from '../base/host.js';
import type { SkillEntry, Skill } from '../base/model.js';
import { createSkillIndex, type SkillIndex } from '../index/skill-index.js';
import { USE_SKILL_TOOL } from '../base/tool-names.js';
import { renderResourceListing, type ListingOptions } from './resource-listing.js';
import { skillTool, type IndexSource, type SkillTool } from './skill-tool.js';
import { unknownSkillMessage } from './unknown-skill.js';
import { SkillRanker } from '../catalog/skill-ranker.js';
import type { Ranker } from '../catalog/rank/score.js';

export { USE_SKILL_TOOL } from '../base/tool-names.js';

/**
 * Arguments of use_skill. Plain zod 3 object and string on purpose: SISU's
 * adapters read `_def.typeName` and know only a few types (no enums, no zod 4).
 */
export const UseSkillArgsSchema = z.object({
  skill_name: z.string().describe('Name of the skill to activate, exactly as listed in <available_skills>.'),
  // Optional string: both SISU adapters convert ZodOptional to its inner type and leave it out of `required`.
  arguments: z
    .string()
    .optional()
    .describe("Arguments for the skill, as a user would type them after its name (e.g. 'eu-west --dry-run'). Leave out when none."),
});

export type UseSkillArgs = z.infer<typeof UseSkillArgsSchema>;

function notFound(requested: string, index: SkillIndex, ranker: () => Ranker, searchTool: string | undefined): string {
  return unknownSkillMessage(requested, index, ranker, { retry: `Call ${USE_SKILL_TOOL} again with one of these names.`, searchTool });
}

export interface ActivationTextOptions extends ListingOptions {
  /** Most characters of instructions carried; a longer body is cut at a line boundary. Default: no limit. */
  maxInstructionChars?: number;
  /** The limit a cut names, so a reader knows which option to raise. Default: `maxInstructionChars`. */
  cutBy?: string;
}

/**
 * The instructions, cut at the last line boundary within `max` characters,
 * with how to read the rest. A single line longer than `max` is cut inside it.
 */
function instructionsWithin(skill: Skill, max: number, readTool: string | undefined, cutBy: string): string {
  const text = skill.instructions.trim();
  if (text.length <= max) return text;
  const lineEnd = text.lastIndexOf('\n', max);
  const kept = text.slice(0, lineEnd > 0 ? lineEnd : max);
  const keptLines = kept.split('\n').length;
  const totalLines = text.split('\n').length;
  // Instructions start after the frontmatter: where they start in SKILL.md, when discovery recorded it.
  const leading = skill.instructions.length - skill.instructions.trimStart().length;
  const firstLine =
    skill.instructionsLine === undefined
      ? undefined
      : skill.instructionsLine + (skill.instructions.slice(0, leading).match(/\n/g)?.length ?? 0);
  const cut =
    `[Instructions cut here: ${keptLines} of ${totalLines} lines shown ` +
    `(${kept.length.toLocaleString('en-US')} of ${text.length.toLocaleString('en-US')} characters, ${cutBy}).`;
  if (readTool === undefined) return `${kept}\n\n${cut} The rest is in ${skill.path}.]`;
  const next =
    firstLine === undefined
      ? `call ${readTool} with {"skill_name": ${JSON.stringify(skill.metadata.name)}, "path": "SKILL.md"} and read on past the text above`
      : `call ${readTool} with ${JSON.stringify({ skill_name: skill.metadata.name, path: 'SKILL.md', offset: firstLine + keptLines })}`;
  return `${kept}\n\n${cut} To read the rest, ${next}.]`;
}

/** What one activation fills into the instructions' placeholders (src/base/arguments.ts). */
export interface Invocation {
  /** The arguments given with the activation (`@skill rest of message`, or use_skill's `arguments`). */
  arguments?: string | undefined;
  /** The folder `${CLAUDE_PLUGIN_ROOT}` stands for, when one was found. */
  pluginRoot?: string | undefined;
  /** Tools the skill's `requires` names that this agent lacks: the answer says so in one line. */
  lacked?: readonly string[];
}

/** The text the model gets when it activates `skill`, its placeholders filled in for `invocation`. */
export function renderActivation(skill: Skill, options: ActivationTextOptions = {}, invocation: Invocation = {}): string {
  const max = options.maxInstructionChars ?? Infinity;
  const filled = substitute(skill.instructions, {
    arguments: invocation.arguments,
    skillDir: skill.directory,
    pluginRoot: invocation.pluginRoot,
    metadata: skill.metadata,
  }).text;
  const hint = argumentHint(skill.metadata);
  const lines = [
    `<skill name="${skill.metadata.name}">`,
    `Skill directory: ${skill.directory}`,
    ...(hint === undefined ? [] : [`Argument hint: ${hint}`]),
    '',
    instructionsWithin({ ...skill, instructions: filled }, max, options.readTool, options.cutBy ?? 'maxInstructionChars'),
    '',
  ];
  lines.push(renderResourceListing(skill.resources, options));
  lines.push('</skill>');
  return withLackedTools(lines.join('\n'), invocation.lacked ?? []);
}

/**
 * An activation's text with the line naming the tools the agent lacks, right
 * after its opening `<skill>` line; the text as it is when none are lacking.
 * Also for an activation rendered before the request's tools were all registered.
 */
export function withLackedTools(text: string, lacked: readonly string[]): string {
  if (lacked.length === 0) return text;
  const lineEnd = text.indexOf('\n');
  const at = lineEnd < 0 ? text.length : lineEnd;
  return `${text.slice(0, at)}\n${lackedToolsLine(lacked)}${text.slice(at)}`;
}

export interface UseSkillBinding {
  source: IndexSource;
  /** The ranker over the source's skills, for an unknown name's suggestions (built by its owner on first use). */
  ranker: () => Ranker;
  /**
   * The run's record of activations: false when the skill is already active
   * in this conversation. Absent for a hand-wired tool, which has no run and
   * answers every call with the instructions.
   */
  activate?: (name: string, args?: string) => boolean;
  /** The folder `${CLAUDE_PLUGIN_ROOT}` stands for in `skill` (looked up through the configured fs); absent: left as written. */
  pluginRoot?: (skill: Skill, log: HostLogger | undefined) => Promise<string | undefined>;
  /** Whether `name` is already active, before anything is read. */
  isActive?: (name: string) => boolean;
  /**
   * The tools the skill's `requires` names that the agent lacks, asked when the
   * model activates it (every tool of the request is registered by then). Absent: nothing is said.
   */
  lacking?: (entry: SkillEntry) => readonly string[];
  /** The search tool's name when it is registered for this run: an unknown name's answer points to it. */
  searchTool?: () => string | undefined;
  text?: ActivationTextOptions;
  /**
   * Asked before the skill is read or returned (the run's `approve`): the
   * message the model reads instead of the skill when it is denied, else
   * undefined. Absent: every activation goes ahead.
   */
  gate?: (entry: SkillEntry, log: HostLogger | undefined, args: string | undefined) => Promise<string | undefined>;
  /** Where activation events go (the run's span and `onEvent`); by default a span on the tool's log. */
  emit?: (event: SkillEvent, log: HostLogger | undefined) => void;
}

/** use_skill bound to a source of skills: a run's, in the middleware, or a fixed list (createUseSkillTool). */
export function bindUseSkillTool({
  source,
  ranker,
  activate,
  isActive,
  lacking,
  pluginRoot,
  searchTool = () => undefined,
  text = {},
  gate,
  emit = logEvent,
}: UseSkillBinding): SkillTool<typeof UseSkillArgsSchema> {
  return skillTool({
    name: USE_SKILL_TOOL,
    description:
      'Activate a skill: returns its full instructions and the files bundled with it. Use it when a task matches a skill listed in <available_skills>.',
    schema: UseSkillArgsSchema,
    accepts: UseSkillArgsSchema,
    source,
    noSkills: 'No skills are loaded, so there is nothing to activate.',
    usage: (index) =>
      `${USE_SKILL_TOOL} needs a \`skill_name\` string, e.g. {"skill_name": "${index.skills[0]?.metadata.name ?? 'my-skill'}"}.`,
    async run(args, index, ctx) {
      const requested = args.skill_name.trim();
      const entry = index.get(requested);
      if (!entry) return notFound(requested, index, ranker, searchTool());
      const name = entry.metadata.name;
      const given = args.arguments?.trim() ? args.arguments.trim() : undefined;
      // New arguments always get the instructions filled in for them, in view or not.
      if (given === undefined && isActive?.(name)) {
        return `Skill "${name}" is already active in this conversation: its instructions are above. Continue following them.`;
      }
      const denial = await gate?.(entry, ctx.log, given);
      if (denial !== undefined) return denial;
      const loaded = await index.loadDetailed(name);
      if (!loaded) return notFound(requested, index, ranker, searchTool());
      if (loaded.first) {
        for (const diagnostic of loaded.diagnostics) ctx.log?.warn('[skills] warning', diagnostic);
      }
      // Two calls in one round may both get here; the second still answers, the run records one.
      activate?.(name, given);
      const root = await pluginRoot?.(loaded.skill, ctx.log);
      const lacked = lacking?.(entry) ?? [];
      const answer = renderActivation(loaded.skill, text, { arguments: given, pluginRoot: root, lacked });
      const extra = given === undefined ? {} : { arguments: given };
      ctx.log?.info('[skills] activated', { skill: name, route: 'model', ...extra, ...(lacked.length === 0 ? {} : { lacked }) });
      emit({ type: 'activation', skill: name, route: 'model', size: answer.length, outcome: 'ok', ...extra }, ctx.log);
      return answer;
    },
    failed: (reason) => `Could not activate the skill: ${reason}. Try again, or continue without it.`,
  });
}

/**
 * A use_skill tool over a fixed list of skills, for apps that wire tools by
 * hand (`registerTools([createUseSkillTool(skills)])`). It has no run, so it
 * does not track activations: every call answers with the instructions.
 */
export function createUseSkillTool(skills: readonly Skill[], text: ActivationTextOptions = {}): SkillTool<typeof UseSkillArgsSchema> {
  const index = createSkillIndex({ skills });
  const ranker = new SkillRanker(index.skills);
  return bindUseSkillTool({ source: () => index, ranker: () => ranker.get(), text });
}

/**
 * use_skill: level 2 of progressive disclosure. Returns a skill's
 * instructions, its folder and its resource list. Never throws: every failure
 * is a message the model can act on.
 */
import { z } from 'zod';
import { argumentHint, substitutePlaceholders } from '../base/arguments.js';
import { lackedToolsLine } from '../base/required-tools.js';
import { logEvent, type SkillEvent } from '../base/skill-event.js';
import type { HostLogger } from '../base/host.js';
import type { SkillEntry, Skill } from '../base/model.js';
import { skillVersion, type SkillFolder } from '../base/skill-folder.js';
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

/** The line after an activation's opening tag when the conversation was shown an earlier version of the skill. */
export const CHANGED_LINE = 'This skill changed since it was activated: these instructions and this folder replace the earlier ones.';

/** What one activation fills into the instructions' placeholders (src/base/arguments.ts). */
export interface Invocation {
  /** The arguments given with the activation (`@skill rest of message`, or use_skill's `arguments`). */
  arguments?: string | undefined;
  /** The folder `${CLAUDE_PLUGIN_ROOT}` stands for, when one was found. */
  pluginRoot?: string | undefined;
  /** Tools the skill's `requires` names that this agent lacks: the answer says so in one line. */
  lacked?: readonly string[];
  /** Where the skill's files are on this machine (a bucket skill's local copy); absent: the skill's own folder. */
  folder?: SkillFolder | undefined;
  /** The conversation was shown an earlier version: the answer says this one replaces it. */
  changed?: boolean;
}

/** The text the model gets when it activates `skill`, its placeholders filled in for `invocation`. */
export function renderActivation(skill: Skill, options: ActivationTextOptions = {}, invocation: Invocation = {}): string {
  const max = options.maxInstructionChars ?? Infinity;
  const folder = invocation.folder?.path ?? skill.directory;
  const filled = substitutePlaceholders(skill.instructions, {
    arguments: invocation.arguments,
    skillDir: folder,
    pluginRoot: invocation.pluginRoot,
    metadata: skill.metadata,
  }).text;
  const hint = argumentHint(skill.metadata);
  const lines = [
    `<skill name="${skill.metadata.name}">`,
    ...(invocation.changed ? [CHANGED_LINE] : []),
    `Skill directory: ${folder}`,
    ...(hint === undefined ? [] : [`Argument hint: ${hint}`]),
    '',
    instructionsWithin({ ...skill, instructions: filled }, max, options.readTool, options.cutBy ?? 'maxInstructionChars'),
    '',
  ];
  lines.push(renderResourceListing(skill.resources, options, invocation.folder?.notCopied));
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
   * The folder the skill's scripts run from: made now for a bucket skill (its
   * local copy); rejects with why there is none. Absent: its own folder.
   */
  folder?: (skill: Skill, log: HostLogger | undefined) => Promise<SkillFolder>;
  /**
   * Whether `version` (skill-folder.ts) is the one the conversation was last
   * shown: an active skill is then "already active"; otherwise it changed
   * since, and its new instructions and folder are the answer. Absent (a tool
   * wired by hand): an active skill is never read again.
   */
  isCurrent?: (name: string, version: string) => boolean;
  /** Told the version each activation shows the conversation. */
  shown?: (name: string, version: string) => void;
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

/** An activation read and placed: the skill, where its files are, and the version the answer shows. */
interface Prepared {
  skill: Skill;
  folder: SkillFolder | undefined;
  version: string;
}

function alreadyActive(name: string): string {
  return `Skill "${name}" is already active in this conversation: its instructions are above. Continue following them.`;
}

/** use_skill bound to a source of skills: a run's, in the middleware, or a fixed list (createUseSkillTool). */
export function bindUseSkillTool(binding: UseSkillBinding): SkillTool<typeof UseSkillArgsSchema> {
  const { source, ranker, isActive, isCurrent, searchTool = () => undefined, gate } = binding;
  /** Reads the skill and places its files (a bucket skill's copy); undefined when it is gone. */
  const prepare = async (index: SkillIndex, name: string, log: HostLogger | undefined): Promise<Prepared | undefined> => {
    const loaded = await index.loadDetailed(name);
    if (!loaded) return undefined;
    if (loaded.first) for (const diagnostic of loaded.diagnostics) log?.warn('[skills] warning', diagnostic);
    const folder = await binding.folder?.(loaded.skill, log);
    return { skill: loaded.skill, folder, version: skillVersion(loaded.skill.instructions, folder?.path ?? loaded.skill.directory) };
  };
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
      const active = given === undefined && isActive?.(name) === true;
      let prepared: Prepared | undefined;
      if (active) {
        // Read again only to tell a change: a skill changed since the conversation saw it is answered in full.
        if (!isCurrent) return alreadyActive(name);
        prepared = await prepare(index, name, ctx.log);
        if (prepared && isCurrent(name, prepared.version)) return alreadyActive(name);
      }
      // Before anything is read or copied, for a skill not active yet: a denied skill never reaches the disk.
      const denial = await gate?.(entry, ctx.log, given);
      if (denial !== undefined) return denial;
      prepared ??= await prepare(index, name, ctx.log);
      if (!prepared) return notFound(requested, index, ranker, searchTool());
      return answer(binding, prepared, { name, given, active, log: ctx.log });
    },
    failed: (reason, retry) =>
      retry
        ? `Could not activate the skill: ${reason}. Try again, or continue without it.`
        : `Could not activate the skill: ${reason}. Trying again will not help; continue without it.`,
  });
}

/** The activation's text, recorded in the run and logged. */
async function answer(
  binding: UseSkillBinding,
  { skill, folder, version }: Prepared,
  { name, given, active, log }: { name: string; given: string | undefined; active: boolean; log: HostLogger | undefined },
): Promise<string> {
  const { activate, lacking, pluginRoot, text = {}, emit = logEvent } = binding;
  // Two calls in one round may both get here; the second still answers, the run records one.
  activate?.(name, given);
  const root = await pluginRoot?.(skill, log);
  const lacked = lacking?.(skill) ?? [];
  const rendered = renderActivation(skill, text, { arguments: given, pluginRoot: root, lacked, folder, changed: active });
  binding.shown?.(name, version);
  const extra = given === undefined ? {} : { arguments: given };
  log?.info('[skills] activated', {
    skill: name,
    route: 'model',
    ...extra,
    ...(lacked.length === 0 ? {} : { lacked }),
    ...(active ? { changed: true } : {}),
  });
  emit(
    {
      type: 'activation',
      skill: name,
      route: 'model',
      size: rendered.length,
      outcome: 'ok',
      ...extra,
      ...(active ? { changed: true } : {}),
    },
    log,
  );
  return rendered;
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

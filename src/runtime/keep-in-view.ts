/**
 * Keeping active skills in view. Before a request's model call, every skill
 * the run holds active whose instructions are no longer in the messages the
 * model will be sent (SISU's conversationBuffer trimmed them, or the app
 * resumed a shortened history) is put back, exactly as pre-activation injects
 * an activation, under the route `kept-in-view`. Within a budget: most
 * recently activated first, a skill too large for what is left cut at a line
 * boundary with the call that reads the rest, and what did not fit logged.
 *
 * Two parts: `loadActive` reads the skills ahead (async, at the middleware);
 * `keepInView` decides and injects (sync, because it may run inside the
 * wrapped model call, whose result must be returned as the host's own).
 */
import { logUntrusted } from '../config/errors.js';
import type { SkillRoute } from '../base/skill-event.js';
import { activationMessages, injectedCallId, insertAfterLatestUser, skillsInView, toolCallIds } from '../run/conversation.js';
import type { HostMessage } from '../base/host.js';
import type { Skill } from '../base/model.js';
import type { PluginRoots } from '../run/plugin-root.js';
import type { SkillsRun } from '../run/run.js';
import type { SkillIndex } from '../index/skill-index.js';
import { lackedToolsOn } from '../base/required-tools.js';
import { renderActivation, type ActivationTextOptions, type Invocation } from '../tools/use-skill.js';
import type { SkillsContext } from '../run/context.js';
import type { FolderOf } from '../run/run-tools.js';
import { skillVersion, type SkillFolder } from '../base/skill-folder.js';

/** The route a skill put back in view is logged under (and its injected tool-call id is named after). */
export const KEPT_IN_VIEW: SkillRoute = 'kept-in-view';

/** Room left for the note that says where the instructions were cut and how to read on. */
const CUT_NOTE_ROOM = 400;
/** A cut piece must carry at least this many characters of instructions; less is left out (and logged) instead. */
export const MIN_KEPT_CHARS = 1000;

export interface KeepInViewBudget {
  /** Most characters put back per request, all skills together. */
  maxChars: number;
  /** Most characters put back per skill. */
  maxSkillChars: number;
}

export interface KeepInViewSettings {
  budget: KeepInViewBudget;
  text: ActivationTextOptions;
  /** The name the model calls use_skill by. */
  toolName: string;
}

/** A skill put back: its name, the characters its activation took, whether the budget cut it, and whether it changed since the conversation saw it. */
export interface KeptSkill {
  skill: string;
  chars: number;
  cut: boolean;
  /** Set when it changed since the conversation saw it. */
  changed?: true;
}

export interface KeepInViewResult {
  kept: KeptSkill[];
  /** Skills that were out of view and did not fit what was left of the budget, with what was left. */
  left: Array<{ skill: string; room: number }>;
}

/** An active skill, loaded ahead, with the plugin folder its placeholders stand for, where its files are, and the version that makes. */
export interface ActiveSkill {
  skill: Skill;
  pluginRoot: string | undefined;
  folder: SkillFolder | undefined;
  version: string;
}

/**
 * The active skills, loaded ahead (cached by the index after their first
 * activation), with their files placed (a bucket skill's copy: found again,
 * or made now for a version the conversation has not seen). Unreadable ones
 * are logged and skipped.
 */
export async function loadActive(
  ctx: SkillsContext,
  run: SkillsRun,
  index: SkillIndex,
  pluginRoots: PluginRoots,
  folderOf?: FolderOf,
): Promise<Map<string, ActiveSkill>> {
  const loaded = new Map<string, ActiveSkill>();
  for (const name of run.activated) {
    try {
      const skill = await index.load(name);
      if (!skill) continue;
      const folder = await folderOf?.(skill, ctx.log);
      const version = skillVersion(skill.instructions, folder?.path ?? skill.directory);
      loaded.set(name, { skill, pluginRoot: await pluginRoots.of(skill, ctx.log), folder, version });
    } catch (error) {
      logUntrusted(ctx.log, error);
      ctx.log.warn('[skills] could not keep in view', {
        skill: name,
        route: KEPT_IN_VIEW,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
  return loaded;
}

/**
 * Put back, right after the latest user message, every active skill whose
 * instructions `ctx.messages` (as it stands now) no longer holds, and every
 * one that changed since the conversation was shown it (its instructions, or
 * its folder: a bucket skill's new copy), saying so.
 */
export function keepInView(
  ctx: SkillsContext,
  run: SkillsRun,
  loaded: ReadonlyMap<string, ActiveSkill>,
  settings: KeepInViewSettings,
): KeepInViewResult {
  const result: KeepInViewResult = { kept: [], left: [] };
  const inView = skillsInView(ctx.messages);
  const changed = (name: string) => !run.isCurrent(name, (loaded.get(name) as ActiveSkill).version);
  // Most recently activated first: they get the budget before older ones.
  const wanted = [...run.activated].reverse().filter((name) => loaded.has(name) && (!inView.has(name) || changed(name)));
  if (wanted.length === 0) return result;
  const taken = toolCallIds(ctx.messages);
  const messages: HostMessage[] = [];
  let room = settings.budget.maxChars;
  for (const name of wanted) {
    const { skill, pluginRoot, folder, version } = loaded.get(name) as ActiveSkill;
    const allowance = Math.min(settings.budget.maxSkillChars, room);
    const cutBy = allowance === settings.budget.maxSkillChars ? 'keepInView.maxSkillChars' : 'keepInView.maxChars';
    const args = run.arguments.get(name);
    const lacked = lackedToolsOn(ctx, skill.metadata);
    const isChanged = changed(name);
    const fitted = fit(skill, allowance, { ...settings.text, cutBy }, { arguments: args, pluginRoot, lacked, folder, changed: isChanged });
    if (!fitted) {
      result.left.push({ skill: name, room });
      continue;
    }
    room -= fitted.text.length;
    const id = injectedCallId(KEPT_IN_VIEW, name, taken);
    taken.add(id);
    messages.push(...activationMessages(id, name, fitted.text, settings.toolName, args));
    run.shown.set(name, version);
    result.kept.push({ skill: name, chars: fitted.text.length, cut: fitted.cut, ...(isChanged ? { changed: true as const } : {}) });
  }
  insertAfterLatestUser(ctx.messages, messages);
  report(ctx, result, settings.budget);
  return result;
}

/** The activation text within `allowance` characters: whole, or cut at a line boundary; undefined when too little would remain. */
function fit(
  skill: Skill,
  allowance: number,
  text: ActivationTextOptions,
  invocation: Invocation,
): { text: string; cut: boolean } | undefined {
  const whole = renderActivation(skill, { ...text, cutBy: undefined }, invocation);
  if (whole.length <= allowance) return { text: whole, cut: false };
  const body = Math.min(skill.instructions.trim().length, text.maxInstructionChars ?? Infinity);
  let max = allowance - (whole.length - body) - CUT_NOTE_ROOM;
  // The note's length depends on the figures in it: shrink until the whole text fits.
  while (max >= MIN_KEPT_CHARS) {
    const cut = renderActivation(skill, { ...text, maxInstructionChars: max }, invocation);
    if (cut.length <= allowance) return { text: cut, cut: true };
    max -= cut.length - allowance;
  }
  return undefined;
}

function report(ctx: SkillsContext, result: KeepInViewResult, budget: KeepInViewBudget): void {
  // ctx.log read now, not earlier: traceViewer may have replaced it since the request started.
  const { log } = ctx;
  if (result.kept.length > 0) {
    const chars = result.kept.reduce((sum, kept) => sum + kept.chars, 0);
    const data = { route: KEPT_IN_VIEW, skills: result.kept, chars, budget: budget.maxChars };
    // Each skill put back is also an event (a `skills.keep-in-view` span), sent by the middleware.
    log.info('[skills] kept in view', data);
  }
  if (result.left.length > 0) {
    log.warn('[skills] not kept in view: over budget', {
      route: KEPT_IN_VIEW,
      skills: result.left,
      budget: budget.maxChars,
      maxSkillChars: budget.maxSkillChars,
      hint: 'raise keepInView.maxChars, or end skills the conversation no longer needs (ctx.skills.end(name))',
    });
  }
}

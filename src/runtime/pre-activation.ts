/**
 * Activations the model did not ask for: `@` mentions, `always` and
 * auto-activation, each injected once per conversation as if the model had
 * called use_skill, and the placement of those messages (now, or at the
 * request's first model call when the user's message does not exist yet).
 */
import { logUntrusted } from '../config/errors.js';
import { findMentions, leadingMention, MAX_MENTIONS, selectActivations, type Activation } from '../run/activation.js';
import { isUserInvocable } from '../metadata/invocation.js';
import {
  activationMessages,
  conversationActivations,
  injectedCallId,
  injectedIdPrefix,
  modelToolName,
  toolCallIds,
} from '../run/conversation.js';
import { KEPT_IN_VIEW } from './keep-in-view.js';
import type { ActivationGate } from '../run/gate.js';
import type { HostMessage, HostModel, Next } from '../base/host.js';
import type { SkillEntry } from '../base/model.js';
import { suggestionsFor, type Library } from '../run/library.js';
import type { ResolvedOptions } from '../config/options.js';
import type { PluginRoots } from '../run/plugin-root.js';
import type { SkillsRun } from '../run/run.js';
import type { SkillIndex } from '../index/skill-index.js';
import { USE_SKILL_TOOL } from '../base/tool-names.js';
import { renderActivation, withLackedTools, type ActivationTextOptions } from '../tools/use-skill.js';
import { lackedToolsOn } from '../base/required-tools.js';
import type { SkillsContext } from '../run/context.js';
import type { FolderOf } from '../run/run-tools.js';
import { skillVersion, type SkillFolder } from '../base/skill-folder.js';

/** Unknown mentions per message that get suggestions in the log. */
const SUGGESTED_MENTIONS = 3;

export interface PreActivationSettings {
  autoActivate: ResolvedOptions['autoActivate'];
  text: ActivationTextOptions;
  pluginRoots: PluginRoots;
  /** `approve` and the events, as for use_skill. */
  gate: ActivationGate;
  /** Where each skill's scripts run from (a bucket skill's local copy, made now); absent: its own folder. */
  folderOf?: FolderOf;
}

/** What pre-activation puts in the conversation, and what it finishes at the request's first model call. */
export interface PreActivation {
  messages: HostMessage[];
  /**
   * Adds the lacked-tools line to the injected answers of skills whose `requires` names tools the agent lacks.
   * Run it where every tool of the request is registered (the first model call): registerTools may come after
   * this middleware. Undefined when no injected skill declares `requires`.
   */
  noteLackedTools: (() => void) | undefined;
}

/** The messages that activate each chosen skill once per conversation; earlier turns count. */
export async function preActivate(
  ctx: SkillsContext,
  library: Library,
  run: SkillsRun,
  query: string,
  settings: PreActivationSettings,
): Promise<PreActivation> {
  const { index } = library;
  const toolName = modelToolName(ctx.state.toolAliases, USE_SKILL_TOOL);
  const keptPrefix = injectedIdPrefix(KEPT_IN_VIEW);
  const earlier = conversationActivations(
    ctx.messages,
    (requested) => index.get(requested)?.metadata.name,
    [...new Set([USE_SKILL_TOOL, toolName])],
    (callId) => callId.startsWith(keptPrefix),
  );
  // Remembered, not re-activated: an ended skill stays ended, and the order of the run's own activations stands.
  // A run new to these messages (a resumed conversation) gets the order and arguments the first one recorded.
  for (const { name, arguments: args } of earlier) run.recall(name, args);

  const messages: HostMessage[] = [];
  const expecting: ExpectingTools[] = [];
  const picks = choose(ctx, library, run, query, settings.autoActivate);
  if (picks.length === 0) return { messages, noteLackedTools: undefined };
  // Only when something is injected: ids must not repeat any in the conversation.
  const taken = toolCallIds(ctx.messages);
  const inject = (pick: Activation, text: string): HostMessage[] => {
    const id = injectedCallId(pick.route, pick.name, taken);
    taken.add(id);
    const pair = activationMessages(id, pick.name, text, toolName, pick.arguments);
    messages.push(...pair);
    return pair;
  };
  for (const pick of picks) {
    const entry = index.get(pick.name);
    if (!entry) continue;
    const decision = await settings.gate.check(run, entry, pick.route, ctx.log, pick.arguments);
    if (!decision.approved) {
      // The user asked for this one: the model must know it is not available (always/auto were never asked for).
      if (pick.route === 'mention') inject(pick, decision.message);
      continue;
    }
    const made = await activationText(ctx, index, pick, settings);
    if (made === undefined) continue;
    if ('failure' in made) {
      // As a denial: the user asked for this one, and must hear why it is not there.
      if (pick.route === 'mention') inject(pick, `Could not activate the skill: ${made.failure}.`);
      continue;
    }
    const { text, version } = made;
    // A mention with arguments goes in even when the skill is active: the model needs the new arguments.
    if (!run.activate(pick.name, pick.arguments) && pick.arguments === undefined) continue;
    run.shown.set(pick.name, version);
    const answer = inject(pick, text)[1] as HostMessage;
    if (entry.metadata.requires !== undefined) expecting.push({ answer, metadata: entry.metadata });
    reportActivation(ctx, run, pick, text.length, settings.gate);
  }
  return { messages, noteLackedTools: expecting.length === 0 ? undefined : () => noteLackedTools(ctx, expecting) };
}

/** An injected answer whose skill declares `requires`, and that skill's frontmatter. */
interface ExpectingTools {
  answer: HostMessage;
  metadata: SkillEntry['metadata'];
}

/** Each injected answer gets the line naming the tools the agent lacks, asked of the ctx's registry now. */
function noteLackedTools(ctx: SkillsContext, expecting: readonly ExpectingTools[]): void {
  for (const { answer, metadata } of expecting) {
    const lacked = lackedToolsOn(ctx, metadata);
    if (lacked.length === 0) continue;
    answer.content = withLackedTools(answer.content, lacked);
    ctx.log.info('[skills] activated skill lacks tools', { skill: metadata.name, lacked });
  }
}

function reportActivation(ctx: SkillsContext, run: SkillsRun, pick: Activation, size: number, gate: ActivationGate): void {
  const extra = {
    ...(pick.score === undefined ? {} : { score: pick.score }),
    ...(pick.arguments === undefined ? {} : { arguments: pick.arguments }),
  };
  ctx.log.info('[skills] activated', { skill: pick.name, route: pick.route, ...extra });
  gate.emit(run, { type: 'activation', skill: pick.name, route: pick.route, size, outcome: 'ok', ...extra }, ctx.log);
}

/** Mentions (the user asked), then `always`, then ranked skills; unknown and excess mentions are logged. */
function choose(ctx: SkillsContext, library: Library, run: SkillsRun, query: string, auto: ResolvedOptions['autoActivate']): Activation[] {
  // The index's lookup, not a set of names: nothing kept per skill for as long as the index lives.
  const mentions = findMentions(query, (name) => library.index.get(name) !== undefined);
  // Suggestions for the first few only: each costs a bounded search, and a flood of unknown names is noise.
  mentions.unknown.forEach((mention, i) => {
    ctx.log.warn('[skills] unknown mention', {
      mention,
      ...(i < SUGGESTED_MENTIONS ? { suggestions: suggestionsFor(library, mention) } : {}),
    });
  });
  if (mentions.ignored !== undefined && mentions.ignored > 0) {
    ctx.log.warn('[skills] too many mentions', { examined: MAX_MENTIONS, ignored: mentions.ignored });
  }
  const invocable = mentions.known.filter((name) => {
    if (isUserInvocable(library.index.get(name)?.metadata ?? {})) return true;
    ctx.log.warn('[skills] mention ignored: the skill is not user-invocable', {
      mention: name,
      hint: 'its frontmatter says user-invocable: false; the model may still activate it with use_skill',
    });
    return false;
  });
  const leading = leadingMention(query);
  // The same arguments as the skill's last activation: already in the conversation (a rerun, or the user repeating).
  const repeated = leading !== undefined && run.activated.includes(leading.name) && run.arguments.get(leading.name) === leading.arguments;
  return selectActivations({
    mentions: invocable,
    mentionArguments: repeated ? undefined : leading,
    always: library.always,
    // The ranker covers the model-visible skills only, so hidden ones are never auto-activated.
    auto: auto && { query, ...auto, rank: (text) => library.ranker().rank(text, Math.max(auto.maxSkills, 5)) },
    alreadyActive: run.activated,
  });
}

/** The activation's text and the version it shows; a failure to place its files (a bucket skill's copy); undefined when it cannot be read. */
async function activationText(
  ctx: SkillsContext,
  index: SkillIndex,
  pick: Activation,
  settings: PreActivationSettings,
): Promise<{ text: string; version: string } | { failure: string } | undefined> {
  let folder: SkillFolder | undefined;
  try {
    const loaded = await index.loadDetailed(pick.name);
    if (!loaded) return undefined;
    if (loaded.first) for (const diagnostic of loaded.diagnostics) ctx.log.warn('[skills] warning', diagnostic);
    const { skill } = loaded;
    try {
      folder = await settings.folderOf?.(skill, ctx.log);
    } catch (error) {
      return { failure: messageOf(error) };
    }
    const pluginRoot = await settings.pluginRoots.of(skill, ctx.log);
    const text = renderActivation(skill, settings.text, { arguments: pick.arguments, pluginRoot, folder });
    return { text, version: skillVersion(skill.instructions, folder?.path ?? skill.directory) };
  } catch (error) {
    logUntrusted(ctx.log, error);
    ctx.log.warn('[skills] could not activate', { skill: pick.name, route: pick.route, error: messageOf(error) });
    return undefined;
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Put activations in the conversation, then run the rest of the stack.
 * `now` runs at once; `atModelCall` at the request's first model call on the
 * conversation, when every middleware in between has run (inputToMessage
 * has added the user's message, conversationBuffer has trimmed), so it sees
 * the messages the model will get. Both run at once when there is no model
 * to wait for. The wrapped call returns the host's own result (a promise or
 * a stream), so `atModelCall` is synchronous.
 */
export async function placeThenNext(
  ctx: SkillsContext,
  now: (() => void) | undefined,
  atModelCall: (() => void) | undefined,
  next: Next,
): Promise<void> {
  const model = ctx.model;
  if (!atModelCall || !model || typeof model.generate !== 'function') {
    now?.();
    atModelCall?.();
    return next();
  }
  now?.();
  let pending = true;
  const generate = model.generate as (this: unknown, ...args: unknown[]) => unknown;
  const wrapped: HostModel = Object.create(model, {
    generate: {
      value(messages: unknown, ...rest: unknown[]): unknown {
        // Only the conversation itself: another middleware may ask the model about something else first.
        if (pending && messages === ctx.messages) {
          pending = false;
          atModelCall();
        }
        return generate.call(model, messages, ...rest);
      },
    },
  }) as HostModel;
  ctx.model = wrapped;
  try {
    await next();
  } finally {
    if (ctx.model === wrapped) ctx.model = model;
  }
}

/**
 * Reading and writing the conversation the way the host keeps it: which
 * skills it already activated (whatever route, whatever turn), the request's
 * user text (before or after `inputToMessage` ran), and where an activation
 * the model did not ask for goes. Pure functions over message arrays.
 */
import { messageText, toolResultText } from '../base/message-text.js';
import { USE_SKILL_TOOL } from '../base/tool-names.js';
import type { HostMessage } from '../base/host.js';

/** Prefix of the tool-call ids of injected activations: how a rerun finds its own. */
export const INJECTED_ID_PREFIX = 'skills_';
/** OpenAI refuses tool-call ids over 40 characters; Anthropic wants `[A-Za-z0-9_-]`. */
export const MAX_TOOL_CALL_ID = 40;

interface ToolCallLike {
  id?: unknown;
  name?: unknown;
  arguments?: unknown;
  function?: { name?: unknown; arguments?: unknown };
}

interface MessageLike {
  role: string;
  content?: unknown;
  tool_calls?: unknown;
  tool_call_id?: unknown;
  name?: unknown;
}

/** The opening line use_skill's answer starts with (renderActivation writes it). */
export function activationOpening(name: string): string {
  return `<skill name="${name}">`;
}

const OPENING = /^<skill name="([^"]+)">/;

/**
 * Names of the skills whose instructions `messages` hold: every tool message
 * that opens with a skill's activation (use_skill's answer, an injected
 * activation, or one put back in view, whole or cut), wherever its call is.
 */
export function skillsInView(messages: readonly HostMessage[]): Set<string> {
  return new Set(activationsInView(messages).keys());
}

/** The latest activation text of each skill `messages` hold, by name. */
export function activationsInView(messages: readonly HostMessage[]): Map<string, string> {
  const texts = new Map<string, string>();
  for (const message of messages as readonly MessageLike[]) {
    if (message.role !== 'tool') continue;
    // Cheap test first: other tool results (whole files, as JSON strings) are never decoded.
    const raw = messageText(message.content);
    if (raw === undefined || !(raw.startsWith('<skill name="') || raw.startsWith('"<skill name=\\"'))) continue;
    const text = toolResultText(message.content) ?? '';
    const name = OPENING.exec(text)?.[1];
    if (name !== undefined) texts.set(name, text);
  }
  return texts;
}

/** The folder an activation text names (its `Skill directory:` line), if it names one. */
export function activationFolder(text: string): string | undefined {
  return /^Skill directory: (.*)$/mu.exec(text)?.[1];
}

function callName(call: ToolCallLike): unknown {
  return call.name ?? call.function?.name;
}

/** `skill_name` from a call's arguments: an object, or the JSON string OpenAI-style hosts keep. */
function skillNameArgument(call: ToolCallLike): string | undefined {
  const args = callArguments(call);
  const name = typeof args === 'object' && args !== null ? (args as { skill_name?: unknown }).skill_name : undefined;
  return typeof name === 'string' ? name.trim() : undefined;
}

/** `arguments` from a call's arguments, trimmed as use_skill trims them; undefined when absent or blank. */
function argumentsArgument(call: ToolCallLike): string | undefined {
  const args = callArguments(call);
  const given = typeof args === 'object' && args !== null ? (args as { arguments?: unknown }).arguments : undefined;
  return typeof given === 'string' && given.trim() !== '' ? given.trim() : undefined;
}

/** A call's arguments as an object when they are one, parsed when the host kept the JSON string (OpenAI-style). */
function callArguments(call: ToolCallLike): unknown {
  const args = call.arguments ?? call.function?.arguments;
  if (typeof args !== 'string') return args;
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return undefined;
  }
}

/** An activation the conversation holds: the skill, and the arguments it was last activated with. */
export interface ConversationActivation {
  name: string;
  arguments?: string;
}

/**
 * The skills whose activation the conversation holds, least recently
 * activated first, each with the arguments of its latest activation: what a
 * run that saw these messages recorded (SkillsRun.activate), so a resumed
 * conversation recalls the same. The signal is structural: a `use_skill` call
 * with its `skill_name`, answered by a tool message that opens with that
 * skill's activation (so a failed or unknown-name call does not count). The
 * answer is recognised as plain text or as the host serialised it.
 * `isCopy(callId)`: calls that put an active skill back in view (keep-in-view)
 * rather than activate it; they count only for a skill with no activation
 * before them, and never reorder one.
 */
export function conversationActivations(
  messages: readonly HostMessage[],
  resolve: (requested: string) => string | undefined = (name) => name,
  toolNames: readonly string[] = [USE_SKILL_TOOL],
  isCopy: (callId: string) => boolean = () => false,
): ConversationActivation[] {
  const pending = new Map<string, { name: string; arguments: string | undefined; copy: boolean }>();
  const found: ConversationActivation[] = [];
  for (const message of messages as readonly MessageLike[]) {
    if (message.role === 'assistant' && Array.isArray(message.tool_calls)) {
      for (const call of message.tool_calls as ToolCallLike[]) {
        if (!toolNames.includes(callName(call) as string) || typeof call.id !== 'string') continue;
        const requested = skillNameArgument(call);
        const name = requested === undefined ? undefined : resolve(requested);
        if (name !== undefined) pending.set(call.id, { name, arguments: argumentsArgument(call), copy: isCopy(call.id) });
      }
    } else if (message.role === 'tool' && typeof message.tool_call_id === 'string') {
      const call = pending.get(message.tool_call_id);
      if (call === undefined) continue;
      pending.delete(message.tool_call_id);
      if (!toolResultText(message.content)?.startsWith(activationOpening(call.name))) continue;
      const at = found.findIndex((activation) => activation.name === call.name);
      if (at >= 0 && call.copy) continue;
      if (at >= 0) found.splice(at, 1);
      found.push(call.arguments === undefined ? { name: call.name } : { name: call.name, arguments: call.arguments });
    }
  }
  return found;
}

/** The names conversationActivations finds, least recently activated first. */
export function activatedSkills(
  messages: readonly HostMessage[],
  resolve: (requested: string) => string | undefined = (name) => name,
  toolNames: readonly string[] = [USE_SKILL_TOOL],
): string[] {
  return conversationActivations(messages, resolve, toolNames).map((activation) => activation.name);
}

/** A short stable hash (FNV-1a, base 36) so long names still give short, distinct ids. */
function shortHash(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(36);
}

const safe = (text: string): string => text.replace(/[^A-Za-z0-9_-]/g, '_');

/** How every id injectedCallId gives for `route` starts. */
export function injectedIdPrefix(route: string): string {
  return `${INJECTED_ID_PREFIX}${safe(route)}_`;
}

/**
 * The id of an injected activation: `skills_<route>_<name>` when that fits,
 * else the name cut and a hash of it; never more than 40 characters of
 * `[A-Za-z0-9_-]`, and never one the conversation already uses.
 */
export function injectedCallId(route: string, name: string, taken: ReadonlySet<string>): string {
  const prefix = injectedIdPrefix(route);
  let base = prefix + safe(name);
  if (base.length > MAX_TOOL_CALL_ID || base !== prefix + name) {
    const hash = shortHash(name);
    base = `${prefix}${safe(name).slice(0, MAX_TOOL_CALL_ID - prefix.length - hash.length - 1)}_${hash}`;
  }
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base.slice(0, MAX_TOOL_CALL_ID - String(n).length - 1)}_${n}`;
  return id;
}

/**
 * The name the model calls `tool` by: SISU's registerTools keeps API aliases
 * as a Map in `ctx.state.toolAliases`.
 */
export function modelToolName(aliases: unknown, tool: string): string {
  const alias = aliases instanceof Map ? (aliases as Map<unknown, unknown>).get(tool) : undefined;
  return typeof alias === 'string' && alias !== '' ? alias : tool;
}

/** Every tool-call id the conversation holds. */
export function toolCallIds(messages: readonly HostMessage[]): Set<string> {
  const ids = new Set<string>();
  for (const message of messages as readonly MessageLike[]) {
    if (typeof message.tool_call_id === 'string') ids.add(message.tool_call_id);
    if (Array.isArray(message.tool_calls)) {
      for (const call of message.tool_calls as ToolCallLike[]) if (typeof call.id === 'string') ids.add(call.id);
    }
  }
  return ids;
}

/**
 * An activation the model did not ask for, shaped exactly as if it had called
 * use_skill (under the name the model knows it by, when registerTools gave it an alias).
 */
export function activationMessages(
  id: string,
  name: string,
  text: string,
  toolName: string = USE_SKILL_TOOL,
  args?: string,
): HostMessage[] {
  const input = args === undefined ? { skill_name: name } : { skill_name: name, arguments: args };
  const call = { role: 'assistant', content: '', tool_calls: [{ id, name: toolName, arguments: input }] };
  const result = { role: 'tool', content: text, tool_call_id: id, name: toolName };
  return [call, result];
}

function isInjected(message: MessageLike | undefined): boolean {
  const callId = message?.tool_call_id ?? (message?.tool_calls as ToolCallLike[] | undefined)?.[0]?.id;
  return typeof callId === 'string' && callId.startsWith(INJECTED_ID_PREFIX);
}

/**
 * Put `inserted` right after the latest user message, behind activations
 * already placed there (their order is kept): each provider then sees the
 * user's turn, then the call, then its answer.
 */
export function insertAfterLatestUser(messages: HostMessage[], inserted: readonly HostMessage[]): void {
  let at = messages.length;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.role === 'user') {
      at = i + 1;
      break;
    }
  }
  while (at < messages.length && isInjected(messages[at] as MessageLike)) at++;
  messages.splice(at, 0, ...inserted);
}

/** The text of the last `user` message, or undefined when there is none. */
export function latestUserText(messages: readonly HostMessage[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message?.role === 'user') return messageText(message.content);
  }
  return undefined;
}

/**
 * The request's user text, and whether its message is still to come. Placed
 * before `inputToMessage`, the middleware sees `ctx.input` but no user message
 * for it yet: the last message that is not one of our activations is not a
 * user message holding that input.
 */
export function userTurn(messages: readonly HostMessage[], input: unknown): { text: string; pending: boolean } {
  if (typeof input === 'string' && input.trim() !== '') {
    let last = messages.length - 1;
    while (last >= 0 && isInjected(messages[last] as MessageLike)) last--;
    const message = messages[last];
    const present = message?.role === 'user' && messageText(message.content) === input;
    return { text: input, pending: !present };
  }
  return { text: latestUserText(messages) ?? '', pending: false };
}

/**
 * A whole conversation in the real SISU: one ctx, many turns (the app sets
 * `ctx.input` and runs its agent again, as a chat does), under SISU's
 * conversationBuffer. Records which model requests belong to which turn, so
 * a test can ask what the model saw on each.
 */
import type { ScriptedReply, ScriptedRequest, ScriptedServer } from '../../demo/scripted-model.mjs';
import { startAtUserTurn as startAtUserTurnStep } from './start-at-user-turn.mjs';
import {
  createCtx,
  placedStack,
  runAgent,
  toolResults,
  type Placement,
  type Provider,
  type RealSisu,
  type SisuCtx,
  type SisuMiddleware,
} from './host.js';

/** What an app that talks to Anthropic puts after SISU's conversationBuffer (see start-at-user-turn.mjs). */
export const startAtUserTurn: SisuMiddleware = startAtUserTurnStep;

/** inputToMessage, conversationBuffer and the skills middleware in `placement`'s order, then execute (plus startAtUserTurn for Anthropic). */
export function conversationStack(
  sisu: RealSisu,
  provider: Provider,
  placement: Placement,
  skillsMw: SisuMiddleware,
  window: number,
): SisuMiddleware[] {
  const stack = placedStack(sisu.host, placement, skillsMw, window);
  if (provider.name !== 'anthropic') return stack;
  // Right after the buffer, in either placement.
  const buffer = placement === 'after' ? 1 : 2;
  return [...stack.slice(0, buffer + 1), startAtUserTurn, ...stack.slice(buffer + 1)];
}

export interface Conversation {
  ctx: SisuCtx & { log: ReturnType<typeof createCtx>['log'] };
  server: ScriptedServer;
  /** The model requests of each turn, in order (turn 1 first). */
  turns: ScriptedRequest[][];
}

export interface ConversationOptions {
  provider: Provider;
  placement: Placement;
  window: number;
  skillsMw: SisuMiddleware;
  /** The user's message on each turn. */
  inputs: readonly string[];
  /** The model, called with the request and the (1-based) turn it belongs to. */
  reply: (request: ScriptedRequest, turn: number) => ScriptedReply;
  /** Messages the conversation starts from (a resumed chat), after the system prompt. */
  history?: SisuCtx['messages'];
}

/** Runs one turn per input on one ctx, as a chat app does. */
export async function converse(sisu: RealSisu, options: ConversationOptions): Promise<Conversation> {
  const { host } = sisu;
  let turn = 0;
  const server = await sisu.start(options.provider, (request) => options.reply(request, turn));
  const ctx = createCtx(host, options.provider.model(host, server));
  if (options.history) ctx.messages = [...ctx.messages.filter((m) => m.role === 'system'), ...options.history];
  const stack = conversationStack(sisu, options.provider, options.placement, options.skillsMw, options.window);
  const turns: ScriptedRequest[][] = [];
  for (const input of options.inputs) {
    turn++;
    const start = server.requests.length;
    ctx.input = input;
    await runAgent(host, stack, ctx);
    turns.push(server.requests.slice(start));
  }
  return { ctx, server, turns };
}

/** Whether `request` carried `marker` in a tool result (an activation's text). */
export function sawInToolResult(request: ScriptedRequest, marker: string): boolean {
  return toolResults(request).some((result) => result.text.includes(marker));
}

/** The turns (1-based) on which every model request after the first carried `marker`, and the first too from turn 2 on. */
export function turnsThatSaw(turns: readonly ScriptedRequest[][], marker: string): number[] {
  const seen: number[] = [];
  turns.forEach((requests, i) => {
    // Turn 1's first request comes before the activation; from then on every request counts.
    const judged = i === 0 ? requests.slice(1) : requests;
    if (judged.length > 0 && judged.every((request) => sawInToolResult(request, marker))) seen.push(i + 1);
  });
  return seen;
}

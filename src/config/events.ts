/**
 * Activation events: every activation, denial, resource read and
 * keep-in-view re-injection, as one structured record. Each goes to
 * `ctx.log.span` (SISU's trace viewer lists spans with their fields) and to
 * the optional `onEvent` handler, whose failures are logged, never thrown.
 */
import type { HostLogger } from '../base/host.js';
import type { SkillsContext } from '../index/types.js';

/**
 * How a skill came to be activated: the model called use_skill, the user
 * mentioned it (`@name`), `always`, `autoActivate`, or the middleware put
 * trimmed instructions back in view.
 */
export type SkillRoute = 'model' | 'mention' | 'always' | 'auto' | 'kept-in-view';

export type SkillEventType = 'activation' | 'denial' | 'resource-read' | 'kept-in-view';

/**
 * `ok`: the text entered the conversation whole. `cut`: it was put back in
 * view shortened to the keep-in-view budget. `left-out`: it was out of view
 * and did not fit the budget at all. `denied`: `approve` said no (or failed).
 * `refused`: a read was refused.
 */
export type SkillEventOutcome = 'ok' | 'cut' | 'left-out' | 'denied' | 'refused';

export interface SkillEvent {
  type: SkillEventType;
  /** The skill's name. */
  skill: string;
  route: SkillRoute;
  /** Characters that entered the conversation (instructions, file text); 0 when nothing did. */
  size: number;
  outcome: SkillEventOutcome;
  /** Why it was denied or refused, when there is a reason. */
  reason?: string;
  /** The file, for resource reads. */
  path?: string;
  /** A denial decided earlier in the conversation, not asked again. */
  remembered?: boolean;
  /** The ranker's score (0..1), for `auto` activations. */
  score?: number;
  /** What the activation passed to the skill (`@name rest of the message`, use_skill's `arguments`). */
  arguments?: string;
}

/**
 * Called for every event, with the request's ctx. Its return value is not
 * awaited; a throw or a rejection is logged as `[skills] onEvent failed`.
 */
export type SkillEventHandler = (event: SkillEvent, ctx: SkillsContext) => void | Promise<void>;

/** The span each event type is logged as. */
export const EVENT_SPANS: Readonly<Record<SkillEventType, string>> = {
  activation: 'skills.activate',
  denial: 'skills.deny',
  'resource-read': 'skills.read',
  'kept-in-view': 'skills.keep-in-view',
};

/** Log `event` as a span and hand it to `onEvent`; never throws. */
export function emitEvent(
  event: SkillEvent,
  log: HostLogger | undefined,
  ctx: SkillsContext | undefined,
  onEvent: SkillEventHandler | undefined,
): void {
  log?.span?.(EVENT_SPANS[event.type], { ...event });
  if (!onEvent || !ctx) return;
  const failed = (error: unknown): void => {
    log?.warn('[skills] onEvent failed', {
      type: event.type,
      skill: event.skill,
      error: error instanceof Error ? error.message : String(error),
    });
  };
  try {
    const result: unknown = onEvent({ ...event }, ctx);
    if (typeof result === 'object' && result !== null && typeof (result as { then?: unknown }).then === 'function') {
      (result as PromiseLike<unknown>).then(undefined, failed);
    }
  } catch (error) {
    failed(error);
  }
}

/**
 * Activation events as data: every activation, denial, resource read and
 * keep-in-view re-injection, as one structured record, and the span each is
 * logged as (SISU's trace viewer lists spans with their fields). The tools
 * log them; the run also hands them to `onEvent` (run/events.ts).
 */
import type { HostLogger } from './host.js';

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
  /** The conversation had been shown an earlier version of the skill (its instructions or its folder): this one replaces it. */
  changed?: boolean;
}

/** The span each event type is logged as. */
export const EVENT_SPANS: Readonly<Record<SkillEventType, string>> = {
  activation: 'skills.activate',
  denial: 'skills.deny',
  'resource-read': 'skills.read',
  'kept-in-view': 'skills.keep-in-view',
};

/** Log `event` as its span on `log` (what a tool without a run does with its events). */
export function logEvent(event: SkillEvent, log: HostLogger | undefined): void {
  log?.span?.(EVENT_SPANS[event.type], { ...event });
}

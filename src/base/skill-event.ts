/**
 * Activation events as data: every activation, denial, resource read and
 * keep-in-view re-injection, as one structured record, and the span each is
 * logged as (SISU's trace viewer lists spans with their fields). The tools
 * log them; the run also hands them to `onEvent` (run/events.ts). Under
 * `trust`, each finding is an event too (SkillUntrustedEvent), in both modes.
 */
import type { Diagnostic, DiagnosticCode } from './diagnostics.js';
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

/** An activation, a denial, a resource read or a keep-in-view re-injection. */
export interface SkillActivityEvent {
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

/**
 * A `trust` finding (issue 41): one for each trust diagnostic, given once per
 * middleware, at the request during which it was found, in either mode: a
 * team rolling trust out in report mode sees in `onEvent` what enforcing
 * would refuse.
 */
export interface SkillUntrustedEvent {
  type: 'untrusted';
  /**
   * The skill folder's path in its place (`.` when the place is the skill), or '' for a place's manifest:
   * a name is not read from bytes that are not trusted.
   */
  skill: string;
  /** `UNTRUSTED_SKILL`, `MANIFEST_INVALID`, `MANIFEST_EXPIRED` or `MANIFEST_ROLLBACK`: the diagnostic's code. */
  reason: DiagnosticCode;
  /** The file the diagnostic names (the skill folder, for a skill its manifest does not list). */
  path: string;
  /** The diagnostic's message: what differs (hash prefixes) and what to do. */
  message: string;
  /** `refused`: nothing of it was served (enforce). `ok`: served anyway (report). */
  outcome: 'refused' | 'ok';
  size: 0;
}

/** The fields of `T` that `U` lacks, as never set: code that reads `event.route` of any event still compiles. */
type Unset<T, U> = { [K in Exclude<keyof T, keyof U>]?: undefined };

export type SkillEvent = SkillActivityEvent | (SkillUntrustedEvent & Unset<SkillActivityEvent, SkillUntrustedEvent>);

/** The span each event type is logged as. */
export const EVENT_SPANS: Readonly<Record<SkillEvent['type'], string>> = {
  activation: 'skills.activate',
  denial: 'skills.deny',
  'resource-read': 'skills.read',
  'kept-in-view': 'skills.keep-in-view',
  untrusted: 'skills.untrusted',
};

/** Log `event` as its span on `log` (what a tool without a run does with its events). */
export function logEvent(event: SkillEvent, log: HostLogger | undefined): void {
  log?.span?.(EVENT_SPANS[event.type], { ...event });
}

/** The event of a `trust` finding: `skill`, the skill folder's path in its place ('' for a place); `enforcing`: it was refused. */
export function untrustedEvent(diagnostic: Diagnostic, skill: string, enforcing: boolean): SkillEvent {
  const { code: reason, file: path, message } = diagnostic;
  return { type: 'untrusted', skill, reason, path, message, outcome: enforcing ? 'refused' : 'ok', size: 0 };
}

/**
 * The `onEvent` hook: every activation event (base/skill-event.ts) goes to
 * `ctx.log.span` and to the optional `onEvent` handler, with the request's
 * ctx; the handler's failures are logged, never thrown.
 */
import type { HostLogger } from '../base/host.js';
import { logEvent, type SkillEvent } from '../base/skill-event.js';
import type { SkillsContext } from './context.js';

/**
 * Called for every event, with the request's ctx. Its return value is not
 * awaited; a throw or a rejection is logged as `[skills] onEvent failed`.
 */
export type SkillEventHandler = (event: SkillEvent, ctx: SkillsContext) => void | Promise<void>;

/** Log `event` as a span and hand it to `onEvent`; never throws. */
export function emitEvent(
  event: SkillEvent,
  log: HostLogger | undefined,
  ctx: SkillsContext | undefined,
  onEvent: SkillEventHandler | undefined,
): void {
  logEvent(event, log);
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

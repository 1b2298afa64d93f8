/**
 * The gate every activation route passes before a skill's text enters the
 * conversation (use_skill, `@` mentions, `always`, auto-activation, and
 * keep-in-view re-injection): `approve`, asked once per skill per
 * conversation, and the event each outcome produces. One per middleware
 * instance; what it remembers lives in each run.
 */
import { askApproval, denialMessage, type SkillApproval, type Verdict } from './approval.js';
import { emitEvent, type SkillEventHandler } from './events.js';
import type { SkillEvent, SkillRoute } from '../base/skill-event.js';
import type { HostLogger } from '../base/host.js';
import type { SkillEntry } from '../base/model.js';
import type { SkillsRun } from './run.js';

export interface GateSettings {
  approve: SkillApproval | undefined;
  onEvent: SkillEventHandler | undefined;
}

/** The gate's answer: go ahead, or the message the model reads instead of the skill. */
export type GateDecision = { approved: true } | { approved: false; message: string };

const APPROVED: GateDecision = Object.freeze({ approved: true });

export class ActivationGate {
  constructor(private readonly settings: GateSettings) {}

  /**
   * Whether `entry` may be activated by `route` in `run`'s conversation.
   * Without `approve`, always (no promise, nothing stored). A denial is
   * logged and emitted here.
   */
  async check(run: SkillsRun, entry: SkillEntry, route: SkillRoute, log: HostLogger | undefined, args?: string): Promise<GateDecision> {
    const { approve } = this.settings;
    const ctx = run.ctx;
    if (!approve || !ctx) return APPROVED;
    const name = entry.metadata.name;
    let pending = run.approvals.get(name);
    const remembered = pending !== undefined;
    if (!pending) {
      pending = askApproval(approve, { skill: entry, route, ...(args === undefined ? {} : { arguments: args }) }, ctx);
      run.approvals.set(name, pending);
    }
    const verdict = await pending;
    if (verdict.approved) return APPROVED;
    this.logDenial(run, name, route, verdict, remembered, log);
    return { approved: false, message: denialMessage(name, verdict) };
  }

  /** Log `event` as a span and hand it to `onEvent` with the run's ctx. */
  emit(run: SkillsRun, event: SkillEvent, log: HostLogger | undefined): void {
    emitEvent(event, log, run.ctx, this.settings.onEvent);
  }

  private logDenial(
    run: SkillsRun,
    skill: string,
    route: SkillRoute,
    verdict: Verdict,
    remembered: boolean,
    log: HostLogger | undefined,
  ): void {
    const data = { skill, route, ...(verdict.reason === undefined ? {} : { reason: verdict.reason }) };
    if (remembered) log?.debug('[skills] activation denied', { ...data, remembered: true });
    else if (verdict.failure !== undefined) log?.error('[skills] approve failed; activation denied', { ...data, error: verdict.failure });
    else log?.info('[skills] activation denied', data);
    const reason = verdict.reason ?? (remembered ? undefined : verdict.failure);
    this.emit(
      run,
      {
        type: 'denial',
        skill,
        route,
        size: 0,
        outcome: 'denied',
        ...(reason === undefined ? {} : { reason }),
        ...(remembered ? { remembered: true } : {}),
      },
      log,
    );
  }
}

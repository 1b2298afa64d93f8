/**
 * Approval before activation: the `approve(activation, ctx)` option, asked
 * once per skill per conversation (the run remembers each decision, pending
 * ones included, so two calls in one round ask once), before any of the
 * skill's instructions enter the conversation. Anything but an approval
 * denies: `false`, `{ approved: false }`, a throw, a rejection, or a value of
 * another shape. What a denial tells the model is built here.
 */
import type { SkillRoute } from '../base/skill-event.js';
import type { SkillEntry } from '../base/model.js';
import { oneLine } from '../base/text.js';
import type { SkillsContext } from './context.js';

/** What `approve` is asked about. */
export interface SkillActivation {
  /** The skill's index entry (metadata, folder, SKILL.md path). */
  readonly skill: SkillEntry;
  readonly route: SkillRoute;
  /** What the activation passes to the skill (`@name rest of the message`, use_skill's `arguments`), when anything. */
  readonly arguments?: string;
}

/** `true` approves; `false` or `{ approved: false, reason }` denies (the reason is shown to the model and logged). */
export type ApprovalDecision = boolean | { readonly approved: boolean; readonly reason?: string };

export type SkillApproval = (activation: SkillActivation, ctx: SkillsContext) => ApprovalDecision | Promise<ApprovalDecision>;

/** A decision as the run keeps it. `failure` says why `approve` itself failed (logged, never shown to the model). */
export interface Verdict {
  approved: boolean;
  reason?: string;
  failure?: string;
}

/** Longest reason a denial message quotes. */
const MAX_REASON = 200;

/** Ask `approve`, turning every way it can fail into a denial. Never throws. */
export async function askApproval(approve: SkillApproval, activation: SkillActivation, ctx: SkillsContext): Promise<Verdict> {
  let decision: unknown;
  try {
    decision = await approve(activation, ctx);
  } catch (error) {
    return { approved: false, failure: `approve threw: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (decision === true) return { approved: true };
  if (decision === false) return { approved: false };
  if (typeof decision === 'object' && decision !== null && typeof (decision as { approved?: unknown }).approved === 'boolean') {
    const { approved, reason } = decision as { approved: boolean; reason?: unknown };
    if (approved) return { approved: true };
    return typeof reason === 'string' && oneLine(reason) !== '' ? { approved: false, reason: cleanReason(reason) } : { approved: false };
  }
  return { approved: false, failure: `approve returned ${describe(decision)}, not true, false or { approved, reason }` };
}

/** A reason on one line, without markup or control characters, at most MAX_REASON characters. */
function cleanReason(reason: string): string {
  // eslint-disable-next-line no-control-regex
  const flat = oneLine(reason.replace(/[\u0000-\u001f\u007f-\u009f\p{Cf}]/gu, ' ')).replace(/[<>]/g, '');
  return flat.length > MAX_REASON ? `${flat.slice(0, MAX_REASON)}…` : flat;
}

/**
 * What the model reads instead of the skill: plainly a decision about the
 * skill, never its text (it cannot be mistaken for an activation, which opens
 * with `<skill name=`).
 */
export function denialMessage(name: string, verdict: Verdict): string {
  const why = verdict.reason ? ` Reason: ${verdict.reason.replace(/[\s.]+$/u, '')}.` : '';
  return (
    `Activation of skill "${name}" was not approved for this conversation.${why} Its ` +
    `instructions are not available; continue without this skill and do not call it again.`
  );
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)}`;
}

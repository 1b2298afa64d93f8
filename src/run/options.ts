/**
 * The middleware's options: config/'s, with the per-request hooks typed and
 * documented beside the run that calls them (config/ checks only that each
 * is a function). The run takes the hooks from here, as given.
 */
import type { ConfigOptions } from '../config/options.js';
import type { SkillApproval } from './approval.js';
import type { SkillEventHandler } from './events.js';
import type { SkillVisibility } from './visibility.js';

export interface SkillsOptions extends ConfigOptions {
  /**
   * Decides per request which skills exist for it, e.g. from `ctx.state.user`.
   * Asked once per skill per request, synchronously or with a promise. Only
   * `true` shows a skill; a hidden one is left out of everything the request
   * sees (catalog, tools and their answers, mentions, `always`,
   * `autoActivate`, `ctx.skills`) as if it were not installed. A throw, a
   * rejection or a non-boolean hides the skill and is logged once per request.
   * @default undefined (every skill is visible; nothing is asked)
   */
  visible?: SkillVisibility;
  /**
   * Asked before a skill's instructions enter the conversation, whatever the
   * route (model, mention, always, auto, kept-in-view), once per skill per
   * conversation; may be async (e.g. to ask a person). `true` approves;
   * `false` or `{ approved: false, reason }` denies, and the model is told so
   * instead of getting the skill. A throw or a rejection denies and is logged.
   * @default undefined (every activation is approved; nothing is asked)
   */
  approve?: SkillApproval;
  /**
   * Called with every activation, denial, resource read and keep-in-view
   * re-injection (each also logged as a `ctx.log.span`). Not awaited; a throw
   * or rejection is logged and never breaks the run.
   * @default undefined
   */
  onEvent?: SkillEventHandler;
}

/** The hooks a middleware calls per request; each undefined when not given. */
export interface RunHooks {
  visible: SkillVisibility | undefined;
  approve: SkillApproval | undefined;
  onEvent: SkillEventHandler | undefined;
}

/** The hooks of options `resolveOptions` accepted. */
export function hooksOf(options: SkillsOptions): RunHooks {
  return { visible: options.visible, approve: options.approve, onEvent: options.onEvent };
}

// SkillsOptions only narrows the hooks' types: a key config/ does not know would be rejected as unknown, so it fails to compile here.
const _onlyConfigKeys: [Exclude<keyof SkillsOptions, keyof ConfigOptions>] extends [never] ? true : never = true;

/**
 * The errors this package throws. Skill problems never throw (they are
 * diagnostics); these are for mistakes a developer must fix in code or on the
 * command line, and for the watcher's trouble, which it reports, not throws.
 */
import type { Diagnostic } from '../base/diagnostics.js';
import type { HostLogger } from '../base/host.js';

/** Stable codes: never rename one, callers branch on them. */
export type SkillsErrorCode = 'SKILLS_CONFIG' | 'SKILLS_USAGE' | 'SKILLS_WATCH' | 'SKILLS_UNAVAILABLE';

export class SkillsError extends Error {
  readonly code: SkillsErrorCode;

  constructor(code: SkillsErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SkillsError';
    this.code = code;
  }
}

/** What a configuration error is built from. */
export interface ConfigProblem {
  /**
   * The option at fault, as written in the options object (`cacheTtl`, `packages[2]`, `autoActivate.threshold`);
   * absent when the problem is what is missing.
   */
  option?: string;
  /** What is wrong, e.g. "must be a whole number of 0 or more (or Infinity), got the string \"5m\"." */
  problem: string;
  /** How to fix it, e.g. "Default: 300000." */
  hint?: string;
}

/**
 * Thrown at construction when options are invalid. Callers act on `option`
 * and `hint`; the message is built from them, with no prefix (where it is
 * logged, the logger adds one).
 */
export class SkillsConfigError extends SkillsError {
  readonly option: string | undefined;
  readonly problem: string;
  readonly hint: string | undefined;

  constructor(given: ConfigProblem | string) {
    // A bare message is a problem with no recorded option (kept while every caller moves to fields).
    const fields: ConfigProblem = typeof given === 'string' ? { problem: given.replace(/^\[skills\] /, '') } : given;
    const subject = fields.option === undefined ? '' : `\`${fields.option}\` `;
    super('SKILLS_CONFIG', `${subject}${fields.problem}${fields.hint === undefined ? '' : ` ${fields.hint}`}`);
    this.name = 'SkillsConfigError';
    this.option = fields.option;
    this.problem = fields.problem;
    this.hint = fields.hint;
  }
}

/**
 * The one way an option check fails: a SkillsConfigError naming `option`
 * (undefined: the options as a whole), what is wrong, and how to fix it.
 */
export function failOption(option: string | undefined, problem: string, hint?: string): never {
  const fields: ConfigProblem = { problem };
  if (option !== undefined) fields.option = option;
  if (hint !== undefined) fields.hint = hint;
  throw new SkillsConfigError(fields);
}

/** A value as an option's error names it (`got ...`): `the string "5m"`, `number -1`, `boolean true`, `an array`, `null`, `undefined`. */
export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`;
  if (typeof value === 'function') return 'a function';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}

/** Thrown by the `sisu-skills` command line for an unknown command, flag or missing argument (exit code 2). */
export class SkillsUsageError extends SkillsError {
  constructor(message: string) {
    super('SKILLS_USAGE', message);
    this.name = 'SkillsUsageError';
  }
}

/**
 * A watched skills directory could not be watched (missing, deleted,
 * unreadable, out of watch handles). Handed to the watcher's `onError`; the
 * watcher keeps the other directories running and retries this one.
 */
export class SkillsWatchError extends SkillsError {
  /** The configured directory the error is about. */
  readonly directory: string;

  constructor(directory: string, message: string, options?: { cause?: unknown }) {
    super('SKILLS_WATCH', message, options);
    this.name = 'SkillsWatchError';
    this.directory = directory;
  }
}

/**
 * Why a skill could not be used at activation: `'unreadable'`, its SKILL.md
 * cannot be read any more; `'changed'`, it no longer parses (caught mid-write:
 * try again); `'stale'`, it changed or vanished since the prebuilt index was
 * built (the operator must rebuild the index); `'untrusted'`, its bytes are
 * not the ones its place's manifest vouches for (the `trust` option).
 */
export type SkillUnavailableReason = 'unreadable' | 'changed' | 'stale' | 'untrusted';

function unavailableMessage(fields: { skill: string; path: string; reason: SkillUnavailableReason; detail: string }): string {
  if (fields.reason === 'changed')
    return `SKILL.md of ${fields.skill} changed and cannot be read right now (${fields.detail}); try again in a moment`;
  if (fields.reason === 'stale')
    return `SKILL.md of ${fields.skill} changed since the skills index was built (${fields.detail}); the index must be rebuilt`;
  if (fields.reason === 'untrusted')
    return `SKILL.md of ${fields.skill} is not the one its publisher signed (${fields.detail}), so it is not used; continue without this skill`;
  return `${fields.path} cannot be read any more (${fields.detail})`;
}

/**
 * A skill's SKILL.md could not be used at activation. `reason` says why:
 * `'unreadable'`, it cannot be read any more (deleted, permissions);
 * `'changed'`, it was read but no longer parses, as when it is caught
 * mid-write, so trying again in a moment may work. The message is written
 * for the model; the skill index never caches a failed load.
 */
export class SkillUnavailableError extends SkillsError {
  /** The skill's name. */
  readonly skill: string;
  /** The SKILL.md that was read. */
  readonly path: string;
  readonly reason: SkillUnavailableReason;
  /** What went wrong, briefly: "it does not exist", "unclosed frontmatter at line 1". */
  readonly detail: string;
  /** `'untrusted'`: the diagnostic to log, the first time the skill is refused (undefined after). */
  readonly diagnostic: Diagnostic | undefined;

  constructor(
    fields: { skill: string; path: string; reason: SkillUnavailableReason; detail: string; message?: string; diagnostic?: Diagnostic },
    options?: { cause?: unknown },
  ) {
    super('SKILLS_UNAVAILABLE', fields.message ?? unavailableMessage(fields), options);
    this.name = 'SkillUnavailableError';
    this.skill = fields.skill;
    this.path = fields.path;
    this.reason = fields.reason;
    this.detail = fields.detail;
    this.diagnostic = fields.diagnostic;
  }
}

/**
 * Whether trying the same call again cannot help: a skill or a local copy
 * refused because its bytes are not the ones its publisher signed (fixed
 * only by signing or restoring the library), or a skill the index is stale
 * for (fixed by rebuilding it). A CopyError (storage/, above this layer)
 * names the refused file in `untrusted`.
 */
export function retryCannotHelp(error: unknown): boolean {
  if (error instanceof SkillUnavailableError) return error.reason === 'untrusted' || error.reason === 'stale';
  return typeof error === 'object' && error !== null && (error as { untrusted?: unknown }).untrusted !== undefined;
}

/** Logs the diagnostic a refusal by `trust` carries (SkillUnavailableError, reason 'untrusted'), where the refusal is caught. */
export function logUntrusted(log: HostLogger | undefined, error: unknown): void {
  if (error instanceof SkillUnavailableError && error.diagnostic) log?.warn('[skills] untrusted', error.diagnostic);
}

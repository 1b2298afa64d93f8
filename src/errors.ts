/**
 * The errors this package throws. Skill problems never throw (they are
 * diagnostics); these are for mistakes a developer must fix in code or on the
 * command line, and for the watcher's trouble, which it reports, not throws.
 */

/** Stable codes: never rename one, callers branch on them. */
export type SkillsErrorCode = 'SKILLS_CONFIG' | 'SKILLS_USAGE' | 'SKILLS_WATCH';

export class SkillsError extends Error {
  readonly code: SkillsErrorCode;

  constructor(code: SkillsErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SkillsError';
    this.code = code;
  }
}

/** Thrown at construction when options are invalid. The message says how to fix them. */
export class SkillsConfigError extends SkillsError {
  constructor(message: string) {
    super('SKILLS_CONFIG', message);
    this.name = 'SkillsConfigError';
  }
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

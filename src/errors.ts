/**
 * The errors this package throws. Skill problems never throw (they are
 * diagnostics); these are for mistakes a developer must fix in code or on the
 * command line, and for the watcher's trouble, which it reports, not throws.
 */

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
  readonly reason: 'unreadable' | 'changed';
  /** What went wrong, briefly: "it does not exist", "unclosed frontmatter at line 1". */
  readonly detail: string;

  constructor(fields: { skill: string; path: string; reason: 'unreadable' | 'changed'; detail: string }, options?: { cause?: unknown }) {
    super(
      'SKILLS_UNAVAILABLE',
      fields.reason === 'changed'
        ? `SKILL.md of ${fields.skill} changed and cannot be read right now (${fields.detail}); try again in a moment`
        : `${fields.path} cannot be read any more (${fields.detail})`,
      options,
    );
    this.name = 'SkillUnavailableError';
    this.skill = fields.skill;
    this.path = fields.path;
    this.reason = fields.reason;
    this.detail = fields.detail;
  }
}

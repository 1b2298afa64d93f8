/**
 * The errors this package throws. Skill problems never throw (they are
 * diagnostics); these are for mistakes a developer must fix in code.
 */

export type SkillsErrorCode = 'SKILLS_CONFIG';

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

import { describe, expect, it } from 'vitest';
import { SkillsConfigError, SkillsError, SkillsUsageError, SkillsWatchError, type SkillsErrorCode } from '../src/errors.js';

describe('error classes', () => {
  it('each class has its own name and a stable code, and is a SkillsError and an Error', () => {
    const cause = Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
    const cases: Array<[SkillsError, string, SkillsErrorCode]> = [
      [new SkillsConfigError('bad option'), 'SkillsConfigError', 'SKILLS_CONFIG'],
      [new SkillsUsageError('bad flag'), 'SkillsUsageError', 'SKILLS_USAGE'],
      [new SkillsWatchError('/skills', 'cannot watch', { cause }), 'SkillsWatchError', 'SKILLS_WATCH'],
      [new SkillsError('SKILLS_CONFIG', 'base'), 'SkillsError', 'SKILLS_CONFIG'],
    ];
    for (const [error, name, code] of cases) {
      expect(error).toBeInstanceOf(Error);
      expect(error).toBeInstanceOf(SkillsError);
      expect(error.name).toBe(name);
      expect(error.code).toBe(code);
      expect(String(error)).toMatch(new RegExp(`^${name}: `));
    }
  });

  it('SkillsWatchError keeps the directory and the cause', () => {
    const cause = new Error('gone');
    const error = new SkillsWatchError('/skills', 'cannot watch /skills', { cause });
    expect(error.directory).toBe('/skills');
    expect(error.cause).toBe(cause);
    expect(error.message).toBe('cannot watch /skills');
  });
});

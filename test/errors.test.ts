import { describe, expect, it } from 'vitest';
import {
  SkillsConfigError,
  SkillsError,
  SkillsUsageError,
  SkillsWatchError,
  SkillUnavailableError,
  type SkillsErrorCode,
} from '../src/config/errors.js';

describe('error classes', () => {
  it('each class has its own name and a stable code, and is a SkillsError and an Error', () => {
    const cause = Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
    const cases: Array<[SkillsError, string, SkillsErrorCode]> = [
      [new SkillsConfigError('bad option'), 'SkillsConfigError', 'SKILLS_CONFIG'],
      [new SkillsUsageError('bad flag'), 'SkillsUsageError', 'SKILLS_USAGE'],
      [new SkillsWatchError('/skills', 'cannot watch', { cause }), 'SkillsWatchError', 'SKILLS_WATCH'],
      [
        new SkillUnavailableError({ skill: 'x', path: '/s/x/SKILL.md', reason: 'changed', detail: 'd' }),
        'SkillUnavailableError',
        'SKILLS_UNAVAILABLE',
      ],
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

  it('SkillUnavailableError builds its message from its fields, for the model, and keeps the cause', () => {
    const cause = Object.assign(new Error('EACCES'), { code: 'EACCES' });
    const unreadable = new SkillUnavailableError(
      { skill: 'pdf', path: '/s/pdf/SKILL.md', reason: 'unreadable', detail: 'permission denied' },
      { cause },
    );
    expect(unreadable.message).toBe('/s/pdf/SKILL.md cannot be read any more (permission denied)');
    expect(unreadable).toMatchObject({ skill: 'pdf', path: '/s/pdf/SKILL.md', reason: 'unreadable', detail: 'permission denied', cause });
    const changed = new SkillUnavailableError({
      skill: 'pdf',
      path: '/s/pdf/SKILL.md',
      reason: 'changed',
      detail: 'unclosed frontmatter at line 1',
    });
    expect(changed.message).toBe(
      'SKILL.md of pdf changed and cannot be read right now (unclosed frontmatter at line 1); try again in a moment',
    );
  });
});

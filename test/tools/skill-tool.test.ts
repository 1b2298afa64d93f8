import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { busy, forgivingSchema } from '../../src/tools/skill-tool.js';
import { createFindSkillsTool } from '../../src/tools/find-skills.js';
import { createUseSkillTool } from '../../src/tools/use-skill.js';
import type { Skill } from '../../src/base/model.js';

const skill: Skill = {
  metadata: { name: 'a', description: 'A things.' },
  instructions: 'Do A.',
  path: '/s/a/SKILL.md',
  directory: '/s/a',
  resources: [],
};

/** What SISU's execute does before it calls a handler: `tool.schema.parse(args)` when the schema has one. */
function parseLikeExecute(schema: unknown, args: unknown): unknown {
  return (schema as { parse(value: unknown): unknown }).parse(args);
}

describe('forgivingSchema', () => {
  const schema = z.object({ skill_name: z.string(), limit: z.number().optional() });

  it('parses valid arguments as the schema does (defaults and stripping included)', () => {
    const forgiving = forgivingSchema(schema);
    expect(parseLikeExecute(forgiving, { skill_name: 'a', extra: 1 })).toEqual({ skill_name: 'a' });
  });

  it('never throws: arguments that fail go through unchanged for the handler to answer', () => {
    const forgiving = forgivingSchema(schema);
    expect(() => schema.parse({ skill: 'a' })).toThrow();
    expect(parseLikeExecute(forgiving, { skill: 'a' })).toEqual({ skill: 'a' });
    expect(parseLikeExecute(forgiving, 'nonsense')).toBe('nonsense');
  });

  it('keeps the definition the adapters convert (zod 3 _def.typeName and shape)', () => {
    const forgiving = forgivingSchema(schema);
    expect(forgiving._def.typeName).toBe('ZodObject');
    expect(Object.keys(forgiving._def.shape())).toEqual(['skill_name', 'limit']);
    expect(forgiving.safeParse({ skill_name: 'a' }).success).toBe(true);
  });
});

describe('tools under SISU-style argument parsing', () => {
  it('use_skill answers wrong arguments with how to call it, instead of a ZodError ending the turn', async () => {
    const tool = createUseSkillTool([skill]);
    const args = parseLikeExecute(tool.schema, { skill: 'a' });
    expect(await tool.handler(args as never, {})).toBe('use_skill needs a `skill_name` string, e.g. {"skill_name": "a"}.');
  });

  it('find_skills takes a limit sent as a string', async () => {
    const tool = createFindSkillsTool([skill]);
    const args = parseLikeExecute(tool.schema, { query: 'a things', limit: '3' });
    expect(await tool.handler(args as never, {})).toContain('- a: A things.');
  });

  it('a handler works with no second argument at all', async () => {
    const tool = createUseSkillTool([skill]);
    expect(await tool.handler({ skill_name: 'a' })).toContain('<skill name="a">');
  });
});

describe('busy', () => {
  it('is true for running out of file descriptors only', () => {
    expect(busy(Object.assign(new Error('x'), { code: 'EMFILE' }))).toBe(true);
    expect(busy(Object.assign(new Error('x'), { code: 'ENFILE' }))).toBe(true);
    expect(busy(Object.assign(new Error('x'), { code: 'ENOENT' }))).toBe(false);
    expect(busy('EMFILE')).toBe(false);
    // Discovery wraps the fs error in one that names the file.
    expect(busy(new Error('SKILL.md cannot be read any more', { cause: Object.assign(new Error('x'), { code: 'EMFILE' }) }))).toBe(true);
  });

  it('a tool that runs out of file descriptors says to try again', async () => {
    const broken = { ...skill };
    Object.defineProperty(broken, 'instructions', {
      get() {
        throw Object.assign(new Error('EMFILE: too many open files'), { code: 'EMFILE' });
      },
    });
    const answer = await createUseSkillTool([broken]).handler({ skill_name: 'a' }, {});
    expect(answer).toBe('Could not activate the skill: busy: too many files are open right now. Try again, or continue without it.');
  });
});

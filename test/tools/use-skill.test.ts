import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRecordingLogger, toJsonSchemaLikeSisu, type RecordingLogger } from '../../demo/mini-sisu.mjs';
import { createSkillIndex } from '../../src/skill-index.js';
import { createUseSkillTool, makeUseSkillTool, renderActivation, UseSkillArgsSchema } from '../../src/tools/use-skill.js';
import type { Skill, ToolContext } from '../../src/types.js';

function skill(name: string, extra: Partial<Skill> = {}): Skill {
  return {
    metadata: { name, description: `${name} things` },
    instructions: `\n# ${name}\n\nDo the ${name} steps.\n`,
    path: `/skills/${name}/SKILL.md`,
    directory: `/skills/${name}`,
    resources: [],
    ...extra,
  };
}

const reviewSkill = skill('code-review', {
  resources: [
    { name: 'checklist.md', path: 'references/checklist.md', absolutePath: '/skills/code-review/references/checklist.md', type: 'reference', size: 2048 },
    { name: 'lint.sh', path: 'scripts/lint.sh', absolutePath: '/skills/code-review/scripts/lint.sh', type: 'script', size: 300 },
  ],
});
const skills = [reviewSkill, skill('debug'), skill('deploy-staging'), skill('explain')];

function toolCtx(): ToolContext & { log: RecordingLogger } {
  return { state: {}, log: createRecordingLogger() };
}

describe('use_skill schema', () => {
  it('survives the conversion SISU adapters apply (zod 3 _def.typeName)', () => {
    const json = toJsonSchemaLikeSisu(UseSkillArgsSchema);
    expect(json).toMatchObject({
      type: 'object',
      properties: { skill_name: { type: 'string' } },
      required: ['skill_name'],
    });
  });

  it('the converter really does lose a zod 4-style or enum schema, so the check above means something', () => {
    expect(toJsonSchemaLikeSisu(z.object({ skill_name: z.enum(['a', 'b']) }))).toMatchObject({
      properties: { skill_name: { type: 'object' } },
    });
    expect(toJsonSchemaLikeSisu({ _zod: { def: { type: 'object' } } })).toEqual({ type: 'object' });
  });
});

describe('use_skill handler', () => {
  it('returns instructions without frontmatter, the directory, and resources with type and size', async () => {
    const tool = createUseSkillTool(skills);
    const result = await tool.handler({ skill_name: 'code-review' }, toolCtx());
    expect(result).toContain('<skill name="code-review">');
    expect(result).toContain('Skill directory: /skills/code-review');
    expect(result).toContain('# code-review\n\nDo the code-review steps.');
    expect(result).toContain('- references/checklist.md (reference, 2.0 KB)');
    expect(result).toContain('- scripts/lint.sh (script, 300 B)');
    expect(renderActivation(skill('debug'))).toContain('This skill has no bundled resources.');
  });

  it('an unknown name lists the available names, closest first', async () => {
    const result = await createUseSkillTool(skills).handler({ skill_name: 'deploy' }, toolCtx());
    expect(result).toMatch(/^Skill "deploy" not found\. Available skills \(closest first\): deploy-staging, /);
    expect(result).toContain('code-review');
  });

  it('caps the suggestions on large libraries and says how many more exist', async () => {
    const many = Array.from({ length: 25 }, (_, i) => skill(`skill-${String(i).padStart(2, '0')}`));
    const result = await createUseSkillTool(many).handler({ skill_name: 'nope' }, toolCtx());
    expect(result).toMatch(/, and 15 more\./);
  });

  it('asking again in the same run returns a short note', async () => {
    const tool = createUseSkillTool(skills);
    const ctx = toolCtx();
    const first = await tool.handler({ skill_name: 'debug' }, ctx);
    const second = await tool.handler({ skill_name: 'debug' }, ctx);
    expect(first).toContain('Do the debug steps.');
    expect(second).toBe('Skill "debug" is already active in this conversation: its instructions are above. Continue following them.');
    // A new run (new state) gets the full text again.
    expect(await tool.handler({ skill_name: 'debug' }, toolCtx())).toContain('Do the debug steps.');
    expect(ctx.log.entries).toContainEqual({ level: 'info', args: ['[skills] activated', { skill: 'debug', route: 'tool' }] });
  });

  it('bad arguments become a message naming the parameter', async () => {
    const tool = createUseSkillTool(skills);
    const bad = [undefined, {}, { skill_name: 3 }, 'code-review'] as unknown as Array<{ skill_name: string }>;
    for (const args of bad) {
      expect(await tool.handler(args, toolCtx())).toBe('use_skill needs a `skill_name` string, e.g. {"skill_name": "code-review"}.');
    }
  });

  it('trims the requested name', async () => {
    expect(await createUseSkillTool(skills).handler({ skill_name: '  explain ' }, toolCtx())).toContain('<skill name="explain">');
  });

  it('never throws: a failure inside becomes a message and is logged', async () => {
    const tool = makeUseSkillTool(() => {
      throw new Error('index exploded');
    });
    const ctx = toolCtx();
    await expect(tool.handler({ skill_name: 'x' }, ctx)).resolves.toBe('Could not activate the skill: index exploded. Try again, or continue without it.');
    expect(ctx.log.entries.map((e) => e.level)).toEqual(['error']);
    const odd = makeUseSkillTool(() => {
      throw 'plain string';
    });
    await expect(odd.handler({ skill_name: 'x' }, { state: {} })).resolves.toContain('plain string');
  });

  it('with no index says nothing is loaded; with an empty one says so too', async () => {
    expect(await makeUseSkillTool(() => undefined).handler({ skill_name: 'x' }, { state: {} })).toBe(
      'No skills are loaded, so there is nothing to activate.',
    );
    expect(await makeUseSkillTool(() => createSkillIndex({ skills: [] })).handler({ skill_name: 'x' }, { state: {} })).toBe(
      'Skill "x" not found: no skills are loaded.',
    );
  });

  it('a hand-built list with a repeated name keeps the first, like discovery', async () => {
    const first = skill('debug', { instructions: 'FIRST' });
    const second = skill('debug', { instructions: 'SECOND' });
    expect(await createUseSkillTool([first, second]).handler({ skill_name: 'debug' }, toolCtx())).toContain('FIRST');
  });
});

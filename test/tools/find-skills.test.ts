import { describe, expect, it } from 'vitest';
import { compose, createContext, createRecordingLogger, scriptedModel, toJsonSchemaLikeSisu, toolCalling, type MiniContext, type RecordingLogger } from '../../demo/mini-sisu.mjs';
import { createSkillIndex, type SkillIndex } from '../../src/skill-index.js';
import { createFindSkillsTool, FindSkillsArgsSchema, makeFindSkillsTool, MAX_FIND_LIMIT, rankerForSkills } from '../../src/tools/find-skills.js';
import { makeUseSkillTool } from '../../src/tools/use-skill.js';
import type { Skill, ToolContext } from '../../src/types.js';

function skill(name: string, description: string, tags?: unknown): Skill {
  return {
    metadata: { name, description, ...(tags === undefined ? {} : { tags: tags as string[] }) },
    instructions: `# ${name}\n\nDo the ${name} steps.`,
    path: `/skills/${name}/SKILL.md`,
    directory: `/skills/${name}`,
    resources: [],
  };
}

const skills = [
  skill('code-review', 'Reviews a change for bugs and security.\nUse when asked to review a pull request.'),
  skill('debug', 'Finds the cause of a crash from logs and stack traces.'),
  skill('pdf-forms', 'Fills and flattens PDF forms.', ['pdf', 42]),
  ...Array.from({ length: 30 }, (_, i) => skill(`report-${String(i).padStart(2, '0')}`, `Writes weekly report number ${i}.`)),
];
const index = createSkillIndex({ skills });

function toolCtx(): ToolContext & { log: RecordingLogger } {
  return { state: {}, log: createRecordingLogger() };
}

const find = makeFindSkillsTool(() => index);
const call = (args: unknown, ctx = toolCtx()): Promise<string> => find.handler(args as never, ctx) as Promise<string>;

describe('find_skills schema', () => {
  it('survives the conversion SISU adapters apply: query a required string, limit an optional number', () => {
    const json = toJsonSchemaLikeSisu(FindSkillsArgsSchema);
    expect(json).toMatchObject({
      type: 'object',
      properties: { query: { type: 'string' }, limit: { type: 'number' } },
      required: ['query'],
    });
    expect(json.properties?.limit?.description).toMatch(/default 5, at most 20/);
  });
});

describe('find_skills handler', () => {
  it('returns the best matches, one per line with the description, and points at use_skill', async () => {
    const text = await call({ query: 'please review my PR for security problems' });
    const lines = text.split('\n');
    expect(lines[0]).toBe('Skills matching "please review my PR for security problems", best first:');
    expect(lines[1]).toBe('- code-review: Reviews a change for bugs and security. Use when asked to review a pull request.');
    expect(lines.at(-1)).toMatch(/^Call `use_skill` with the `skill_name`/);
  });

  it('works over a fixed list for hand-wired apps', async () => {
    const tool = createFindSkillsTool(skills);
    expect(await tool.handler({ query: 'stack trace' }, toolCtx())).toMatch(/\n- debug: /);
  });

  it('searches tags too', async () => {
    expect((await call({ query: 'pdf' })).split('\n')[1]).toMatch(/^- pdf-forms:/);
  });

  it('returns 5 by default, caps the limit at 20, and accepts a numeric string', async () => {
    const entries = (text: string): number => text.split('\n').filter((l) => l.startsWith('- ')).length;
    expect(entries(await call({ query: 'weekly report' }))).toBe(5);
    expect(entries(await call({ query: 'weekly report', limit: 100 }))).toBe(MAX_FIND_LIMIT);
    expect(entries(await call({ query: 'weekly report', limit: '2' }))).toBe(2);
    expect(entries(await call({ query: 'weekly report', limit: 0 }))).toBe(1);
    expect(entries(await call({ query: 'weekly report', limit: 'lots' }))).toBe(5);
  });

  it('says so when nothing matches, when the query is missing, and when no skills are loaded', async () => {
    expect(await call({ query: 'kubernetes helm chart' })).toMatch(/^No skills match "kubernetes helm chart" among 33\. Try other words/);
    expect(await call({ query: '   ' })).toMatch(/needs a `query`/);
    expect(await call({})).toMatch(/needs a `query`/);
    expect(await call(null)).toMatch(/needs a `query`/);
    const none = makeFindSkillsTool(() => undefined);
    expect(await none.handler({ query: 'x' }, toolCtx())).toMatch(/No skills are loaded/);
    const empty = createSkillIndex({ skills: [] });
    expect(await makeFindSkillsTool(() => empty).handler({ query: 'x' }, toolCtx())).toMatch(/No skills are loaded/);
  });

  it('never throws: a failing source becomes a message and an error log', async () => {
    const broken = makeFindSkillsTool(() => {
      throw new Error('index gone');
    });
    const ctx = toolCtx();
    await expect(broken.handler({ query: 'review' }, ctx)).resolves.toMatch(/^Could not search the skills: index gone\./);
    expect(ctx.log.entries.some((e) => e.level === 'error' && e.args[0] === '[skills] find_skills failed')).toBe(true);
  });

  it('builds one ranker per index, shared by the views of that index', () => {
    expect(rankerForSkills(index.skills)).toBe(rankerForSkills(index.skills));
    const view: SkillIndex = { ...index };
    expect(rankerForSkills(view.skills)).toBe(rankerForSkills(index.skills));
    const rebuilt = createSkillIndex({ skills });
    expect(rankerForSkills(rebuilt.skills)).not.toBe(rankerForSkills(index.skills));
  });
});

describe('find_skills in a composed stack', () => {
  it('the model searches, then activates what it found', async () => {
    const register = async (ctx: MiniContext, next: () => Promise<void>): Promise<void> => {
      ctx.tools.register(makeFindSkillsTool(() => index));
      ctx.tools.register(makeUseSkillTool(() => index));
      await next();
    };
    const model = scriptedModel([
      { tool_calls: [{ name: 'find_skills', arguments: JSON.stringify({ query: 'app crashed with a stack trace', limit: 3 }) }] },
      (messages) => {
        const found = String(messages.at(-1)?.content);
        const name = /^- ([a-z0-9-]+):/m.exec(found)?.[1];
        return { tool_calls: [{ name: 'use_skill', arguments: { skill_name: name } }] };
      },
      { content: 'done' },
    ]);
    const ctx = createContext({ model, messages: [{ role: 'user', content: 'it crashes' }] });
    await compose<MiniContext>([register, toolCalling()])(ctx);
    const tools = ctx.messages.filter((m) => m.role === 'tool').map((m) => m.content);
    expect(tools[0]).toMatch(/^Skills matching "app crashed with a stack trace", best first:\n- debug:/);
    expect(tools[1]).toContain('<skill name="debug">');
    expect(model.calls[0]?.tools.find((t) => t.name === 'find_skills')?.parameters.required).toEqual(['query']);
  });
});

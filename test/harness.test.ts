/**
 * Tests for the mini SISU runtime itself, so a failing middleware test can be
 * trusted to be about the middleware and not the harness.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import {
  compose,
  createContext,
  createToolRegistry,
  scriptedModel,
  toJsonSchemaLikeSisu,
  toolCalling,
  toolDefinitionsLikeSisu,
  type MiniContext,
  type MiniTool,
  type Middleware,
} from '../demo/mini-sisu.mjs';
import type { Middleware as HostMiddleware, SkillsContext } from '../src/types.js';
import {
  callTool,
  conversation,
  FIXTURE_SKILL_NAMES,
  runAgent,
  SKILLS_FIXTURES,
  systemPrompt,
  toolMessages,
} from './helpers/agent.js';

function echoTool(): MiniTool<{ text: string; times?: number }> {
  return {
    name: 'echo',
    description: 'Repeats text.',
    schema: z.object({ text: z.string(), times: z.number().optional() }),
    async handler({ text, times = 1 }) {
      return text.repeat(times);
    },
  };
}

describe('compose', () => {
  it('runs middleware in onion order', async () => {
    const order: string[] = [];
    const mw =
      (name: string): Middleware<MiniContext> =>
      async (_ctx, next) => {
        order.push(`${name} in`);
        await next();
        order.push(`${name} out`);
      };
    await compose([mw('a'), mw('b'), mw('c')])(createContext(), async () => {
      order.push('final');
    });
    expect(order).toEqual(['a in', 'b in', 'c in', 'final', 'c out', 'b out', 'a out']);
  });

  it('rejects when next() is called twice', async () => {
    const twice: Middleware<MiniContext> = async (_ctx, next) => {
      await next();
      await next();
    };
    await expect(compose([twice])(createContext())).rejects.toThrow(/next\(\) called multiple times/);
  });

  it('turns a synchronous throw into a rejection', async () => {
    const boom: Middleware<MiniContext> = () => {
      throw new Error('boom');
    };
    await expect(compose([boom])(createContext())).rejects.toThrow('boom');
  });

  it('stops when a middleware does not call next()', async () => {
    let reached = false;
    const stop: Middleware<MiniContext> = async () => undefined;
    await compose([stop, async () => void (reached = true)])(createContext());
    expect(reached).toBe(false);
  });

  it('rejects non-functions up front', () => {
    expect(() => compose([42 as unknown as Middleware<MiniContext>])).toThrow(/index 0/);
  });

  it('accepts middleware written against the package host types', async () => {
    // A compile-time check as much as a runtime one: MiniContext must satisfy SkillsContext.
    const host: HostMiddleware<SkillsContext> = async (ctx, next) => {
      ctx.state.seen = true;
      await next();
    };
    const ctx = createContext({ messages: conversation('q'), model: scriptedModel(['ok']) });
    await compose<MiniContext>([host, toolCalling()])(ctx);
    expect(ctx.state.seen).toBe(true);
    expectTypeOf<MiniContext>().toMatchTypeOf<SkillsContext>();
  });
});

describe('createContext', () => {
  it('copies the messages it is given', () => {
    const messages = conversation('hi');
    const ctx = createContext({ messages });
    ctx.messages[0]!.content += ' changed';
    expect(messages[0]!.content).toBe('You are a careful coding assistant.');
  });

  it('records every log call', () => {
    const ctx = createContext();
    ctx.log.warn('careful', { code: 1 });
    ctx.log.debug('details');
    ctx.log.span('load', { n: 1 });
    expect(ctx.log.entries).toEqual([
      { level: 'warn', args: ['careful', { code: 1 }] },
      { level: 'debug', args: ['details'] },
      { level: 'span', args: ['load', { n: 1 }] },
    ]);
  });

  it('gives a live signal, empty state and working stubs', async () => {
    const ctx = createContext({ input: 'hello' });
    expect(ctx.input).toBe('hello');
    expect(ctx.signal.aborted).toBe(false);
    expect(ctx.state).toEqual({});
    await ctx.memory.set('k', 1);
    expect(await ctx.memory.get('k')).toBe(1);
    ctx.stream.write('a');
    ctx.stream.end();
    expect(ctx.stream.chunks).toEqual(['a']);
    expect(ctx.stream.ended).toBe(true);
    await expect(ctx.model.generate([])).rejects.toThrow(/no model configured/);
  });
});

describe('tool registry', () => {
  it('replaces a tool of the same name and counts registrations', () => {
    const tools = createToolRegistry();
    const first = echoTool();
    const second = { ...echoTool(), description: 'Second.' };
    tools.register(first);
    tools.register(second);
    expect(tools.list()).toHaveLength(1);
    expect(tools.get('echo')?.description).toBe('Second.');
    expect(tools.registrations).toEqual(['echo', 'echo']);
    expect(tools.timesRegistered('echo')).toBe(2);
    expect(tools.timesRegistered('other')).toBe(0);
  });

  it('rejects tools without a name or handler', () => {
    const tools = createToolRegistry();
    expect(() => tools.register({ name: '', schema: undefined, handler: async () => '' })).toThrow(/name/);
    expect(() => tools.register({ name: 'x', schema: undefined } as unknown as MiniTool)).toThrow(/handler/);
  });
});

describe('toolCalling with a scripted model', () => {
  const register: Middleware<MiniContext> = async (ctx, next) => {
    ctx.tools.register(echoTool());
    await next();
  };

  it('runs a tool, appends its result, and stops at a plain answer', async () => {
    const { ctx, model } = await runAgent(register, [
      callTool('echo', { text: 'ab', times: 2 }, 'c1'),
      (messages) => `echo said ${messages.at(-1)?.content}`,
    ]);
    expect(ctx.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant']);
    expect(ctx.messages[3]).toEqual({ role: 'tool', tool_call_id: 'c1', name: 'echo', content: 'abab' });
    expect(ctx.messages.at(-1)?.content).toBe('echo said abab');
    expect(model.calls).toHaveLength(2);
    expect(model.remaining).toBe(0);
    expect(model.calls[0]!.toolNames).toEqual(['echo']);
    expect(model.calls[0]!.toolChoice).toBe('auto');
    expect(model.calls[0]!.system).toBe('You are a careful coding assistant.');
    // The first call's snapshot is unaffected by later messages.
    expect(model.calls[0]!.messages).toHaveLength(2);
    expect(model.calls[0]!.tools[0]).toEqual({
      name: 'echo',
      description: 'Repeats text.',
      parameters: {
        type: 'object',
        properties: { text: { type: 'string' }, times: { type: 'number' } },
        required: ['text'],
        additionalProperties: false,
      },
    });
  });

  it('reports unknown tools, bad JSON and invalid arguments as tool messages', async () => {
    const { ctx } = await runAgent(register, [
      {
        tool_calls: [
          { name: 'nope', arguments: {} },
          { name: 'echo', arguments: '{not json' },
          { name: 'echo', arguments: { text: 5 } },
          { name: 'echo', arguments: '{"text":"ok"}' },
        ],
      },
      'done',
    ]);
    const results = toolMessages(ctx).map((m) => m.content);
    expect(results[0]).toMatch(/Unknown tool "nope".*echo/);
    expect(results[1]).toMatch(/Invalid arguments for tool "echo": not valid JSON/);
    expect(results[2]).toMatch(/Invalid arguments for tool "echo": text: /);
    expect(results[3]).toBe('ok');
    // Generated ids are unique per call.
    expect(new Set(toolMessages(ctx).map((m) => m.tool_call_id)).size).toBe(4);
  });

  it('JSON-encodes non-string results and reports handler errors', async () => {
    const tools: Middleware<MiniContext> = async (ctx, next) => {
      ctx.tools.register({ name: 'obj', schema: z.object({}), handler: async () => ({ a: [1] }) });
      ctx.tools.register({
        name: 'fails',
        schema: z.object({}),
        handler: async () => {
          throw new Error('disk full');
        },
      });
      await next();
    };
    const { ctx } = await runAgent(tools, [{ tool_calls: [{ name: 'obj' }, { name: 'fails' }] }, 'done']);
    expect(toolMessages(ctx).map((m) => m.content)).toEqual(['{"a":[1]}', 'Error from tool "fails": disk full']);
    expect(ctx.log.entries.some((e) => e.level === 'error')).toBe(true);
  });

  it('passes parsed arguments and the context to the handler', async () => {
    let seen: unknown;
    let sameCtx = false;
    const tools: Middleware<MiniContext> = async (ctx, next) => {
      ctx.tools.register({
        name: 'trim',
        schema: z.object({ s: z.string().trim() }),
        handler: async (args: { s: string }, toolCtx) => {
          seen = args;
          sameCtx = toolCtx === ctx;
          return '';
        },
      });
      await next();
    };
    await runAgent(tools, [callTool('trim', { s: '  x ' }), 'done']);
    expect(seen).toEqual({ s: 'x' });
    expect(sameCtx).toBe(true);
  });

  it('gives up after maxRounds rounds of tool calls', async () => {
    const model = scriptedModel(Array.from({ length: 5 }, () => callTool('echo', { text: 'x' })));
    const ctx = createContext({ messages: conversation('loop'), model });
    await expect(compose([register, toolCalling({ maxRounds: 2 })])(ctx)).rejects.toThrow(/after 2 rounds/);
    expect(model.calls).toHaveLength(3);
    expect(() => toolCalling({ maxRounds: 0 })).toThrow(/maxRounds/);
  });

  it('calls next() after the final answer', async () => {
    let after = '';
    const model = scriptedModel(['final']);
    const ctx = createContext({ messages: conversation('q'), model });
    await compose([toolCalling(), async (c: MiniContext) => void (after = c.messages.at(-1)?.content ?? '')])(ctx);
    expect(after).toBe('final');
  });

  it('stops when the signal is aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const model = scriptedModel(['never']);
    const ctx = createContext({ messages: conversation('q'), model, signal: controller.signal });
    await expect(compose([toolCalling()])(ctx)).rejects.toThrow();
    expect(model.calls).toHaveLength(0);
  });

  it('fails clearly when the script runs out', async () => {
    await expect(runAgent(register, [callTool('echo', { text: 'x' })])).rejects.toThrow(/call 2 has no scripted step/);
  });

  it('lets a script read the system prompt', async () => {
    const { ctx } = await runAgent([], [(messages) => `I was told: ${systemPrompt(messages)}`]);
    expect(ctx.messages.at(-1)?.content).toBe('I was told: You are a careful coding assistant.');
  });
});

describe('toJsonSchemaLikeSisu', () => {
  it('converts the zod 3 kinds SISU adapters know', () => {
    const schema = z.object({
      name: z.string().describe('Skill name'),
      count: z.number(),
      flag: z.boolean().optional(),
      tags: z.array(z.string()),
      nested: z.object({ inner: z.string().optional() }).optional(),
    });
    expect(toJsonSchemaLikeSisu(schema)).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string', description: 'Skill name' },
        count: { type: 'number' },
        flag: { type: 'boolean' },
        tags: { type: 'array', items: { type: 'string' } },
        nested: {
          type: 'object',
          properties: { inner: { type: 'string' } },
          required: [],
          additionalProperties: false,
        },
      },
      required: ['name', 'count', 'tags'],
      additionalProperties: false,
    });
  });

  it('keeps a description set on the optional wrapper or the object', () => {
    expect(toJsonSchemaLikeSisu(z.string().optional().describe('maybe'))).toEqual({ type: 'string', description: 'maybe' });
    expect(toJsonSchemaLikeSisu(z.object({}).describe('args'))).toMatchObject({ type: 'object', description: 'args' });
  });

  it('degrades everything else to { type: "object" }, as the adapters do', () => {
    expect(toJsonSchemaLikeSisu(z.enum(['a', 'b']))).toEqual({ type: 'object' });
    expect(toJsonSchemaLikeSisu(z.string().default('x'))).toEqual({ type: 'object' });
    expect(toJsonSchemaLikeSisu(z.string().refine((s) => s.length > 0))).toEqual({ type: 'object' });
    expect(toJsonSchemaLikeSisu(z.object({ e: z.enum(['a']) }))).toMatchObject({ properties: { e: { type: 'object' } } });
    // Shaped like a zod 4 schema: a _def without typeName.
    const zod4Like = { _def: { type: 'object', shape: { skill_name: { _def: { type: 'string' } } } }, _zod: {} };
    expect(toJsonSchemaLikeSisu(zod4Like)).toEqual({ type: 'object' });
    expect(toJsonSchemaLikeSisu(undefined)).toEqual({ type: 'object' });
    expect(toJsonSchemaLikeSisu({ type: 'object', properties: {} })).toEqual({ type: 'object' });
  });

  it('builds tool definitions with name, description and parameters', () => {
    expect(toolDefinitionsLikeSisu([{ name: 'x', schema: z.object({ a: z.string() }) }])).toEqual([
      {
        name: 'x',
        description: '',
        parameters: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false },
      },
    ]);
  });
});

// The example skills, read with a full YAML parser (not ours), so these are the
// values our frontmatter parser must agree with.
describe('example skills in fixtures/skills', () => {
  function frontmatter(name: string): Record<string, unknown> {
    const text = readFileSync(join(SKILLS_FIXTURES, name, 'SKILL.md'), 'utf8');
    const match = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(text);
    expect(match, `${name}/SKILL.md has no frontmatter`).not.toBeNull();
    return parseYaml(match![1]!) as Record<string, unknown>;
  }

  function body(name: string): string {
    return readFileSync(join(SKILLS_FIXTURES, name, 'SKILL.md'), 'utf8').split('\n---\n')[1] ?? '';
  }

  it('has exactly the five documented skills', () => {
    const folders = readdirSync(SKILLS_FIXTURES).filter((f) => statSync(join(SKILLS_FIXTURES, f)).isDirectory());
    expect(folders.sort()).toEqual([...FIXTURE_SKILL_NAMES]);
  });

  it.each(FIXTURE_SKILL_NAMES)('%s: valid name, a "Use when" description, real instructions and a resource', (name) => {
    const meta = frontmatter(name);
    expect(meta.name).toBe(name);
    expect(name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    expect(typeof meta.description).toBe('string');
    expect(meta.description as string).toMatch(/Use when/);
    expect((meta.description as string).length).toBeLessThanOrEqual(1024);
    const lines = body(name).trim().split('\n').length;
    expect(lines).toBeGreaterThanOrEqual(30);
    expect(lines).toBeLessThanOrEqual(80);
    const resources = readdirSync(join(SKILLS_FIXTURES, name)).filter((f) => f !== 'SKILL.md');
    expect(resources.length).toBeGreaterThan(0);
  });

  it('covers the frontmatter forms published skills use', () => {
    const raw = (name: string) => readFileSync(join(SKILLS_FIXTURES, name, 'SKILL.md'), 'utf8');
    expect(raw('code-review')).toMatch(/^description: >$/m);
    expect(raw('deploy-staging')).toMatch(/^description: \|-$/m);
    expect(raw('test-gen')).toMatch(/^description: ".*\\".*"$/m);
    expect(raw('test-gen')).toMatch(/^version: 1\.0$/m);
    expect(frontmatter('code-review')).toMatchObject({
      license: 'Apache-2.0',
      tags: ['review', 'quality', 'security'],
      metadata: { owner: 'platform-team', review: { 'max-findings': 15, 'severity-levels': 'blocker, major, minor, nit' } },
    });
    expect(frontmatter('test-gen').tags).toEqual(['testing', 'unit-tests', 'coverage']);
    expect(frontmatter('test-gen').description).toContain('"add tests"');
    expect(frontmatter('deploy-staging')).toMatchObject({
      'allowed-tools': 'Bash(git:*) Bash(./scripts/deploy.sh:*) Read',
      compatibility: 'Requires git, bash and network access to the staging cluster.',
    });
    // A literal block keeps its line break; the catalog must still show one line.
    expect(frontmatter('deploy-staging').description).toContain('drafts release notes.\nUse when');
    expect(frontmatter('explain').description).toContain("reader's level");
  });
});

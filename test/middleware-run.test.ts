/**
 * The run as an object: tools bound to it, reruns on one ctx, shared tool
 * registries, placement before the user's message, and discovery logs that
 * survive an aborted first request. Plain objects only; the real SISU runs
 * the same stories in test/real-sisu.
 */
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { nodeFileSystem } from '../src/base/fs.js';
import { getSkills, skillsMiddleware } from '../src/index.js';
import {
  callTool,
  compose,
  conversation,
  createContext,
  DEFAULT_SYSTEM,
  SKILLS_FIXTURES,
  type StackContext,
  type StackMessage,
} from './helpers/stack.js';

const logged = (ctx: StackContext, text: string) => ctx.log.entries.filter((e) => e.args[0] === text);

describe('tools bound to their run', () => {
  it('answer with no request ctx at all: only { log, signal } or nothing', async () => {
    const ctx = createContext({ messages: conversation('Please help.') });
    await skillsMiddleware({ directories: [SKILLS_FIXTURES] })(ctx, async () => {});
    const useSkill = ctx.tools.get('use_skill');
    const answer = String(await useSkill?.handler({ skill_name: 'debug' } as never, {}));
    expect(answer).toContain('<skill name="debug">');
    // Not in the messages yet (no host stored it): a second call gets the instructions again.
    expect(await callTool(ctx, 'use_skill', { skill_name: 'debug' })).toContain('<skill name="debug">');
    // Once the conversation holds the answer, as the host stores it, a further call says so.
    ctx.messages.push(
      { role: 'assistant', content: '', tool_calls: [{ id: 'c1', name: 'use_skill', arguments: { skill_name: 'debug' } }] },
      { role: 'tool', tool_call_id: 'c1', content: JSON.stringify(answer) },
    );
    expect(await callTool(ctx, 'use_skill', { skill_name: 'debug' })).toContain('already active');
    expect(getSkills(ctx)?.activated).toEqual(['debug']);
    const read = await callTool(ctx, 'read_skill_resource', { skill_name: 'debug', path: 'SKILL.md', limit: 3 });
    expect(read).toContain('name: debug');
  });

  it('two requests on one middleware keep separate runs (activations and read budgets)', async () => {
    const middleware = skillsMiddleware({ directories: [SKILLS_FIXTURES], maxSkillSize: 200 });
    const first = createContext({ messages: conversation('a') });
    const second = createContext({ messages: conversation('b') });
    await middleware(first, async () => {});
    await middleware(second, async () => {});
    await callTool(first, 'use_skill', { skill_name: 'debug' });
    expect(await callTool(second, 'use_skill', { skill_name: 'debug' })).toContain('<skill name="debug">');
    expect(await callTool(first, 'read_skill_resource', { skill_name: 'debug', path: 'SKILL.md' })).toContain('per-skill read limit');
    expect(await callTool(second, 'read_skill_resource', { skill_name: 'debug', path: 'SKILL.md', limit: 2 })).toContain('<skill_resource');
    expect(getSkills(first)?.activated).toEqual(['debug']);
    expect(getSkills(second)?.activated).toEqual(['debug']);
  });

  it('a rerun on the same ctx registers nothing twice, injects nothing twice, and keeps the run', async () => {
    const middleware = skillsMiddleware({ directories: [SKILLS_FIXTURES], always: ['explain'] });
    const ctx = createContext({ messages: conversation('Use @debug please.') });
    await middleware(ctx, async () => {});
    const view = getSkills(ctx);
    const before = JSON.stringify(ctx.messages);
    await middleware(ctx, async () => {});
    await middleware(ctx, async () => {});
    expect(JSON.stringify(ctx.messages)).toBe(before);
    expect(getSkills(ctx)).toBe(view);
    for (const name of ['use_skill', 'read_skill_resource']) expect(ctx.tools.timesRegistered(name)).toBe(1);
    expect(view?.activated).toEqual(['debug', 'explain']);
    expect(ctx.messages.filter((m) => m.role === 'tool')).toHaveLength(2);
  });

  it("a registry shared across requests gets this run's tools, never an earlier run's", async () => {
    const middleware = skillsMiddleware({ directories: [SKILLS_FIXTURES] });
    const first = createContext({ messages: conversation('a') });
    const second = { ...createContext({ messages: conversation('b') }), tools: first.tools };
    await middleware(first, async () => {});
    await callTool(first, 'use_skill', { skill_name: 'debug' });
    await middleware(second, async () => {});
    // The second conversation has not activated debug: it must get the instructions.
    expect(await callTool(second, 'use_skill', { skill_name: 'debug' })).toContain('<skill name="debug">');
    expect(second.log.entries.some((e) => String(e.args[0]).includes('already registered'))).toBe(false);
  });

  it("leaves someone else's tool of the same name in place, and says so", async () => {
    const ctx = createContext({ messages: conversation('a') });
    const theirs = { name: 'use_skill', schema: {}, handler: async () => 'theirs' };
    ctx.tools.register(theirs);
    await skillsMiddleware({ directories: [SKILLS_FIXTURES] })(ctx, async () => {});
    expect(ctx.tools.get('use_skill')).toBe(theirs);
    expect(
      ctx.log.entries.some((e) => e.level === 'warn' && String(e.args[0]).includes('a tool named use_skill is already registered')),
    ).toBe(true);
  });
});

/** inputToMessage as SISU writes it. */
const inputToMessage = async (ctx: StackContext & { input?: string }, next: () => Promise<void>) => {
  if (ctx.input) ctx.messages.push({ role: 'user', content: ctx.input });
  await next();
};

interface ModelCtx extends StackContext {
  input?: string;
  model: { name: string; generate(messages: StackMessage[]): Promise<string> };
}

function withModel(input: string, history: StackMessage[] = [{ role: 'system', content: DEFAULT_SYSTEM }]) {
  const seen: StackMessage[][] = [];
  const model = {
    name: 'recording',
    async generate(messages: StackMessage[]) {
      seen.push(messages.map((m) => ({ ...m })));
      return 'ok';
    },
  };
  const ctx: ModelCtx = { ...createContext({ messages: history }), input, model };
  /** Stands for execute: asks the model once, about the conversation. */
  const execute = async (c: ModelCtx) => {
    await c.model.generate(c.messages);
  };
  return { ctx, seen, model, execute };
}

const roles = (messages: readonly StackMessage[]) => messages.map((m) => (m.role === 'tool' ? `tool:${String(m.tool_call_id)}` : m.role));

describe('placement before inputToMessage', () => {
  it('gives the same activations as after it, right behind the user message', async () => {
    const after = withModel('Use @debug now.');
    await compose<ModelCtx>([
      inputToMessage,
      skillsMiddleware({ directories: [SKILLS_FIXTURES], always: ['explain'] }),
      (c) => after.execute(c),
    ])(after.ctx);
    const before = withModel('Use @debug now.');
    await compose<ModelCtx>([
      skillsMiddleware({ directories: [SKILLS_FIXTURES], always: ['explain'] }),
      inputToMessage,
      (c) => before.execute(c),
    ])(before.ctx);
    const expected = ['system', 'user', 'assistant', 'tool:skills_mention_debug', 'assistant', 'tool:skills_always_explain'];
    expect(roles(after.seen[0] ?? [])).toEqual(expected);
    expect(roles(before.seen[0] ?? [])).toEqual(expected);
    expect(JSON.stringify(before.seen[0])).toBe(JSON.stringify(after.seen[0]));
    expect(getSkills(before.ctx)?.activated).toEqual(['debug', 'explain']);
  });

  it('puts the model back afterwards, and waits for a model call on the conversation itself', async () => {
    const { ctx, seen, model } = withModel('Use @debug now.');
    const other: StackMessage[] = [{ role: 'user', content: 'classify this' }];
    await compose<ModelCtx>([
      skillsMiddleware({ directories: [SKILLS_FIXTURES] }),
      inputToMessage,
      async (c, next) => {
        // Another middleware asking the model about something else first: not touched.
        await c.model.generate(other);
        await next();
      },
      async (c) => {
        await c.model.generate(c.messages);
        await c.model.generate(c.messages);
      },
    ])(ctx);
    expect(roles(seen[0] ?? [])).toEqual(['user']);
    expect(roles(seen[1] ?? [])).toEqual(['system', 'user', 'assistant', 'tool:skills_mention_debug']);
    expect(roles(seen[2] ?? [])).toEqual(roles(seen[1] ?? []));
    expect(ctx.model).toBe(model);
  });

  it('without a model to wait for, appends the activation at the end', async () => {
    const ctx = { ...createContext({ messages: [{ role: 'system', content: 's' }] }), input: 'Use @debug.' };
    await skillsMiddleware({ directories: [SKILLS_FIXTURES] })(ctx, async () => {});
    expect(roles(ctx.messages)).toEqual(['system', 'assistant', 'tool:skills_mention_debug']);
  });

  it('on a follow-up turn, an activation stored as SISU stores it is not injected again', async () => {
    const history: StackMessage[] = [
      { role: 'system', content: DEFAULT_SYSTEM },
      { role: 'user', content: 'help me debug' },
      { role: 'assistant', content: '', tool_calls: [{ id: 'call_1', name: 'use_skill', arguments: { skill_name: 'debug' } }] },
      {
        role: 'tool',
        tool_call_id: 'call_1',
        name: 'use_skill',
        // The folder the activation named then: the skill's own (another one would be told again, as changed).
        content: JSON.stringify(`<skill name="debug">\nSkill directory: ${join(SKILLS_FIXTURES, 'debug')}\n\n# Debugging\n</skill>`),
      },
      { role: 'assistant', content: 'Done.' },
    ];
    const { ctx, seen, execute } = withModel('Again with @debug please.', history);
    await compose<ModelCtx>([skillsMiddleware({ directories: [SKILLS_FIXTURES] }), inputToMessage, (c) => execute(c)])(ctx);
    expect(seen[0]?.filter((m) => m.role === 'tool')).toHaveLength(1);
    expect(getSkills(ctx)?.activated).toEqual(['debug']);
    expect(await callTool(ctx, 'use_skill', { skill_name: 'debug' })).toContain('already active');
  });
});

describe('tool aliases', () => {
  it('an injected activation uses the name registerTools gave use_skill, and counts on the next turn', async () => {
    const middleware = skillsMiddleware({ directories: [SKILLS_FIXTURES] });
    const ctx = createContext({ messages: conversation('Use @debug.') });
    ctx.state.toolAliases = new Map([['use_skill', 'activate_skill']]);
    await middleware(ctx, async () => {});
    const call = ctx.messages.find((m) => m.role === 'assistant') as { tool_calls?: Array<{ name: string }> } | undefined;
    expect(call?.tool_calls?.[0]?.name).toBe('activate_skill');
    const next = createContext({
      messages: [...ctx.messages, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'And @debug again.' }],
    });
    next.state.toolAliases = ctx.state.toolAliases;
    await middleware(next, async () => {});
    expect(next.messages.filter((m) => m.role === 'tool')).toHaveLength(1);
  });
});

describe('watch problems reach the log', () => {
  it('when nothing can be watched: the problem with its kind and folder, then the mode and how often it rescans', async () => {
    const enospc = () => {
      throw Object.assign(new Error('ENOSPC: System limit for number of file watchers reached'), { code: 'ENOSPC' });
    };
    const fs = { ...nodeFileSystem, watch: enospc, watchFolder: enospc };
    const middleware = skillsMiddleware({ directories: [SKILLS_FIXTURES], watch: true, cacheTtl: Infinity, fs });
    try {
      let ctx = createContext({ messages: conversation('a') });
      await vi.waitFor(
        async () => {
          ctx = createContext({ messages: conversation('a') });
          await middleware(ctx, async () => {});
          expect(logged(ctx, '[skills] watch mode')).toHaveLength(1);
        },
        { timeout: 10_000, interval: 20 },
      );
      expect(logged(ctx, '[skills] watch mode')[0]?.args[1]).toEqual({ mode: 'polling', rescanEveryMs: 60_000 });
    } finally {
      await middleware.close();
    }
  });

  it('a WatchProblem is logged with its kind and folder', async () => {
    const { WatchProblem } = await import('../src/watch/watch.js');
    const problem = new WatchProblem('unreadable', '/skills', '/skills/a', 'cannot read /skills/a');
    let report: ((error: unknown) => void) | undefined;
    const fs = {
      ...nodeFileSystem,
      watchFolder(_path: string, _onEvent: unknown, onError: (error: unknown) => void) {
        report = onError;
        return { close() {} };
      },
    };
    const middleware = skillsMiddleware({ directories: [SKILLS_FIXTURES], watch: true, fs });
    try {
      await vi.waitFor(() => expect(report).toBeDefined(), { timeout: 5_000 });
      report?.(problem);
      const ctx = createContext({ messages: conversation('a') });
      await middleware(ctx, async () => {});
      const warnings = logged(ctx, '[skills] watch').map((e) => e.args[1]);
      expect(warnings.some((w) => typeof w === 'object' && w !== null && (w as { folder?: string }).folder !== undefined)).toBe(true);
    } finally {
      await middleware.close();
    }
  });
});

describe('discovery logs', () => {
  it('are logged by the next request when the one that started the scan was aborted', async () => {
    const middleware = skillsMiddleware({ directories: [SKILLS_FIXTURES] });
    const controller = new AbortController();
    const aborted = createContext({ messages: conversation('a'), signal: controller.signal });
    const pending = middleware(aborted, async () => {});
    controller.abort(new Error('user went away'));
    await expect(pending).rejects.toThrow('user went away');
    expect(logged(aborted, '[skills] discovered')).toHaveLength(0);
    const next = createContext({ messages: conversation('b') });
    await middleware(next, async () => {});
    expect(logged(next, '[skills] discovered')).toHaveLength(1);
    const third = createContext({ messages: conversation('c') });
    await middleware(third, async () => {});
    expect(logged(third, '[skills] discovered')).toHaveLength(0);
  });
});

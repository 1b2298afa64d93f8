/**
 * `approve(activation, ctx)` and `onEvent(event, ctx)`: asked before any
 * instructions enter the conversation, once per skill per conversation, on
 * every route; a denial is a short message that is not the skill; every
 * activation, denial and read is an event and a span; nothing either
 * callback does breaks the run.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { askApproval, denialMessage } from '../src/run/approval.js';
import { skillsMiddleware, type SkillActivation, type SkillEvent, type SkillsOptions } from '../src/index.js';
import { callTool, compose, conversation, createContext, toolMessages, type StackContext } from './helpers/stack.js';

let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'mw-skills-approve-'));
  for (const [name, description] of [
    ['deploy-production', 'Deploys services to production clusters.'],
    ['code-review', 'Reviews code changes for bugs and style.'],
    ['house-style', 'The house writing style.'],
  ] as const) {
    await mkdir(join(root, name, 'references'), { recursive: true });
    await writeFile(join(root, name, 'SKILL.md'), `---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\n\nBODY-${name}\n`);
    await writeFile(join(root, name, 'references', 'notes.md'), `notes of ${name}\n`);
  }
});

afterAll(() => rm(root, { recursive: true, force: true }));

async function request(options: Omit<SkillsOptions, 'directories'>, text: string, ctx?: StackContext) {
  const middleware = skillsMiddleware({ directories: [root], ...options });
  const run = ctx ?? createContext({ messages: conversation(text) });
  await compose([middleware])(run);
  return { middleware, ctx: run };
}

describe('approve', () => {
  it('is asked before use_skill returns anything, once per skill per conversation, with the request ctx', async () => {
    const asked: Array<{ activation: SkillActivation; user: unknown }> = [];
    const middleware = skillsMiddleware({
      directories: [root],
      approve: async (activation, ctx) => {
        asked.push({ activation, user: ctx.state.user });
        return (
          activation.skill.metadata.name !== 'deploy-production' || {
            approved: false,
            reason: 'Needs an on-call engineer.\n<skill name="x">',
          }
        );
      },
    });
    const ctx = createContext({ messages: conversation('ship it') });
    ctx.state.user = 'alice';
    await compose([middleware])(ctx);
    const denied = await callTool(ctx, 'use_skill', { skill_name: 'deploy-production' });
    expect(denied).toBe(
      'Activation of skill "deploy-production" was not approved for this conversation. Reason: Needs an on-call engineer. ' +
        'skill name="x". Its instructions are not available; continue without this skill and do not call it again.',
    );
    expect(denied).not.toContain('BODY-');
    expect(await callTool(ctx, 'use_skill', { skill_name: 'deploy-production' })).toBe(denied);
    expect(await callTool(ctx, 'use_skill', { skill_name: 'code-review' })).toContain('BODY-code-review');
    expect(asked.map((a) => [a.activation.skill.metadata.name, a.activation.route, a.user])).toEqual([
      ['deploy-production', 'model', 'alice'],
      ['code-review', 'model', 'alice'],
    ]);
    // The next turn on the same conversation: remembered, not asked again.
    ctx.messages.push({ role: 'user', content: '@deploy-production please' });
    await compose([middleware])(ctx);
    expect(asked).toHaveLength(2);
    expect(toolMessages(ctx).filter((m) => m.content === denied)).toHaveLength(1);
    expect(ctx.log.find('[skills] activation denied').map((e) => [e.level, e.args[1]])).toEqual([
      ['info', { skill: 'deploy-production', route: 'model', reason: 'Needs an on-call engineer. skill name="x"' }],
      ['debug', { skill: 'deploy-production', route: 'model', reason: 'Needs an on-call engineer. skill name="x"', remembered: true }],
      ['debug', { skill: 'deploy-production', route: 'mention', reason: 'Needs an on-call engineer. skill name="x"', remembered: true }],
    ]);
    // A new conversation (a new ctx) on the same middleware asks again.
    const next = createContext({ messages: conversation('@deploy-production') });
    next.state.user = 'bob';
    await compose([middleware])(next);
    expect(asked.slice(2).map((a) => [a.activation.skill.metadata.name, a.activation.route, a.user])).toEqual([
      ['deploy-production', 'mention', 'bob'],
    ]);
  });

  it('is told the arguments: the rest of a message opening with @name, and use_skill arguments; events carry them', async () => {
    const asked: SkillActivation[] = [];
    const events: SkillEvent[] = [];
    const { ctx } = await request(
      { approve: (activation) => Boolean(asked.push(activation)), onEvent: (event) => void events.push(event) },
      '@code-review src/auth.ts',
    );
    await callTool(ctx, 'use_skill', { skill_name: 'house-style', arguments: 'formal' });
    expect(asked.map((a) => [a.skill.metadata.name, a.route, a.arguments])).toEqual([
      ['code-review', 'mention', 'src/auth.ts'],
      ['house-style', 'model', 'formal'],
    ]);
    expect(events.map((e) => [e.skill, e.route, e.arguments])).toEqual([
      ['code-review', 'mention', 'src/auth.ts'],
      ['house-style', 'model', 'formal'],
    ]);
  });

  it('two calls in one round ask once', async () => {
    let calls = 0;
    let release!: (value: boolean) => void;
    const { ctx } = await request(
      {
        approve: () => {
          calls++;
          return new Promise<boolean>((resolve) => (release = resolve));
        },
      },
      'hi',
    );
    const both = Promise.all([
      callTool(ctx, 'use_skill', { skill_name: 'code-review' }),
      callTool(ctx, 'use_skill', { skill_name: 'code-review' }),
    ]);
    await new Promise((resolve) => setTimeout(resolve, 5));
    release(true);
    const [a, b] = await both;
    expect(calls).toBe(1);
    expect(a).toContain('BODY-code-review');
    expect(b).toContain('BODY-code-review');
  });

  it('covers @ mentions, always and autoActivate; a denied mention tells the model, a denied always or auto adds nothing', async () => {
    const routes: string[] = [];
    const { ctx } = await request(
      {
        always: ['house-style'],
        autoActivate: { threshold: 0, maxSkills: 1 },
        approve: ({ skill, route }) => {
          routes.push(`${skill.metadata.name}:${route}`);
          return false;
        },
      },
      '@deploy-production review my code changes for bugs',
    );
    expect(routes).toEqual(['deploy-production:mention', 'house-style:always', 'code-review:auto']);
    const results = toolMessages(ctx).map((m) => m.content);
    expect(results).toEqual([denialMessage('deploy-production', { approved: false })]);
    expect(JSON.stringify(ctx.messages)).not.toContain('BODY-');
  });

  it('an approve that throws, rejects or answers nonsense denies, and the failure is logged', async () => {
    for (const approve of [
      () => {
        throw new Error('policy service down');
      },
      () => Promise.reject(new Error('policy service down')),
      () => 'yes' as unknown as boolean,
      () => ({ approved: 'yes' }) as unknown as boolean,
    ]) {
      const { ctx } = await request({ approve }, 'hi');
      const answer = await callTool(ctx, 'use_skill', { skill_name: 'code-review' });
      expect(answer).toBe(denialMessage('code-review', { approved: false }));
      const logged = ctx.log.find('[skills] approve failed; activation denied');
      expect(logged).toHaveLength(1);
      expect(logged[0]?.level).toBe('error');
      expect(String((logged[0]?.args[1] as { error: string }).error)).toMatch(/^approve (threw: policy service down|returned)/);
    }
  });

  it('reads the decision shapes: true, false, { approved } with or without a reason', async () => {
    const skill = { metadata: { name: 'x', description: 'x' }, path: '/x/SKILL.md', directory: '/x' };
    const activation: SkillActivation = { skill, route: 'model' };
    const ctx = createContext();
    expect(await askApproval(() => true, activation, ctx)).toEqual({ approved: true });
    expect(await askApproval(() => ({ approved: true, reason: 'ok' }), activation, ctx)).toEqual({ approved: true });
    expect(await askApproval(() => false, activation, ctx)).toEqual({ approved: false });
    expect(await askApproval(() => ({ approved: false, reason: '  ' }), activation, ctx)).toEqual({ approved: false });
    expect(await askApproval(() => ({ approved: false, reason: 'x'.repeat(500) }), activation, ctx)).toEqual({
      approved: false,
      reason: `${'x'.repeat(200)}…`,
    });
  });
});

describe('events', () => {
  it('every activation, denial and resource read goes to onEvent and to ctx.log as a span, with skill, route, size and outcome', async () => {
    const events: SkillEvent[] = [];
    const { ctx } = await request(
      {
        always: ['house-style'],
        approve: ({ skill }) => skill.metadata.name !== 'deploy-production',
        onEvent: (event, eventCtx) => {
          expect(eventCtx.state.tag).toBe('t1');
          events.push(event);
        },
      },
      'hi',
      Object.assign(createContext({ messages: conversation('hi') }), { state: { tag: 't1' } }),
    );
    const review = await callTool(ctx, 'use_skill', { skill_name: 'code-review' });
    await callTool(ctx, 'use_skill', { skill_name: 'deploy-production' });
    const read = await callTool(ctx, 'read_skill_resource', { skill_name: 'code-review', path: 'references/notes.md' });
    await callTool(ctx, 'read_skill_resource', { skill_name: 'code-review', path: '../house-style/SKILL.md' });
    const houseStyle = toolMessages(ctx)[0]?.content ?? '';
    expect(events).toEqual([
      { type: 'activation', skill: 'house-style', route: 'always', size: houseStyle.length, outcome: 'ok' },
      { type: 'activation', skill: 'code-review', route: 'model', size: review.length, outcome: 'ok' },
      { type: 'denial', skill: 'deploy-production', route: 'model', size: 0, outcome: 'denied' },
      { type: 'resource-read', skill: 'code-review', route: 'model', size: read.length, outcome: 'ok', path: 'references/notes.md' },
      {
        type: 'resource-read',
        skill: 'code-review',
        route: 'model',
        size: 0,
        outcome: 'refused',
        reason: 'parent',
        path: '../house-style/SKILL.md',
      },
    ]);
    const spans = ctx.log.entries.filter(
      (e) => e.level === 'span' && String(e.args[0]).startsWith('skills.') && e.args[0] !== 'skills.discover',
    );
    expect(spans.map((e) => e.args)).toEqual(
      events.map((event) => [
        {
          activation: 'skills.activate',
          denial: 'skills.deny',
          'resource-read': 'skills.read',
          'kept-in-view': 'skills.keep-in-view',
          untrusted: 'skills.untrusted',
        }[event.type],
        event,
      ]),
    );
  });

  it('an onEvent that throws or rejects never breaks the run; the failure is logged', async () => {
    for (const onEvent of [
      () => {
        throw new Error('sink down');
      },
      () => Promise.reject(new Error('sink down')),
    ]) {
      const { ctx } = await request({ onEvent, always: ['house-style'] }, 'hi');
      expect(toolMessages(ctx)[0]?.content).toContain('BODY-house-style');
      expect(await callTool(ctx, 'use_skill', { skill_name: 'code-review' })).toContain('BODY-code-review');
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(ctx.log.find('[skills] onEvent failed').map((e) => e.args[1])).toEqual([
        { type: 'activation', skill: 'house-style', error: 'sink down' },
        { type: 'activation', skill: 'code-review', error: 'sink down' },
      ]);
    }
  });

  it('a hidden skill is never asked about and makes no event', async () => {
    const asked: string[] = [];
    const events: SkillEvent[] = [];
    const { ctx } = await request(
      {
        visible: (skill) => skill.metadata.name !== 'deploy-production',
        approve: ({ skill }) => Boolean(asked.push(skill.metadata.name)),
        onEvent: (event) => void events.push(event),
      },
      '@deploy-production',
    );
    expect(await callTool(ctx, 'use_skill', { skill_name: 'deploy-production' })).toMatch(/not found/);
    expect(asked).toEqual([]);
    expect(events).toEqual([]);
  });
});

/**
 * The scripted model servers themselves: each protocol rule catches its
 * violation (so a passing scenario means the rules held), valid bodies pass,
 * and a violation reaches SISU's real adapter as a provider error.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { checkRequest, startAnthropicServer, startOpenAIServer, type ScriptedServer } from '../../demo/scripted-model.mjs';
import { createCtx, describeSisu, PROVIDERS, realSisu } from './host.js';

type Body = Record<string, unknown>;

const openAITool = { type: 'function', function: { name: 'use_skill', parameters: { type: 'object', properties: {} } } };
const openAICall = (id: string) => ({
  role: 'assistant',
  content: null,
  tool_calls: [{ id, type: 'function', function: { name: 'use_skill', arguments: '{"skill_name":"x"}' } }],
});
const openAI = (messages: unknown[], extra: Body = {}): Body => ({ model: 'm', messages, tools: [openAITool], ...extra });

describe('OpenAI protocol checks', () => {
  const check = (body: Body) => checkRequest.openai(body);

  it('accept a tool call answered by its tool message', () => {
    expect(
      check(
        openAI([
          { role: 'system', content: 's' },
          { role: 'user', content: 'u' },
          openAICall('call_1'),
          { role: 'tool', tool_call_id: 'call_1', content: '"r"' },
        ]),
      ),
    ).toEqual([]);
  });

  it('reject a tool message that answers no open call (orphan or second answer)', () => {
    expect(
      check(
        openAI([
          { role: 'user', content: 'u' },
          { role: 'tool', tool_call_id: 'call_1', content: 'r' },
        ]),
      ).join(),
    ).toMatch(/role 'tool' must be a response to a preceding message with 'tool_calls'/);
    const twice = openAI([
      { role: 'user', content: 'u' },
      openAICall('call_1'),
      { role: 'tool', tool_call_id: 'call_1', content: 'r' },
      { role: 'tool', tool_call_id: 'call_1', content: 'r' },
    ]);
    expect(check(twice)).toHaveLength(1);
  });

  it('reject a tool call not answered before the next message, or at all', () => {
    expect(check(openAI([{ role: 'user', content: 'u' }, openAICall('call_1'), { role: 'user', content: 'again' }])).join()).toMatch(
      /did not have response messages: call_1/,
    );
    expect(check(openAI([{ role: 'user', content: 'u' }, openAICall('call_1')])).join()).toMatch(/call_1/);
  });

  it('reject ids over 40 characters or with other characters', () => {
    const long = `skills_always_${'a'.repeat(30)}`;
    expect(
      check(openAI([{ role: 'user', content: 'u' }, openAICall(long), { role: 'tool', tool_call_id: long, content: 'r' }])).join(),
    ).toMatch(/at most 40 characters/);
    expect(
      check(openAI([{ role: 'user', content: 'u' }, openAICall('a.b'), { role: 'tool', tool_call_id: 'a.b', content: 'r' }])),
    ).toHaveLength(1);
  });

  it('reject tool definitions whose parameters are not an object schema, and arguments that are not a string', () => {
    const bad = { type: 'function', function: { name: 'use_skill', parameters: { type: 'string' } } };
    expect(check(openAI([{ role: 'user', content: 'u' }], { tools: [bad] })).join()).toMatch(/parameters\.type: expected 'object'/);
    expect(
      check(openAI([{ role: 'user', content: 'u' }], { tools: [{ name: 'use_skill', parameters: { type: 'object' } }] })).join(),
    ).toMatch(/expected \{ type: 'function'/);
    const objectArgs = {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'use_skill', arguments: { skill_name: 'x' } } }],
    };
    expect(check(openAI([{ role: 'user', content: 'u' }, objectArgs, { role: 'tool', tool_call_id: 'c1', content: 'r' }])).join()).toMatch(
      /arguments: expected a JSON string/,
    );
  });
});

const anthropicTool = { name: 'use_skill', input_schema: { type: 'object', properties: {} } };
const toolUse = (id: string) => ({ role: 'assistant', content: [{ type: 'tool_use', id, name: 'use_skill', input: { skill_name: 'x' } }] });
const toolResult = (id: string) => ({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'r' }] });
const anthropic = (messages: unknown[], extra: Body = {}): Body => ({
  model: 'm',
  max_tokens: 10,
  system: 's',
  messages,
  tools: [anthropicTool],
  ...extra,
});

describe('Anthropic protocol checks', () => {
  const check = (body: Body) => checkRequest.anthropic(body);

  it('accept a user turn, a tool_use and its tool_result', () => {
    expect(check(anthropic([{ role: 'user', content: 'u' }, toolUse('toolu_1'), toolResult('toolu_1')]))).toEqual([]);
  });

  it('reject a system role in messages, and a first message that is not the user', () => {
    expect(
      check(
        anthropic([
          { role: 'system', content: 's' },
          { role: 'user', content: 'u' },
        ]),
      ).join(),
    ).toMatch(/top-level `system`/);
    expect(check(anthropic([toolUse('toolu_1'), toolResult('toolu_1')])).join()).toMatch(/first message must use the "user" role/);
  });

  it('reject two turns of the same role in a row', () => {
    expect(
      check(
        anthropic([
          { role: 'user', content: 'u' },
          { role: 'user', content: 'v' },
        ]),
      ).join(),
    ).toMatch(/roles must alternate/);
  });

  it('reject a tool_result that answers nothing just before it, and a tool_use left unanswered', () => {
    expect(check(anthropic([{ role: 'user', content: 'u' }, { role: 'assistant', content: 'a' }, toolResult('toolu_9')])).join()).toMatch(
      /unexpected `tool_use_id`/,
    );
    expect(check(anthropic([{ role: 'user', content: 'u' }, toolUse('toolu_1'), { role: 'user', content: 'v' }])).join()).toMatch(
      /`tool_use` ids were found without `tool_result` blocks immediately after: toolu_1/,
    );
  });

  it('reject ids outside [a-zA-Z0-9_-], tools without an object input_schema, and empty content', () => {
    expect(check(anthropic([{ role: 'user', content: 'u' }, toolUse('a.b'), toolResult('a.b')])).join()).toMatch(/should match pattern/);
    expect(check(anthropic([{ role: 'user', content: 'u' }], { tools: [{ name: 'use_skill', input_schema: {} }] })).join()).toMatch(
      /input_schema\.type: expected 'object'/,
    );
    expect(
      check(
        anthropic([
          { role: 'user', content: 'u' },
          { role: 'assistant', content: [] },
          { role: 'user', content: 'v' },
        ]),
      ).join(),
    ).toMatch(/non-empty content/);
  });
});

describe('scripted servers over HTTP', () => {
  let server: ScriptedServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('answer a request with no scripted reply with a 400 and record it', async () => {
    server = await startOpenAIServer([]);
    const response = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'u' }] }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/no reply for request 1/);
    expect(server.violations).toEqual(['request 1: no scripted reply (the script has 0)']);
    expect(server.requests).toHaveLength(1);
  });

  it('answer a protocol violation in the provider error shape', async () => {
    server = await startAnthropicServer(['never sent']);
    const response = await fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': 'k', 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', max_tokens: 5, messages: [{ role: 'assistant', content: 'a' }] }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { type: string; error: { type: string; message: string } };
    expect(body.type).toBe('error');
    expect(body.error.type).toBe('invalid_request_error');
    expect(body.error.message).toMatch(/first message must use the "user" role/);
    expect(server.violations).toHaveLength(1);
  });
});

describeSisu('scripted servers behind the real adapters', () => {
  const sisu = realSisu();

  for (const provider of PROVIDERS) {
    it(`${provider.name}: a tool call and a text answer round-trip through execute`, async () => {
      const echo = {
        name: 'echo',
        description: 'Echoes its text.',
        schema: undefined,
        handler: async (args: { text?: string }) => `echo:${args.text ?? ''}`,
      };
      const { host } = sisu;
      const server = await sisu.start(provider, [{ toolCalls: [{ name: 'echo', arguments: { text: 'hi' } }] }, 'all done']);
      const ctx = createCtx(host, provider.model(host, server), { input: 'say hi' });
      ctx.tools.register(echo);
      await new host.core.Agent().use(host.core.inputToMessage).use(host.core.execute).handler()(ctx);
      expect(server.violations).toEqual([]);
      expect(host.core.getExecutionResult(ctx)?.text).toBe('all done');
      const second = server.requests[1];
      expect(second?.messages.at(-1)).toEqual({ role: 'tool', toolCallId: expect.any(String), content: '"echo:hi"' });
      expect(second?.tools.map((t) => t.name)).toEqual(['echo']);
    });

    it(`${provider.name}: a protocol violation fails the run as the provider would`, async () => {
      const { host } = sisu;
      const server = await sisu.start(provider, ['unreachable']);
      const ctx = createCtx(host, provider.model(host, server), { input: 'hello' });
      // An orphan tool message: both providers refuse it.
      ctx.messages.push({ role: 'tool', tool_call_id: 'call_x', content: 'r' });
      await expect(new host.core.Agent().use(host.core.inputToMessage).use(host.core.execute).handler()(ctx)).rejects.toThrow(/400/);
      expect(server.violations.length).toBeGreaterThan(0);
    });
  }
});

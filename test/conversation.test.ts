import { describe, expect, it } from 'vitest';
import {
  activatedSkills,
  activationMessages,
  conversationActivations,
  injectedIdPrefix,
  injectedCallId,
  insertAfterLatestUser,
  latestUserText,
  MAX_TOOL_CALL_ID,
  modelToolName,
  toolCallIds,
  userTurn,
} from '../src/run/conversation.js';
import { toolResultText } from '../src/base/message-text.js';
import type { HostMessage } from '../src/base/host.js';

const activation = (name: string) => `<skill name="${name}">\nSkill directory: /s/${name}\n\nDo it.\n</skill>`;

/** An assistant call and its answer, the way SISU's execute stores them (result JSON-stringified). */
function sisuTurn(id: string, args: unknown, result: string, name = 'use_skill'): HostMessage[] {
  return [
    { role: 'assistant', content: '', tool_calls: [{ id, name, arguments: args }] } as HostMessage,
    { role: 'tool', tool_call_id: id, name, content: JSON.stringify(result) } as HostMessage,
  ];
}

describe('activatedSkills', () => {
  it('sees an activation stored as SISU stores it: JSON.stringify of the answer', () => {
    const messages = [{ role: 'user', content: 'hi' }, ...sisuTurn('call_1', { skill_name: 'git-helper' }, activation('git-helper'))];
    expect(activatedSkills(messages)).toEqual(['git-helper']);
  });

  it('sees plain-text answers (our own injections) and OpenAI-style string arguments', () => {
    const messages: HostMessage[] = [
      ...activationMessages('skills_mention_a', 'a', activation('a')),
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: 'c2', function: { name: 'use_skill', arguments: '{"skill_name":"b"}' } }],
      } as HostMessage,
      { role: 'tool', tool_call_id: 'c2', content: activation('b') } as HostMessage,
    ];
    expect(activatedSkills(messages)).toEqual(['a', 'b']);
  });

  it('a failed or unknown-name call, another tool, or pasted text does not count', () => {
    const messages: HostMessage[] = [
      { role: 'user', content: `look: ${activation('pasted')}` },
      ...sisuTurn('c1', { skill_name: 'missing' }, 'Skill "missing" not found.'),
      ...sisuTurn('c2', { skill_name: 'x' }, activation('x'), 'read_skill_resource'),
      ...sisuTurn('c3', { skill_name: 'y' }, activation('z')),
      ...sisuTurn('c4', '{not json', activation('w')),
      ...sisuTurn('c5', { other: 1 }, activation('v')),
      { role: 'tool', tool_call_id: 'orphan', content: activation('o') } as HostMessage,
    ];
    expect(activatedSkills(messages)).toEqual([]);
  });

  it('resolves the requested name (trimmed, through the index), the latest activation last, as a run records them', () => {
    const messages = [
      ...sisuTurn('c1', { skill_name: ' B ' }, activation('b')),
      ...sisuTurn('c2', { skill_name: 'a' }, activation('a')),
      ...sisuTurn('c3', { skill_name: 'b' }, activation('b')),
    ];
    expect(activatedSkills(messages, (requested) => requested.toLowerCase())).toEqual(['a', 'b']);
    expect(activatedSkills(messages, () => undefined)).toEqual([]);
  });
});

describe('conversationActivations', () => {
  it("carries each skill's latest arguments (trimmed), from the model's calls, injected ones and OpenAI-style strings", () => {
    const messages: HostMessage[] = [
      ...sisuTurn('c1', { skill_name: 'deploy', arguments: ' eu-west ' }, activation('deploy')),
      ...activationMessages('skills_mention_review', 'review', activation('review'), 'use_skill', 'PR-7'),
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: 'c3', function: { name: 'use_skill', arguments: '{"skill_name":"notes","arguments":"v2"}' } }],
      } as HostMessage,
      { role: 'tool', tool_call_id: 'c3', content: activation('notes') } as HostMessage,
      ...sisuTurn('c4', { skill_name: 'deploy', arguments: 'us-east' }, activation('deploy')),
      ...sisuTurn('c5', { skill_name: 'review' }, activation('review')),
      ...sisuTurn('c6', { skill_name: 'notes', arguments: '   ' }, 'Skill "notes" is already active in this conversation.'),
    ];
    expect(conversationActivations(messages)).toEqual([
      { name: 'notes', arguments: 'v2' },
      { name: 'deploy', arguments: 'us-east' },
      { name: 'review' },
    ]);
  });

  it('a put-back copy recognises a skill whose activation is gone, and never reorders one still there', () => {
    const putBack = (id: string): boolean => id.startsWith(injectedIdPrefix('kept-in-view'));
    const copy = (name: string, args?: string): HostMessage[] =>
      activationMessages(injectedCallId('kept-in-view', name, new Set()), name, activation(name), 'use_skill', args);
    const messages = [
      ...sisuTurn('c1', { skill_name: 'a' }, activation('a')),
      ...sisuTurn('c2', { skill_name: 'b' }, activation('b')),
      ...copy('a', 'stale'),
      ...copy('c', 'x'),
    ];
    expect(conversationActivations(messages, undefined, undefined, putBack)).toEqual([
      { name: 'a' },
      { name: 'b' },
      { name: 'c', arguments: 'x' },
    ]);
    // Without telling copies apart, a put-back would move the skill to the end.
    expect(conversationActivations(messages).map((activation) => activation.name)).toEqual(['b', 'a', 'c']);
  });
});

describe('toolResultText', () => {
  it('decodes a JSON-stringified string, and leaves anything else as it is', () => {
    expect(toolResultText(JSON.stringify('a\n"b"'))).toBe('a\n"b"');
    expect(toolResultText('plain')).toBe('plain');
    expect(toolResultText('"unterminated')).toBe('"unterminated');
    expect(toolResultText('"1"x')).toBe('"1"x');
    expect(toolResultText(JSON.stringify({ a: 1 }))).toBe('{"a":1}');
    expect(toolResultText([{ type: 'text', text: 'part' }])).toBe('part');
    expect(toolResultText(undefined)).toBeUndefined();
  });
});

describe('injectedCallId', () => {
  const valid = /^[A-Za-z0-9_-]{1,40}$/;

  it('keeps short ids readable', () => {
    expect(injectedCallId('mention', 'git-helper', new Set())).toBe('skills_mention_git-helper');
  });

  it('is at most 40 characters of [A-Za-z0-9_-], distinct for long names that share a prefix', () => {
    const long = 'a'.repeat(64);
    const other = `${'a'.repeat(63)}b`;
    const first = injectedCallId('always', long, new Set());
    const second = injectedCallId('always', other, new Set());
    for (const id of [first, second]) {
      expect(id).toMatch(valid);
      expect(id.length).toBeLessThanOrEqual(MAX_TOOL_CALL_ID);
    }
    expect(first).not.toBe(second);
    expect(injectedCallId('mention', 'naïve skill', new Set())).toMatch(valid);
  });

  it('never repeats an id the conversation holds', () => {
    const taken = new Set(['skills_auto_x']);
    const id = injectedCallId('auto', 'x', taken);
    expect(id).not.toBe('skills_auto_x');
    expect(id).toMatch(valid);
    taken.add(id);
    const third = injectedCallId('auto', 'x', taken);
    expect(taken.has(third)).toBe(false);
    const full = new Set([injectedCallId('always', 'a'.repeat(64), new Set())]);
    const next = injectedCallId('always', 'a'.repeat(64), full);
    expect(next.length).toBeLessThanOrEqual(MAX_TOOL_CALL_ID);
    expect(full.has(next)).toBe(false);
  });
});

describe('toolCallIds', () => {
  it('collects call and answer ids', () => {
    expect([...toolCallIds([...sisuTurn('c1', {}, 'x'), { role: 'user', content: 'u' }])]).toEqual(['c1']);
  });
});

describe('insertAfterLatestUser', () => {
  it('goes right after the latest user message, behind activations already there', () => {
    const messages: HostMessage[] = [
      { role: 'system', content: 's' },
      { role: 'user', content: 'old' },
      { role: 'assistant', content: 'answer' },
      { role: 'user', content: 'new' },
    ];
    insertAfterLatestUser(messages, activationMessages('skills_mention_a', 'a', 'A'));
    insertAfterLatestUser(messages, activationMessages('skills_always_b', 'b', 'B'));
    expect(messages.map((m) => (m.role === 'tool' ? `tool:${m.content}` : m.role))).toEqual([
      'system',
      'user',
      'assistant',
      'user',
      'assistant',
      'tool:A',
      'assistant',
      'tool:B',
    ]);
  });

  it('goes at the end when there is no user message', () => {
    const messages: HostMessage[] = [{ role: 'system', content: 's' }];
    insertAfterLatestUser(messages, activationMessages('skills_always_a', 'a', 'A'));
    expect(messages.map((m) => m.role)).toEqual(['system', 'assistant', 'tool']);
  });
});

describe('userTurn', () => {
  const system: HostMessage = { role: 'system', content: 's' };

  it('before inputToMessage: the input is the query and its message is still to come', () => {
    expect(userTurn([system], 'use @a')).toEqual({ text: 'use @a', pending: true });
    // A follow-up turn: history ends with the last answer.
    const history: HostMessage[] = [system, { role: 'user', content: 'use @a' }, { role: 'assistant', content: 'done' }];
    expect(userTurn(history, 'use @a')).toEqual({ text: 'use @a', pending: true });
  });

  it('after inputToMessage: the user message is there (behind our own activations on a rerun)', () => {
    const messages: HostMessage[] = [system, { role: 'user', content: 'use @a' }];
    expect(userTurn(messages, 'use @a')).toEqual({ text: 'use @a', pending: false });
    messages.push(...activationMessages('skills_mention_a', 'a', 'A'));
    expect(userTurn(messages, 'use @a')).toEqual({ text: 'use @a', pending: false });
  });

  it('without an input: the latest user message, nothing pending', () => {
    expect(userTurn([system, { role: 'user', content: 'hello' }], undefined)).toEqual({ text: 'hello', pending: false });
    expect(userTurn([system], '  ')).toEqual({ text: '', pending: false });
    expect(latestUserText([system])).toBeUndefined();
  });
});

describe('tool aliases (registerTools)', () => {
  it('the model-facing name comes from ctx.state.toolAliases, and activations under it are recognised', () => {
    const aliases = new Map([['use_skill', 'activate_skill']]);
    expect(modelToolName(aliases, 'use_skill')).toBe('activate_skill');
    expect(modelToolName(undefined, 'use_skill')).toBe('use_skill');
    expect(modelToolName(new Map([['use_skill', '']]), 'use_skill')).toBe('use_skill');
    const messages = activationMessages('skills_always_a', 'a', activation('a'), 'activate_skill');
    expect((messages[0] as unknown as { tool_calls: Array<{ name: string }> }).tool_calls[0]?.name).toBe('activate_skill');
    expect(activatedSkills(messages)).toEqual([]);
    expect(activatedSkills(messages, undefined, ['use_skill', 'activate_skill'])).toEqual(['a']);
  });
});

/**
 * SISU's `requires` as data, which of its tools an agent lacks (aliases
 * included), the one line an activation then carries, and each active skill's
 * list in the run view. The real host, with SISU's own skill packages and
 * registerTools: test/real-sisu/requires.test.ts.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lackedTools, lackedToolsLine, MAX_REQUIRED_TOOLS } from '../src/base/required-tools.js';
import { getSkills, skillsMiddleware } from '../src/index.js';
import { parseRequires } from '../src/internals.js';
import type { SkillsContext } from '../src/run/context.js';
import { callTool, compose, conversation, createContext, toolRegistry, type StackTool } from './helpers/stack.js';

const tool = (name: string): StackTool => ({ name, schema: {}, handler: async () => name });

function registryOf(...names: string[]) {
  const tools = toolRegistry();
  for (const name of names) tools.register(tool(name));
  return tools;
}

describe('parseRequires', () => {
  it("reads SISU's list form and a string of names separated by spaces or commas, each name once", () => {
    expect(parseRequires(['read_file', 'grep', 'bash'])).toEqual(['read_file', 'grep', 'bash']);
    expect(parseRequires('read_file, grep bash')).toEqual(['read_file', 'grep', 'bash']);
    expect(parseRequires([' bash ', 'bash', '', 7, null, 'grep'])).toEqual(['bash', 'grep']);
  });

  it('gives [] for anything else, and a bounded list for a hostile one', () => {
    expect(parseRequires(undefined)).toEqual([]);
    expect(parseRequires(42)).toEqual([]);
    expect(parseRequires({ bash: true })).toEqual([]);
    expect(parseRequires(Array.from({ length: 500 }, (_, i) => `t${i}`))).toHaveLength(MAX_REQUIRED_TOOLS);
  });
});

describe('lackedTools', () => {
  it('names the required tools no registered tool answers to, in the order required', () => {
    expect(lackedTools(['read_file', 'grep', 'bash'], registryOf('read_file', 'grep'), undefined)).toEqual(['bash']);
    expect(lackedTools(['bash', 'read_file'], registryOf(), undefined)).toEqual(['bash', 'read_file']);
    expect(lackedTools(['read_file', 'grep'], registryOf('read_file', 'grep', 'bash'), undefined)).toEqual([]);
  });

  it('counts a tool under the alias registerTools gave it, and not under the name the alias replaced', () => {
    const tools = registryOf('terminalRun', 'terminalReadFile', 'grep');
    const aliases = new Map([
      ['terminalRun', 'bash'],
      ['terminalReadFile', 'read_file'],
    ]);
    expect(lackedTools(['read_file', 'grep', 'bash'], tools, aliases)).toEqual([]);
    // The model sees terminalRun as `bash` only.
    expect(lackedTools(['terminalRun'], tools, aliases)).toEqual(['terminalRun']);
    // An alias of a tool that is not registered gives nothing.
    expect(lackedTools(['bash'], registryOf(), aliases)).toEqual(['bash']);
    // Something else stored under toolAliases is not a map of aliases.
    expect(lackedTools(['bash'], registryOf('bash'), { bash: 'shell' })).toEqual([]);
  });

  it('says it in one line', () => {
    const line = lackedToolsLine(['bash', 'grep']);
    expect(line).not.toContain('\n');
    expect(line).toMatch(/^This agent lacks tools this skill expects \(its requires\): bash, grep\. /);
  });
});

/** A model that records the tool results it is sent, and a middleware that calls it as execute would. */
function toolResultsModel() {
  const seen: string[] = [];
  const model = {
    generate: async (messages: Array<{ role: string; content: string }>) => {
      seen.push(...messages.filter((m) => m.role === 'tool').map((m) => m.content));
      return { message: { role: 'assistant', content: 'done' } };
    },
  };
  return { seen, model };
}

const callModel = async (c: { messages: unknown; model?: { generate(messages: never): unknown } }): Promise<void> => {
  await c.model?.generate(c.messages as never);
};

describe('the middleware: requires read, never blocking', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'mw-skills-requires-'));
    const skills: Record<string, string> = {
      reviewer: 'requires: [read_file, grep, bash]',
      reader: 'requires: read_file',
      plain: '',
    };
    for (const [name, extra] of Object.entries(skills)) {
      await mkdir(join(root, name), { recursive: true });
      await writeFile(join(root, name, 'SKILL.md'), `---\nname: ${name}\ndescription: The ${name} skill.\n${extra}\n---\nBODY-${name}\n`);
    }
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('use_skill activates a skill whose tools are missing and names them; one with all its tools, or none declared, says nothing', async () => {
    const ctx = createContext({ messages: conversation('review this') });
    ctx.tools.register(tool('read_file'));
    await compose([skillsMiddleware({ directories: [root] })])(ctx);
    const reviewer = await callTool(ctx, 'use_skill', { skill_name: 'reviewer' });
    expect(reviewer.split('\n').slice(0, 2)).toEqual(['<skill name="reviewer">', lackedToolsLine(['grep', 'bash'])]);
    expect(reviewer).toContain('BODY-reviewer');
    for (const name of ['reader', 'plain']) {
      const answer = await callTool(ctx, 'use_skill', { skill_name: name });
      expect(answer).toContain(`BODY-${name}`);
      expect(answer).not.toContain('lacks tools');
    }
    const state = getSkills(ctx as unknown as SkillsContext);
    expect(state?.activated).toEqual(['reviewer', 'reader', 'plain']);
    expect([...(state?.requires ?? [])]).toEqual([
      ['reviewer', ['read_file', 'grep', 'bash']],
      ['reader', ['read_file']],
    ]);
    expect(Object.isFrozen(state?.requires.get('reader'))).toBe(true);
  });

  it('an @ activation is told what is missing at the model call, when middleware after this one has registered its tools', async () => {
    const { seen, model } = toolResultsModel();
    const registerLater = async (c: { tools: ReturnType<typeof toolRegistry> }, next: () => Promise<void>) => {
      c.tools.register(tool('grep'));
      await next();
    };
    const ctx = Object.assign(createContext({ messages: conversation('@reviewer look') }), { model });
    ctx.tools.register(tool('read_file'));
    await compose([skillsMiddleware({ directories: [root] }), registerLater, callModel])(ctx as never);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.split('\n')[1]).toBe(lackedToolsLine(['bash']));
  });

  it('a skill put back in view after the buffer trimmed it is told again what is missing', async () => {
    const { seen, model } = toolResultsModel();
    const middleware = skillsMiddleware({ directories: [root] });
    const ctx = Object.assign(createContext({ messages: conversation('@reviewer look') }), { model });
    ctx.tools.register(tool('bash'));
    await compose([middleware, callModel])(ctx as never);
    // The next turn: a buffer kept only the system message and the new user message.
    ctx.messages = conversation('and the tests?');
    seen.length = 0;
    await compose([middleware, callModel])(ctx as never);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toContain('BODY-reviewer');
    expect(seen[0]!.split('\n')[1]).toBe(lackedToolsLine(['read_file', 'grep']));
  });
});

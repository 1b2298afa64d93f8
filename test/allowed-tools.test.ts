/**
 * `allowed-tools` as data: every form skills use (the spec's space-separated
 * string, commas, a YAML list, patterns with spaces inside parentheses)
 * parsed into `{ tool, pattern? }[]`, and each active skill's list in the run view.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ALLOWED_TOOLS } from '../src/base/allowed-tools.js';
import { getSkills, skillsMiddleware } from '../src/index.js';
import { parseAllowedTools } from '../src/internals.js';
import type { SkillsContext } from '../src/run/context.js';
import { callTool, compose, conversation, createContext } from './helpers/stack.js';

describe('parseAllowedTools', () => {
  it('reads the spec form: space-separated, patterns in parentheses', () => {
    expect(parseAllowedTools('Bash(git:*) Bash(jq:*) Read')).toEqual([
      { tool: 'Bash', pattern: 'git:*' },
      { tool: 'Bash', pattern: 'jq:*' },
      { tool: 'Read' },
    ]);
  });

  it('reads commas, spaces inside parentheses, nested parentheses and MCP names', () => {
    expect(parseAllowedTools('Task, WebFetch, Bash(npm run test:*), Bash(echo (a)), mcp__chrome-devtools__*')).toEqual([
      { tool: 'Task' },
      { tool: 'WebFetch' },
      { tool: 'Bash', pattern: 'npm run test:*' },
      { tool: 'Bash', pattern: 'echo (a)' },
      { tool: 'mcp__chrome-devtools__*' },
    ]);
  });

  it('reads the list form, each item parsed the same way', () => {
    expect(parseAllowedTools(['Read', 'Bash(git status)', 'Grep Glob'])).toEqual([
      { tool: 'Read' },
      { tool: 'Bash', pattern: 'git status' },
      { tool: 'Grep' },
      { tool: 'Glob' },
    ]);
  });

  it('keeps what it can of odd input: empty parentheses, an unclosed one, blanks; [] for anything but text', () => {
    expect(parseAllowedTools('Read() Bash(git:*  ')).toEqual([{ tool: 'Read' }, { tool: 'Bash', pattern: 'git:*' }]);
    expect(parseAllowedTools('  ,, ')).toEqual([]);
    expect(parseAllowedTools(undefined)).toEqual([]);
    expect(parseAllowedTools(42)).toEqual([]);
    expect(parseAllowedTools(['Read', 7, null])).toEqual([{ tool: 'Read' }]);
    expect(parseAllowedTools('Read '.repeat(1000))).toHaveLength(MAX_ALLOWED_TOOLS);
  });
});

describe('the run view: allowedTools of the active skills', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'mw-skills-allowed-'));
    const skills: Record<string, string> = {
      'git-helper': 'allowed-tools: Bash(git:*) Read',
      'list-form': 'allowed-tools:\n  - Read\n  - Write',
      'no-field': '',
    };
    for (const [name, extra] of Object.entries(skills)) {
      await mkdir(join(root, name), { recursive: true });
      await writeFile(join(root, name, 'SKILL.md'), `---\nname: ${name}\ndescription: The ${name} skill.\n${extra}\n---\nbody\n`);
    }
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('lists each active skill that declares the field, in activation order; metadata keeps the field as written', async () => {
    const middleware = skillsMiddleware({ directories: [root] });
    const ctx = createContext({ messages: conversation('@no-field @git-helper') });
    await compose([middleware])(ctx);
    const state = getSkills(ctx as unknown as SkillsContext);
    expect([...(state?.allowedTools ?? [])]).toEqual([['git-helper', [{ tool: 'Bash', pattern: 'git:*' }, { tool: 'Read' }]]]);
    await callTool(ctx, 'use_skill', { skill_name: 'list-form' });
    expect([...(state?.allowedTools.keys() ?? [])]).toEqual(['git-helper', 'list-form']);
    expect(state?.allowedTools.get('list-form')).toEqual([{ tool: 'Read' }, { tool: 'Write' }]);
    expect(Object.isFrozen(state?.allowedTools.get('list-form'))).toBe(true);
    expect(state?.get('git-helper')?.metadata['allowed-tools']).toBe('Bash(git:*) Read');
  });
});

/**
 * skillDirectories: each tool's documented folders, the precedence order,
 * and configuration mistakes that must fail loudly.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SKILL_TOOL_FOLDERS, SKILL_TOOLS, skillDirectories, type SkillTool } from '../src/config/ecosystem.js';
import { SkillsConfigError } from '../src/config/errors.js';

const cwd = resolve('/work/project');
const home = resolve('/home/ada');

function configError(run: () => unknown): SkillsConfigError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(SkillsConfigError);
    return error as SkillsConfigError;
  }
  throw new Error('expected a SkillsConfigError');
}

describe('skillDirectories: the folders of each tool', () => {
  const expected: Record<SkillTool, { project: string[]; user: string[] }> = {
    claude: { project: [join(cwd, '.claude/skills')], user: [join(home, '.claude/skills')] },
    agents: { project: [join(cwd, '.agents/skills')], user: [join(home, '.agents/skills')] },
    codex: {
      project: [join(cwd, '.agents/skills'), join(cwd, '.codex/skills')],
      user: [join(home, '.agents/skills'), join(home, '.codex/skills')],
    },
    github: { project: [join(cwd, '.github/skills')], user: [join(home, '.copilot/skills')] },
    opencode: { project: [join(cwd, '.opencode/skills')], user: [join(home, '.config/opencode/skills')] },
    cline: { project: [join(cwd, '.cline/skills'), join(cwd, '.clinerules/skills')], user: [join(home, '.cline/skills')] },
    gemini: { project: [join(cwd, '.gemini/skills')], user: [join(home, '.gemini/skills')] },
    cursor: { project: [join(cwd, '.cursor/skills')], user: [join(home, '.cursor/skills')] },
  };

  it('knows exactly these tools', () => {
    expect(SKILL_TOOLS).toEqual(Object.keys(expected));
  });

  it.each(Object.entries(expected))('%s: project, user, and both (project first)', (tool, folders) => {
    const tools = [tool as SkillTool];
    expect(skillDirectories({ tools, scope: 'project', cwd, home })).toEqual(folders.project);
    expect(skillDirectories({ tools, scope: 'user', cwd, home })).toEqual(folders.user);
    expect(skillDirectories({ tools, scope: 'both', cwd, home })).toEqual([...folders.project, ...folders.user]);
  });

  it('every tool entry cites the documentation it was checked against', () => {
    const source = readFileSync(new URL('../src/config/ecosystem.ts', import.meta.url), 'utf8').split('\n');
    for (const tool of SKILL_TOOLS) {
      const line = source.findIndex((text) => text.startsWith(`  ${tool}: {`));
      expect(line, `${tool} entry`).toBeGreaterThan(0);
      expect(source[line - 1], `the line above ${tool}`).toMatch(/^\s*\/\/ https:\/\//);
    }
  });
});

describe('skillDirectories: order', () => {
  it('all project folders, then all user folders, each in the order the tools were given', () => {
    expect(skillDirectories({ tools: ['github', 'claude'], scope: 'both', cwd, home })).toEqual([
      join(cwd, '.github/skills'),
      join(cwd, '.claude/skills'),
      join(home, '.copilot/skills'),
      join(home, '.claude/skills'),
    ]);
  });

  it('a folder two tools share appears once, where it first comes', () => {
    expect(skillDirectories({ tools: ['codex', 'agents', 'claude', 'codex'], scope: 'project', cwd, home })).toEqual([
      join(cwd, '.agents/skills'),
      join(cwd, '.codex/skills'),
      join(cwd, '.claude/skills'),
    ]);
  });

  it('the same call gives the same list', () => {
    const options = { tools: [...SKILL_TOOLS], scope: 'both', cwd, home } as const;
    expect(skillDirectories(options)).toEqual(skillDirectories(options));
  });
});

describe('skillDirectories: paths, not scans', () => {
  it('returns folders that do not exist: it reads nothing', () => {
    const nowhere = resolve('/no/such/project');
    expect(skillDirectories({ tools: ['claude'], scope: 'project', cwd: nowhere })).toEqual([join(nowhere, '.claude/skills')]);
  });

  it('home defaults to the home directory, and a relative cwd is resolved', () => {
    expect(skillDirectories({ tools: ['claude'], scope: 'both', cwd: 'app' })).toEqual([
      resolve('app', '.claude/skills'),
      join(homedir(), '.claude/skills'),
    ]);
  });

  it('the table is data callers can read (for docs and tooling)', () => {
    expect(SKILL_TOOL_FOLDERS.github).toEqual({ project: ['.github/skills'], user: ['.copilot/skills'] });
  });
});

describe('skillDirectories: configuration mistakes throw SkillsConfigError', () => {
  it('an unknown tool names every known one', () => {
    // @ts-expect-error 'vscode' is not a known tool
    const error = configError(() => skillDirectories({ tools: ['claude', 'vscode'], scope: 'project', cwd }));
    expect(error.code).toBe('SKILLS_CONFIG');
    expect(error.message).toContain("`tools[1]` is the unknown tool 'vscode'");
    expect(error.option).toBe('tools[1]');
    expect(error.message).toContain(`Known tools: ${SKILL_TOOLS.join(', ')}.`);
  });

  it.each([
    ['claud', 'claude'],
    ['Cursor', 'cursor'],
    ['copilot', 'github'],
    ['claude-code', 'claude'],
    ['gemini-cli', 'gemini'],
  ])('%s suggests %s', (tool, suggestion) => {
    const error = configError(() => skillDirectories({ tools: [tool as SkillTool], scope: 'project', cwd }));
    expect(error.message).toContain(`Did you mean '${suggestion}'?`);
  });

  it('no suggestion when nothing is close', () => {
    const error = configError(() => skillDirectories({ tools: ['windsurf' as SkillTool], scope: 'project', cwd }));
    expect(error.message).not.toContain('Did you mean');
  });

  it('a tool that is not a string', () => {
    const error = configError(() => skillDirectories({ tools: [42 as unknown as SkillTool], scope: 'project', cwd }));
    expect(error.message).toContain('`tools[0]` is the unknown tool 42');
  });

  it('tools must be a non-empty array', () => {
    expect(configError(() => skillDirectories({ tools: [], scope: 'project', cwd })).message).toContain(
      '`tools` must be a non-empty array',
    );
    const notArray = { tools: 'claude', scope: 'project', cwd } as unknown as Parameters<typeof skillDirectories>[0];
    expect(configError(() => skillDirectories(notArray)).message).toContain('`tools` must be a non-empty array');
  });

  it('scope must be project, user or both', () => {
    const options = { tools: ['claude'], scope: 'global', cwd } as unknown as Parameters<typeof skillDirectories>[0];
    expect(configError(() => skillDirectories(options)).message).toContain(
      "`scope` must be one of 'project', 'user', 'both', got the string \"global\"",
    );
    const missing = { tools: ['claude'], cwd } as unknown as Parameters<typeof skillDirectories>[0];
    expect(configError(() => skillDirectories(missing)).message).toContain('got undefined');
  });

  it('cwd is required and home, when given, must be a path', () => {
    const noCwd = { tools: ['claude'], scope: 'project' } as unknown as Parameters<typeof skillDirectories>[0];
    expect(configError(() => skillDirectories(noCwd)).message).toContain('`cwd` must be the project folder');
    expect(configError(() => skillDirectories({ tools: ['claude'], scope: 'user', cwd, home: '' })).message).toContain(
      '`home` must be a non-empty string',
    );
  });

  it('options are required', () => {
    const none = undefined as unknown as Parameters<typeof skillDirectories>[0];
    expect(configError(() => skillDirectories(none)).message).toContain('options are required');
  });
});

/**
 * Issue 5 and 6 behaviour through a middleware stack on plain objects: the
 * catalog budget and find_skills, @mentions, `always`, auto-activation,
 * disable-model-invocation, live reload, and an error boundary that no skill
 * failure reaches. Tools are called as a host calls them, from the ctx's registry.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeFileSystem } from '../src/base/fs.js';
import { catalogSection } from '../src/cli/catalog-section.js';
import { discoverSkills, getSkills, skillsMiddleware, type SkillsOptions } from '../src/index.js';
import { callTool, compose, createContext, toolMessages, type StackContext, type StackMessage } from './helpers/stack.js';

const fixtures = fileURLToPath(new URL('../fixtures/skills', import.meta.url));

let temp: string;
beforeAll(async () => {
  temp = await mkdtemp(join(tmpdir(), 'mw-skills-flow-'));
});
afterAll(async () => {
  await rm(temp, { recursive: true, force: true });
});

async function writeSkill(root: string, folder: string, frontmatter: string, body = 'Body.'): Promise<void> {
  await mkdir(join(root, folder), { recursive: true });
  await writeFile(join(root, folder, 'SKILL.md'), `---\n${frontmatter}\n---\n${body}\n`);
}

async function library(size: number): Promise<string> {
  const root = await mkdtemp(join(temp, 'lib-'));
  await Promise.all(
    Array.from({ length: size }, (_, i) => {
      const name = `skill-${String(i).padStart(3, '0')}`;
      return writeSkill(
        root,
        name,
        `name: ${name}\ndescription: Handles task number ${i} with care and plenty of explanation for the reader. Use when task ${i} comes up.`,
      );
    }),
  );
  await writeSkill(
    root,
    'pdf-forms',
    'name: pdf-forms\ndescription: Fills in PDF forms and extracts fields from PDF documents. Use when the user has a PDF form.',
    'PDF BODY',
  );
  return root;
}

function conversation(user: string): StackMessage[] {
  return [
    { role: 'system', content: 'Base.' },
    { role: 'user', content: user },
  ];
}

async function run(options: SkillsOptions, messages: StackMessage[]): Promise<StackContext> {
  const ctx = createContext({ messages });
  await skillsMiddleware(options)(ctx, async () => {});
  return ctx;
}

describe('catalog budget and find_skills', () => {
  it('keeps the catalog within the budget, records and logs what was cut, and registers find_skills', async () => {
    // 200 names do not fit in 1,500 characters even without descriptions: ranked mode.
    const root = await library(200);
    const ctx = await run({ directories: [root], catalogBudget: 1500 }, conversation('please fill in my PDF form'));
    const system = ctx.messages[0]?.content ?? '';
    const section = system.slice(system.indexOf('<available_skills>'));
    expect(section.length).toBeLessThanOrEqual(1500);
    const report = getSkills(ctx)?.catalog;
    expect(report?.mode).toBe('ranked');
    expect(report?.ranked[0]).toBe('pdf-forms');
    expect(report?.omitted).toBeGreaterThan(0);
    expect(section).toContain('find_skills');
    expect(ctx.tools.get('find_skills')).toBeDefined();
    const logged = ctx.log.entries.find((e) => e.args[0] === '[skills] catalog over budget');
    expect(logged).toMatchObject({ level: 'info', args: [expect.any(String), { mode: 'ranked', budget: 1500 }] });
    const found = await callTool(ctx, 'find_skills', { query: 'PDF form' });
    expect(found).toMatch(/^[\s\S]*- pdf-forms: Fills in PDF forms/);
  });

  it('renders the same catalog for the same input, request after request', async () => {
    const root = await library(60);
    const middleware = skillsMiddleware({ directories: [root], catalogBudget: 1500 });
    const texts: string[] = [];
    const levels: string[] = [];
    for (let i = 0; i < 3; i++) {
      const ctx = createContext({ messages: conversation('fill in a PDF form') });
      await middleware(ctx, async () => {});
      texts.push(ctx.messages[0]?.content ?? '');
      levels.push(...ctx.log.entries.filter((e) => e.args[0] === '[skills] catalog over budget').map((e) => e.level));
    }
    expect(new Set(texts).size).toBe(1);
    // Logged at info once for the index, then at debug on every later request.
    expect(levels).toEqual(['info', 'debug', 'debug']);
  });

  it('injects exactly the section `sisu-skills prompt` prints, in full and in ranked mode', async () => {
    const root = await library(200);
    for (const [directory, budget] of [
      [fixtures, 8000],
      [root, 1500],
    ] as const) {
      const query = 'fill in a PDF form';
      const ctx = await run({ directories: [directory], catalogBudget: budget }, [{ role: 'user', content: query }]);
      const { skills } = await discoverSkills({ directories: [directory] });
      expect(ctx.messages[0]?.content).toBe(catalogSection(skills, { budget, query }).text);
    }
  });

  it('within budget: every description, no find_skills unless forced', async () => {
    const small = await run({ directories: [fixtures] }, conversation('hi'));
    expect(getSkills(small)?.catalog?.mode).toBe('full');
    expect(small.tools.get('find_skills')).toBeUndefined();
    const forced = await run({ directories: [fixtures], findSkills: true }, conversation('hi'));
    expect(forced.tools.get('find_skills')).toBeDefined();
    const root = await library(60);
    const never = await run({ directories: [root], catalogBudget: 1500, findSkills: false }, conversation('hi'));
    expect(never.tools.get('find_skills')).toBeUndefined();
  });
});

describe('activation strategies', () => {
  it('@mention injects the skill as if use_skill had been called, right after the user message', async () => {
    const ctx = await run({ directories: [fixtures] }, conversation('@debug my test fails with a timeout'));
    expect(ctx.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    // The mention opens the message: the rest is the skill's arguments, passed as use_skill would get them.
    const args = 'my test fails with a timeout';
    expect(ctx.messages[2]).toMatchObject({ tool_calls: [{ name: 'use_skill', arguments: { skill_name: 'debug', arguments: args } }] });
    expect(toolMessages(ctx)[0]?.content).toMatch(/^<skill name="debug">/);
    // The debug fixture uses no placeholder: the arguments are appended, as Claude Code does.
    expect(toolMessages(ctx)[0]?.content).toContain(`ARGUMENTS: ${args}`);
    expect(getSkills(ctx)?.activated).toEqual(['debug']);
    expect(ctx.log.entries).toContainEqual({
      level: 'info',
      args: ['[skills] activated', { skill: 'debug', route: 'mention', arguments: args }],
    });
  });

  it('an unknown mention is logged with suggestions, not fatal', async () => {
    const ctx = await run({ directories: [fixtures] }, conversation('@debgu please'));
    expect(toolMessages(ctx)).toHaveLength(0);
    const warning = ctx.log.entries.find((e) => e.args[0] === '[skills] unknown mention');
    expect(warning?.args[1]).toMatchObject({ mention: 'debgu', suggestions: expect.arrayContaining(['debug']) });
  });

  it('always pins skills; an unknown name in always is warned about', async () => {
    const ctx = await run({ directories: [fixtures], always: ['explain', 'nope'] }, conversation('hello'));
    expect(toolMessages(ctx).map((m) => m.content.split('\n')[0])).toEqual(['<skill name="explain">']);
    expect(ctx.log.entries.some((e) => e.args[0] === '[skills] unknown skill in `always`')).toBe(true);
  });

  it('autoActivate pre-activates the best match above the threshold and logs its score', async () => {
    const ctx = await run(
      { directories: [fixtures], autoActivate: { threshold: 0.3, maxSkills: 1 } },
      conversation('Please review the diff of my pull request for security problems'),
    );
    expect(toolMessages(ctx).map((m) => m.content.split('\n')[0])).toEqual(['<skill name="code-review">']);
    const logged = ctx.log.entries.find((e) => e.args[0] === '[skills] activated');
    expect(logged?.args[1]).toMatchObject({ skill: 'code-review', route: 'auto', score: expect.any(Number) });
    const off = await run({ directories: [fixtures] }, conversation('Please review the diff of my pull request for security problems'));
    expect(toolMessages(off)).toHaveLength(0);
  });

  it('never injects a skill twice in one conversation, whatever the route', async () => {
    const middleware = skillsMiddleware({ directories: [fixtures], always: ['debug'] });
    const messages = conversation('it crashes, @debug @debug');
    const first = createContext({ messages });
    await middleware(first, async () => {});
    expect(toolMessages(first)).toHaveLength(1);
    // The next turn of the same conversation (messages kept), mentioning it again.
    const next = createContext({
      messages: [...first.messages, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'still broken, @debug' }],
    });
    await middleware(next, async () => {});
    expect(toolMessages(next)).toHaveLength(1);
    // And the model asking for it by tool gets the short note.
    expect(await callTool(next, 'use_skill', { skill_name: 'debug' })).toMatch(/already active/);
  });

  it('disable-model-invocation keeps a skill out of the catalog and use_skill, while @ and always still work', async () => {
    const root = await mkdtemp(join(temp, 'hidden-'));
    await writeSkill(root, 'visible', 'name: visible\ndescription: Shown to the model.');
    await writeSkill(root, 'secret-ops', 'name: secret-ops\ndescription: Only on request.\ndisable-model-invocation: true', 'OPS BODY');
    const ctx = await run({ directories: [root] }, conversation('hello'));
    expect(ctx.messages[0]?.content).toContain('- visible:');
    expect(ctx.messages[0]?.content).not.toContain('secret-ops');
    expect(await callTool(ctx, 'use_skill', { skill_name: 'secret-ops' })).toMatch(/not found/);
    const mentioned = await run({ directories: [root] }, conversation('@secret-ops now'));
    expect(toolMessages(mentioned)[0]?.content).toContain('OPS BODY');
    const pinned = await run({ directories: [root], always: ['secret-ops'] }, conversation('hello'));
    expect(toolMessages(pinned)[0]?.content).toContain('OPS BODY');
  });

  it('autoActivate never picks a hidden skill; several activations keep their order behind the user message', async () => {
    const root = await mkdtemp(join(temp, 'auto-hidden-'));
    await writeSkill(
      root,
      'invoice-export',
      'name: invoice-export\ndescription: Exports invoices to CSV files.\ndisable-model-invocation: true',
      'HIDDEN BODY',
    );
    await writeSkill(
      root,
      'invoice-reader',
      'name: invoice-reader\ndescription: Reads invoices and answers questions about them.',
      'READER BODY',
    );
    await writeSkill(root, 'notes', 'name: notes\ndescription: Takes notes.', 'NOTES BODY');
    const ctx = await run(
      { directories: [root], always: ['notes'], autoActivate: { threshold: 0, maxSkills: 5 } },
      conversation('@notes export my invoices to CSV files'),
    );
    const injected = toolMessages(ctx).map((m) => m.content.split('\n')[0]);
    // The mention first, then auto; `always` adds nothing new; the hidden skill is never auto-activated.
    expect(injected).toEqual(['<skill name="notes">', '<skill name="invoice-reader">']);
    expect(ctx.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'tool']);
  });

  it('with only hidden skills there is no catalog section, but mentions work', async () => {
    const root = await mkdtemp(join(temp, 'all-hidden-'));
    await writeSkill(root, 'quiet', 'name: quiet\ndescription: Hidden.\ndisable-model-invocation: "true"', 'QUIET BODY');
    const ctx = await run({ directories: [root] }, conversation('@quiet go'));
    expect(ctx.messages[0]?.content).toBe('Base.');
    expect(toolMessages(ctx)[0]?.content).toContain('QUIET BODY');
  });

  it('a mentioned skill whose files vanished is logged and skipped', async () => {
    const root = await mkdtemp(join(temp, 'vanish-'));
    await writeSkill(root, 'gone', 'name: gone\ndescription: Will vanish.');
    const middleware = skillsMiddleware({ directories: [root] });
    await middleware(createContext({ messages: conversation('warm up') }), async () => {});
    await rm(join(root, 'gone'), { recursive: true });
    const ctx = createContext({ messages: conversation('@gone now') });
    await middleware(ctx, async () => {});
    expect(toolMessages(ctx)).toHaveLength(0);
    expect(ctx.log.entries.find((e) => e.args[0] === '[skills] could not activate')?.args[1]).toMatchObject({
      skill: 'gone',
      route: 'mention',
    });
  });

  it('middleware after it (where the model runs) sees the injected instructions', async () => {
    let seen = '';
    const model = async (ctx: StackContext): Promise<void> => {
      seen = String(toolMessages(ctx)[0]?.content).split('\n')[0] ?? '';
    };
    await compose([skillsMiddleware({ directories: [fixtures] }), model])(
      createContext({ messages: conversation('@explain how does the cache work?') }),
    );
    expect(seen).toBe('<skill name="explain">');
  });
});

describe('live reload', () => {
  async function until(condition: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await condition())) {
      if (Date.now() > deadline) throw new Error('condition not met in time');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('sees added, edited and removed skills without waiting for the TTL, and close() stops watching', async () => {
    const root = await mkdtemp(join(temp, 'watch-'));
    await writeSkill(root, 'first', 'name: first\ndescription: Version one.');
    const middleware = skillsMiddleware({ directories: [root], watch: { debounceMs: 50 }, cacheTtl: Infinity });
    const catalogNow = async () => {
      const ctx = createContext({ messages: conversation('hi') });
      await middleware(ctx, async () => {});
      return ctx.messages[0]?.content ?? '';
    };
    try {
      expect(await catalogNow()).toContain('- first: Version one.');
      await writeSkill(root, 'second', 'name: second\ndescription: Added later.');
      await until(async () => (await catalogNow()).includes('- second: Added later.'));
      await writeSkill(root, 'first', 'name: first\ndescription: Version two.');
      await until(async () => (await catalogNow()).includes('- first: Version two.'));
      await rm(join(root, 'second'), { recursive: true });
      await until(async () => !(await catalogNow()).includes('- second:'));
    } finally {
      await middleware.close();
    }
    await writeSkill(root, 'third', 'name: third\ndescription: After close.');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await catalogNow()).not.toContain('third');
    await middleware.close();
  });

  it('a deleted directory is reported on the next request, not thrown', async () => {
    const root = await mkdtemp(join(temp, 'watch-gone-'));
    await writeSkill(root, 'only', 'name: only\ndescription: Alone.');
    const controller = new AbortController();
    const middleware = skillsMiddleware({ directories: [root], watch: { debounceMs: 20 }, signal: controller.signal, cacheTtl: Infinity });
    try {
      await middleware(createContext({ messages: conversation('hi') }), async () => {});
      await rm(root, { recursive: true });
      let warnings: string[] = [];
      await until(async () => {
        const ctx = createContext({ messages: conversation('hi') });
        await middleware(ctx, async () => {});
        warnings = getSkills(ctx)?.warnings.map((w) => w.code) ?? [];
        return getSkills(ctx)?.skills.length === 0;
      });
      expect(warnings).toContain('DIRECTORY_NOT_FOUND');
    } finally {
      controller.abort();
    }
  });
});

describe('errors stay inside', () => {
  it('an error boundary of our own sees nothing from broken skills, directories or tools', async () => {
    const root = await mkdtemp(join(temp, 'broken-'));
    await writeSkill(root, 'bad-yaml', 'name: bad-yaml\ndescription: [unclosed');
    await writeSkill(root, 'tags-string', 'name: tags-string\ndescription: x\ntags: one');
    await writeSkill(root, 'fine', 'name: fine\ndescription: Works.');
    const caught: unknown[] = [];
    const boundary = async (_ctx: StackContext, next: () => Promise<void>): Promise<void> => {
      try {
        await next();
      } catch (error) {
        caught.push(error);
      }
    };
    // Stands where the tool loop runs: the calls a confused model makes, straight to the registered tools.
    const answers: string[] = [];
    const confusedModel = async (ctx: StackContext): Promise<void> => {
      answers.push(await callTool(ctx, 'use_skill', { skill_name: 'bad-yaml' }));
      answers.push(await callTool(ctx, 'use_skill', {}));
      answers.push(await callTool(ctx, 'read_skill_resource', { skill_name: 'fine', path: '/etc/passwd' }));
      answers.push(await callTool(ctx, 'find_skills', { query: 42 }));
    };
    const ctx = createContext({ messages: conversation('@missing-skill do it') });
    const middleware = skillsMiddleware({ directories: [root, join(root, 'does-not-exist')], findSkills: true });
    await compose([boundary, middleware, confusedModel])(ctx);
    expect(caught).toEqual([]);
    expect(answers).toHaveLength(4);
    expect(answers[1]).toMatch(/needs a `skill_name` string/);
    expect(answers[2]).toMatch(/^Cannot read "\/etc\/passwd" from skill "fine": it is an absolute path/);
    expect(answers[3]).toMatch(/needs a `query`/);
    // tags-string cannot load; the unclosed flow is read as plain text, with a warning.
    expect(getSkills(ctx)?.errors.map((e) => e.code)).toEqual(['METADATA_INVALID']);
    expect(getSkills(ctx)?.warnings.map((w) => w.code)).toContain('YAML_RECOVERED');
  });

  it('configuration errors are thrown at construction only, as SkillsConfigError', () => {
    expect(() => skillsMiddleware({ directories: ['x'], autoActivate: { threshold: 2 } } as SkillsOptions)).toThrow(/autoActivate/);
    expect(() =>
      skillsMiddleware({ directories: ['x'], watch: true, fs: { ...nodeFileSystem, watch: undefined, watchFolder: undefined } }),
    ).toThrow(/watch\(\)/);
  });
});

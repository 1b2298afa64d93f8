/**
 * The middleware on a plain ctx: what it puts in the conversation, what it
 * registers, and what the registered tools answer when called as a host
 * calls them (arguments plus `{ signal, log }`, never the request ctx).
 * The real SISU tool loop and adapters are tested in test/real-sisu.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeFileSystem, type SkillsFileSystem } from '../src/base/fs.js';
import { getSkills, SkillsConfigError, skillsMiddleware, type SkillsOptions } from '../src/index.js';
import { callTool, compose, createContext, type StackContext, type StackMessage } from './helpers/stack.js';

const fixtures = fileURLToPath(new URL('../fixtures/skills', import.meta.url));
const FIXTURE_NAMES = ['code-review', 'debug', 'deploy-staging', 'explain', 'test-gen'];

let temp: string;
beforeAll(async () => {
  temp = await mkdtemp(join(tmpdir(), 'mw-skills-middleware-'));
});
afterAll(async () => {
  await rm(temp, { recursive: true, force: true });
});

async function writeSkill(root: string, folder: string, frontmatter: string, body = 'Body.'): Promise<string> {
  const dir = join(root, folder);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'SKILL.md'), `---\n${frontmatter}\n---\n${body}\n`);
  return dir;
}

function countingFs(): SkillsFileSystem & { readdirCalls: number } {
  const fs = {
    ...nodeFileSystem,
    readdirCalls: 0,
    readdir(path: string, options: { withFileTypes: true }) {
      fs.readdirCalls++;
      return nodeFileSystem.readdir(path, options);
    },
  };
  return fs;
}

function ctxWith(
  messages: StackMessage[] = [
    { role: 'system', content: 'You are a careful coding assistant.' },
    { role: 'user', content: 'Review my change please.' },
  ],
): StackContext {
  return createContext({ messages });
}

async function run(options: SkillsOptions, ctx = ctxWith()): Promise<StackContext> {
  await compose([skillsMiddleware(options)])(ctx);
  return ctx;
}

describe('skillsMiddleware', () => {
  it('throws at construction, saying how to fix it, when no directory is configured', () => {
    expect(() => skillsMiddleware({} as SkillsOptions)).toThrow(SkillsConfigError);
    expect(() => skillsMiddleware({} as SkillsOptions)).toThrow(
      /pass the folders that hold your skills \(`directories`\) or the npm packages that ship them \(`packages`\)/,
    );
  });

  it('appends the catalog to the first system message and registers use_skill', async () => {
    const ctx = await run({ directories: [fixtures] });
    const system = ctx.messages[0]?.content ?? '';
    expect(system.startsWith('You are a careful coding assistant.\n\n<available_skills>')).toBe(true);
    for (const name of FIXTURE_NAMES) expect(system).toMatch(new RegExp(`^- ${name}: \\S`, 'm'));
    // Folded descriptions are one line with their text, never the literal '>'.
    expect(system).toContain('- code-review: Reviews a code change for correctness, security, readability and test coverage,');
    expect(system).not.toMatch(/^- [a-z-]+: [>|]/m);
    expect(ctx.tools.get('use_skill')).toBeDefined();
    expect(ctx.messages).toHaveLength(2);
  });

  it('publishes the index as ctx.skills and ctx.state.skills', async () => {
    const ctx = await run({ directories: [fixtures] });
    const state = getSkills(ctx);
    expect(state?.skills.map((s) => s.metadata.name).sort()).toEqual(FIXTURE_NAMES);
    expect((ctx as StackContext & { skills?: unknown }).skills).toBe(state);
    expect(ctx.state.skills).toBe(state);
    expect(state?.get('debug')?.directory).toBe(join(fixtures, 'debug'));
    expect(state?.scannedDirectories).toEqual([fixtures]);
  });

  it('adds a system message when the conversation has none', async () => {
    const ctx = await run({ directories: [fixtures] }, ctxWith([{ role: 'user', content: 'hi' }]));
    expect(ctx.messages[0]?.role).toBe('system');
    expect(ctx.messages[0]?.content).toMatch(/^<available_skills>/);
    expect(ctx.messages[1]).toEqual({ role: 'user', content: 'hi' });
  });

  it('with no skills adds no section and no tool', async () => {
    const empty = await mkdtemp(join(temp, 'empty-'));
    const ctx = await run({ directories: [empty] });
    expect(ctx.messages[0]?.content).toBe('You are a careful coding assistant.');
    expect(ctx.tools.get('use_skill')).toBeUndefined();
    expect(getSkills(ctx)?.skills).toEqual([]);
  });

  it('running again on the same ctx neither duplicates the section nor re-registers the tool', async () => {
    const middleware = skillsMiddleware({ directories: [fixtures] });
    const ctx = ctxWith();
    await middleware(ctx, async () => {});
    await middleware(ctx, async () => {});
    expect(ctx.messages[0]?.content.split('<available_skills>')).toHaveLength(2);
    expect(ctx.tools.timesRegistered('use_skill')).toBe(1);
  });

  it('leaves a use_skill tool registered by someone else in place, with a warning', async () => {
    const ctx = ctxWith();
    const theirs = { name: 'use_skill', schema: {}, handler: async () => 'theirs' };
    ctx.tools.register(theirs);
    await run({ directories: [fixtures] }, ctx);
    expect(ctx.tools.get('use_skill')).toBe(theirs);
    expect(ctx.log.entries.some((e) => e.level === 'warn' && String(e.args[0]).includes('already registered'))).toBe(true);
  });

  it('scans once for concurrent first requests and reuses the index afterwards', async () => {
    const fs = countingFs();
    const middleware = skillsMiddleware({ directories: [fixtures], fs });
    await Promise.all([1, 2, 3, 4].map(() => middleware(ctxWith(), async () => {})));
    const afterFirst = fs.readdirCalls;
    expect(afterFirst).toBeGreaterThan(0);
    for (let i = 0; i < 5; i++) await middleware(ctxWith(), async () => {});
    expect(fs.readdirCalls).toBe(afterFirst);
  });

  it('rescans when the TTL has passed (cacheTtl: 0 rescans every request)', async () => {
    const fs = countingFs();
    const middleware = skillsMiddleware({ directories: [fixtures], fs, cacheTtl: 0 });
    await middleware(ctxWith(), async () => {});
    const once = fs.readdirCalls;
    await middleware(ctxWith(), async () => {});
    expect(fs.readdirCalls).toBe(once * 2);
  });

  it('logs discovery once, with counts, and each skipped skill with its diagnostic', async () => {
    const root = await mkdtemp(join(temp, 'mixed-'));
    await writeSkill(root, 'good-one', 'name: good-one\ndescription: Works.');
    // No description: a skill that cannot load, whatever the YAML reader recovers.
    await writeSkill(root, 'broken', 'name: broken');
    const middleware = skillsMiddleware({ directories: [root] });
    const first = ctxWith();
    await middleware(first, async () => {});
    const discovered = first.log.entries.find((e) => e.args[0] === '[skills] discovered');
    expect(discovered?.args[1]).toMatchObject({ skills: 1, errors: 1, directories: [root] });
    const skipped = first.log.entries.find((e) => e.args[0] === '[skills] skipped');
    expect(skipped?.args[1]).toMatchObject({ severity: 'error', file: join(root, 'broken', 'SKILL.md') });
    expect(first.messages[0]?.content).toContain('- good-one: Works.');
    const second = ctxWith();
    await middleware(second, async () => {});
    expect(second.log.entries.find((e) => e.args[0] === '[skills] discovered')).toBeUndefined();
  });

  it('catalog and tool agree on the first of two skills with the same name', async () => {
    const first = await mkdtemp(join(temp, 'first-'));
    const second = await mkdtemp(join(temp, 'second-'));
    await writeSkill(first, 'shared', 'name: shared\ndescription: From the first directory.', 'FIRST BODY');
    await writeSkill(second, 'shared', 'name: shared\ndescription: From the second directory.', 'SECOND BODY');
    const ctx = await run({ directories: [first, second] });
    const system = ctx.messages[0]?.content ?? '';
    expect(system.match(/^- shared:/gm)).toHaveLength(1);
    expect(system).toContain('- shared: From the first directory.');
    const result = await callTool(ctx, 'use_skill', { skill_name: 'shared' });
    expect(result).toContain('FIRST BODY');
    expect(getSkills(ctx)?.warnings.map((w) => w.code)).toContain('SKILL_DUPLICATE');
  });

  it('end to end: a name read from the catalog activates through the registered use_skill', async () => {
    const ctx = await run(
      { directories: [fixtures] },
      ctxWith([
        { role: 'system', content: 'Base.' },
        { role: 'user', content: 'Review src/auth.ts' },
      ]),
    );
    const name = /^- (code-review):/m.exec(ctx.messages[0]?.content ?? '')?.[1];
    expect(name).toBe('code-review');
    const result = await callTool(ctx, 'use_skill', { skill_name: name });
    expect(result).toContain('<skill name="code-review">');
    expect(result).toContain('# Code Review');
    expect(result).toContain('references/checklist.md (reference,');
    expect(result).not.toContain('description: >');
    expect(getSkills(ctx)?.activated).toEqual(['code-review']);
    expect(ctx.log.entries).toContainEqual({ level: 'info', args: ['[skills] activated', { skill: 'code-review', route: 'model' }] });
  });

  it('a second activation gets a short note only while the first answer is in ctx.messages as it stands', async () => {
    const ctx = await run({ directories: [fixtures] }, ctxWith([{ role: 'user', content: 'it crashes' }]));
    const answer = await callTool(ctx, 'use_skill', { skill_name: 'debug' });
    expect(answer).toContain('<skill name="debug">');
    ctx.messages.push({ role: 'tool', tool_call_id: 'c1', content: answer } as never);
    expect(await callTool(ctx, 'use_skill', { skill_name: 'debug' })).toMatch(/already active/);
    // A buffer replaces the array and drops the answer: the tool reads the new array and answers in full again.
    ctx.messages = [{ role: 'user', content: 'still broken' }];
    expect(await callTool(ctx, 'use_skill', { skill_name: 'debug' })).toContain('<skill name="debug">');
    expect(getSkills(ctx)?.activated).toEqual(['debug']);
  });

  it('each request gets tools bound to its own run: activations never leak between concurrent requests', async () => {
    const middleware = skillsMiddleware({ directories: [fixtures] });
    const ctxs = [ctxWith(), ctxWith(), ctxWith()];
    await Promise.all(ctxs.map((ctx) => middleware(ctx, async () => {})));
    const answers = await Promise.all(ctxs.map((ctx) => callTool(ctx, 'use_skill', { skill_name: 'debug' })));
    for (const answer of answers) expect(answer).toContain('<skill name="debug">');
    for (const ctx of ctxs) expect(getSkills(ctx)?.activated).toEqual(['debug']);
  });

  it('a broken filesystem is logged and the agent continues without skills', async () => {
    const fs: SkillsFileSystem = {
      ...nodeFileSystem,
      readdir: async () => {
        throw new TypeError('fs adapter bug');
      },
      readFile: async () => {
        throw new TypeError('fs adapter bug');
      },
    };
    let nextCalled = false;
    const ctx = ctxWith();
    await skillsMiddleware({ directories: [fixtures], fs })(ctx, async () => {
      nextCalled = true;
    });
    expect(nextCalled).toBe(true);
    expect(ctx.tools.get('use_skill')).toBeUndefined();
  });

  it('an aborted request stops waiting for discovery', async () => {
    const controller = new AbortController();
    controller.abort(new Error('client went away'));
    const ctx = createContext({ signal: controller.signal, messages: [{ role: 'user', content: 'x' }] });
    await expect(skillsMiddleware({ directories: [fixtures] })(ctx, async () => {})).rejects.toThrow('client went away');
  });

  it('holds no instructions before activation and reads them from disk on first use', async () => {
    const root = await mkdtemp(join(temp, 'lazy-'));
    const dir = await writeSkill(root, 'notes', 'name: notes\ndescription: Takes notes.', 'ORIGINAL BODY');
    await writeFile(join(dir, 'template.md'), 'x');
    const ctx = await run({ directories: [root] });
    expect(getSkills(ctx)?.get('notes')).not.toHaveProperty('instructions');
    expect(getSkills(ctx)?.get('notes')).not.toHaveProperty('resources');
    // Edited after discovery: activation reads the file as it is now.
    await writeFile(join(dir, 'SKILL.md'), '---\nname: notes\ndescription: Takes notes.\n---\nEDITED BODY\n');
    const result = await callTool(ctx, 'use_skill', { skill_name: 'notes' });
    expect(result).toContain('EDITED BODY');
    expect(result).toContain('- template.md (');
    expect((await getSkills(ctx)?.load('notes'))?.instructions).toContain('EDITED BODY');
  });

  it('a skill whose files vanished after discovery gets a message, and loads again once restored', async () => {
    const root = await mkdtemp(join(temp, 'vanish-'));
    await writeSkill(root, 'ghost', 'name: ghost\ndescription: Disappears.', 'BOO');
    const ctx = await run({ directories: [root] });
    await rm(join(root, 'ghost'), { recursive: true });
    const missing = await callTool(ctx, 'use_skill', { skill_name: 'ghost' });
    expect(missing).toMatch(/^Could not activate the skill: .*ghost\/SKILL\.md cannot be read any more \(it does not exist\)/);
    await writeSkill(root, 'ghost', 'name: ghost\ndescription: Disappears.', 'BACK AGAIN');
    expect(await callTool(ctx, 'use_skill', { skill_name: 'ghost' })).toContain('BACK AGAIN');
  });

  it('preload: true reads instructions and resources at discovery', async () => {
    const ctx = await run({ directories: [fixtures], preload: true });
    const entry = getSkills(ctx)?.get('debug') as { instructions?: string; resources?: unknown[] } | undefined;
    expect(entry?.instructions).toContain('#');
    expect(entry?.resources?.length).toBeGreaterThan(0);
  });

  it('logs resource warnings found at activation once per index, not once per request', async () => {
    const root = await mkdtemp(join(temp, 'big-'));
    const dir = await writeSkill(root, 'heavy', 'name: heavy\ndescription: Has a big file.');
    await writeFile(join(dir, 'big.bin'), Buffer.alloc(2048));
    const middleware = skillsMiddleware({ directories: [root], maxFileSize: 1024 });
    const codes = async (): Promise<string[]> => {
      const ctx = ctxWith();
      await middleware(ctx, async () => {});
      expect(await callTool(ctx, 'use_skill', { skill_name: 'heavy' })).toContain('- big.bin (other, 2.0 KB, too large to read)');
      return ctx.log.entries
        .filter((e) => e.level === 'warn' && e.args[0] === '[skills] warning')
        .map((w) => (w.args[1] as { code: string }).code);
    };
    expect(await codes()).toEqual(['RESOURCE_TOO_LARGE']);
    expect(await codes()).toEqual([]);
  });

  it('registers read_skill_resource beside use_skill, and a listed file can be read after activation', async () => {
    const ctx = await run({ directories: [fixtures] }, ctxWith([{ role: 'user', content: 'review' }]));
    const activation = await callTool(ctx, 'use_skill', { skill_name: 'code-review' });
    const read = await callTool(ctx, 'read_skill_resource', { skill_name: 'code-review', path: 'references/checklist.md' });
    const refused = await callTool(ctx, 'read_skill_resource', { skill_name: 'code-review', path: '../debug/SKILL.md' });
    expect(activation).toContain('open one with read_skill_resource');
    expect(read).toContain(
      await readFile(join(fixtures, 'code-review/references/checklist.md'), 'utf8').then((t) => t.split('\n')[0] ?? ''),
    );
    expect(refused).not.toContain('name: debug');
    expect(refused).toMatch(/\.\./);
  });

  it('resourceTool: false registers use_skill only, and maxListedResources caps the listing', async () => {
    const root = await mkdtemp(join(temp, 'many-'));
    const dir = await writeSkill(root, 'many', 'name: many\ndescription: Many files.');
    await mkdir(join(dir, 'references'));
    for (let i = 0; i < 5; i++) await writeFile(join(dir, 'references', `r${i}.md`), 'x');
    const ctx = await run({ directories: [root], resourceTool: false, maxListedResources: 2 });
    expect(ctx.tools.get('read_skill_resource')).toBeUndefined();
    const result = await callTool(ctx, 'use_skill', { skill_name: 'many' });
    expect(result).toContain('- references/r0.md');
    expect(result).not.toContain('- references/r2.md');
    expect(result).toContain('and 3 more files not listed here (references/ 3)');
    expect(result).not.toContain('read_skill_resource');
  });
});

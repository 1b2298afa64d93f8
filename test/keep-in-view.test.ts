/**
 * The kept-in-view step on plain objects: what it leaves alone, how a cut
 * names the limit that cut it, and a skill that can no longer be read. The
 * whole behaviour in the real SISU is in test/real-sisu/keep-in-view.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { keepInView, loadActive } from '../src/runtime/keep-in-view.js';
import { PluginRoots } from '../src/run/plugin-root.js';
import { nodeFileSystem } from '../src/base/fs.js';
import { SkillsRun } from '../src/run/run.js';
import { createSkillIndex, type SkillIndex } from '../src/index/skill-index.js';
import type { Skill } from '../src/base/model.js';
import { createContext } from './helpers/stack.js';

const skill = (name: string, lines: number): Skill => ({
  metadata: { name, description: name },
  instructions: Array.from({ length: lines }, (_, i) => `${name} line ${i + 1} ${'x'.repeat(90)}`).join('\n'),
  instructionsLine: 5,
  path: `/skills/${name}/SKILL.md`,
  directory: `/skills/${name}`,
  resources: [],
});

const text = { max: 10, readTool: 'read_skill_resource' };

describe('keepInView', () => {
  it('puts back only what is out of view, after the latest user message, and names the limit that cut it', async () => {
    const index = createSkillIndex({ skills: [skill('a', 50), skill('b', 50), skill('c', 5)] });
    const run = new SkillsRun({}, index);
    for (const name of ['a', 'b', 'c']) run.activate(name);
    const ctx = createContext({ messages: [{ role: 'user', content: 'go on' }] });
    // c is in view already.
    ctx.messages.push({ role: 'tool', content: '<skill name="c">\n...</skill>', tool_call_id: 'x' });
    const loaded = await loadActive(ctx, run, index, new PluginRoots(nodeFileSystem));
    const result = keepInView(ctx, run, loaded, { budget: { maxChars: 7000, maxSkillChars: 4000 }, text, toolName: 'use_skill' });
    expect(result.kept.map((k) => [k.skill, k.cut])).toEqual([
      ['b', true],
      ['a', true],
    ]);
    const tools = ctx.messages.filter((m) => m.role === 'tool').map((m) => m.content);
    // Right after the user's message, most recent first, before what was there.
    expect(tools.map((t) => t.slice(0, 16))).toEqual(['<skill name="b">', '<skill name="a">', '<skill name="c">']);
    expect(tools[0]).toContain('keepInView.maxSkillChars).');
    expect(tools[1]).toContain('keepInView.maxChars).');
    expect(result.kept.reduce((sum, k) => sum + k.chars, 0)).toBeLessThanOrEqual(7000);
    expect(ctx.messages[1]).toMatchObject({ role: 'assistant', tool_calls: [{ id: 'skills_kept-in-view_b', name: 'use_skill' }] });
    // Everything is in view now: a second pass adds nothing and logs nothing more.
    const logged = ctx.log.entries.length;
    expect(keepInView(ctx, run, loaded, { budget: { maxChars: 7000, maxSkillChars: 4000 }, text, toolName: 'use_skill' }).kept).toEqual([]);
    expect(ctx.log.entries.length).toBe(logged);
  });

  it('a skill that can no longer be read is logged and skipped, the others still load', async () => {
    const index = createSkillIndex({ skills: [skill('a', 2), skill('b', 2)] });
    const broken: SkillIndex = { ...index, load: async (name) => (name === 'a' ? Promise.reject(new Error('gone')) : index.load(name)) };
    const run = new SkillsRun({}, broken);
    run.activate('a');
    run.activate('b');
    const ctx = createContext({ messages: [{ role: 'user', content: 'hi' }] });
    const loaded = await loadActive(ctx, run, broken, new PluginRoots(nodeFileSystem));
    expect([...loaded.keys()]).toEqual(['b']);
    expect(ctx.log.entries.find((e) => e.args[0] === '[skills] could not keep in view')?.args[1]).toMatchObject({
      skill: 'a',
      route: 'kept-in-view',
      error: 'gone',
    });
  });
});

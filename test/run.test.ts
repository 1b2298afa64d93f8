import { describe, expect, it } from 'vitest';
import { isSkillsState, runOf, SkillsRun } from '../src/run/run.js';
import { createSkillIndex } from '../src/index/skill-index.js';
import type { Skill } from '../src/base/model.js';

const skill = (name: string): Skill => ({
  metadata: { name, description: name },
  instructions: '',
  path: '',
  directory: '',
  resources: [],
});

describe('SkillsRun', () => {
  it('its view shows the index it sees now and what it activated', () => {
    const owner = {};
    const index = createSkillIndex({ skills: [skill('a')], scannedDirectories: ['/x'] }, 7);
    const run = new SkillsRun(owner, index);
    const view = run.view;
    expect(view.skills.map((s) => s.metadata.name)).toEqual(['a']);
    expect(view.get('a')?.metadata.name).toBe('a');
    expect(view.loadedAt).toBe(7);
    expect(view.scannedDirectories).toEqual(['/x']);
    expect(view.errors).toEqual([]);
    expect(view.warnings).toEqual([]);
    expect(view.catalog).toBeUndefined();
    expect(run.activate('a')).toBe(true);
    expect(run.activate('a')).toBe(false);
    expect(view.activated).toEqual(['a']);
    // A rerun after a rebuild moves the same run (and its view) to the new index.
    run.index = createSkillIndex({ skills: [skill('a'), skill('b')] });
    expect(view.skills.map((s) => s.metadata.name)).toEqual(['a', 'b']);
    expect(view.activated).toEqual(['a']);
    expect(Object.isFrozen(view)).toBe(true);
  });

  it('loads through the index it sees', async () => {
    const run = new SkillsRun({}, createSkillIndex({ skills: [skill('a')] }));
    expect((await run.view.loadDetailed('a'))?.first).toBe(true);
    expect((await run.view.load('a'))?.metadata.name).toBe('a');
    expect((await run.view.loadDetailed('a'))?.first).toBe(false);
  });

  it('a view is recognised as ours; copies and look-alikes are not', () => {
    const run = new SkillsRun({}, createSkillIndex({ skills: [] }));
    expect(isSkillsState(run.view)).toBe(true);
    expect(runOf(run.view)).toBe(run);
    expect(isSkillsState({ ...run.view })).toBe(false);
    expect(runOf({ ...run.view })).toBeUndefined();
    for (const value of [undefined, null, 1, 'x', {}, { activated: [] }]) {
      expect(isSkillsState(value)).toBe(false);
      expect(runOf(value)).toBeUndefined();
    }
  });

  it('recognises a view made by another copy of the package (the other build) without instanceof', () => {
    const run = new SkillsRun({}, createSkillIndex({ skills: [] }));
    const foreignRun = { view: undefined as unknown };
    const foreignView = Object.defineProperty({}, Symbol.for('@sisu-ai/mw-skills/run'), { value: foreignRun });
    foreignRun.view = foreignView;
    expect(isSkillsState(foreignView)).toBe(true);
    // Not ours to continue: runOf only hands back this copy's runs.
    expect(runOf(foreignView)).toBeUndefined();
    expect(runOf(run.view)).toBe(run);
  });
});

describe('SkillsRun: what is active, and what is in view', () => {
  it('activate moves a skill to the most recent place; end drops it and keeps it from being recalled; a new activation undoes the end', () => {
    // The view lists skills of the run's index only (with `visible`, the request's part), so c is in it.
    const run = new SkillsRun({}, createSkillIndex({ skills: [skill('a'), skill('b'), skill('c')] }));
    expect(run.activate('a')).toBe(true);
    expect(run.activate('b', 'eu-west')).toBe(true);
    expect(run.arguments.get('b')).toBe('eu-west');
    expect(run.activate('a')).toBe(false);
    expect(run.view.activated).toEqual(['b', 'a']);
    expect(run.view.end('b')).toBe(true);
    expect(run.view.end('b')).toBe(false);
    expect(run.arguments.has('b')).toBe(false);
    run.recall('b');
    expect(run.view.activated).toEqual(['a']);
    run.recall('c');
    expect(run.view.activated).toEqual(['a', 'c']);
    expect(run.activate('b')).toBe(true);
    expect(run.view.activated).toEqual(['a', 'c', 'b']);
  });

  it("recall takes a recalled skill's arguments; a skill the run holds keeps its own place and arguments", () => {
    const run = new SkillsRun({}, createSkillIndex({ skills: [skill('a'), skill('b')] }));
    run.activate('a', 'mine');
    run.recall('b', 'eu-west');
    run.recall('a', 'from-the-messages');
    expect(run.view.activated).toEqual(['a', 'b']);
    expect(run.arguments.get('a')).toBe('mine');
    expect(run.arguments.get('b')).toBe('eu-west');
  });

  it('inView reads the messages of the ctx it follows as they are when asked, whichever array holds them', () => {
    const run = new SkillsRun({}, createSkillIndex({ skills: [skill('a')] }));
    expect(run.view.inView('a')).toBe(false);
    const ctx = { messages: [{ role: 'tool', content: JSON.stringify('<skill name="a">\nSkill directory: /a\n</skill>') }] };
    run.follow(ctx);
    expect(run.view.inView('a')).toBe(true);
    // conversationBuffer replaces the array: the run reads the new one.
    ctx.messages = [{ role: 'user', content: '<skill name="a"> pasted by the user is not an activation' }];
    expect(run.view.inView('a')).toBe(false);
  });
});

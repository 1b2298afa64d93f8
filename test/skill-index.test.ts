import { describe, expect, it } from 'vitest';
import { activationsOf, beginRun, createSkillIndex, isSkillsState, runIndexOf } from '../src/skill-index.js';
import type { Skill } from '../src/types.js';

const skill = (name: string): Skill => ({ metadata: { name, description: name }, instructions: '', path: '', directory: '', resources: [] });

describe('skill index', () => {
  it('looks skills up by name, first one wins, and is frozen', () => {
    const a1 = skill('a');
    const index = createSkillIndex({ skills: [a1, skill('b'), skill('a')], warnings: [], scannedDirectories: ['/x'] }, 42);
    expect(index.skills.map((s) => s.metadata.name)).toEqual(['a', 'b']);
    expect(index.get('a')).toBe(a1);
    expect(index.get('zzz')).toBeUndefined();
    expect(index.loadedAt).toBe(42);
    expect(index.scannedDirectories).toEqual(['/x']);
    expect(index.errors).toEqual([]);
    expect(Object.isFrozen(index)).toBe(true);
    expect(Object.isFrozen(index.skills)).toBe(true);
  });

  it('a run view exposes the index and what the run activated', () => {
    const index = createSkillIndex({ skills: [skill('a')] });
    const state: Record<string, unknown> = {};
    const view = beginRun(state, index);
    expect(isSkillsState(view)).toBe(true);
    expect(isSkillsState({ ...view })).toBe(false);
    expect(runIndexOf(state)).toBe(index);
    activationsOf(state, index).push('a');
    expect(view.activated).toEqual(['a']);
    // Rerunning on the same state keeps activations, even with a rebuilt index.
    expect(beginRun(state, index).activated).toEqual(['a']);
    const rebuilt = createSkillIndex({ skills: [skill('a')] });
    expect(beginRun(state, rebuilt).activated).toEqual(['a']);
    expect(runIndexOf(state)).toBe(rebuilt);
    expect(runIndexOf({})).toBeUndefined();
  });
});

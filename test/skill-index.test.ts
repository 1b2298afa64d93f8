import { join, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLazySkillIndex, createSkillIndex, narrowIndex } from '../src/index/skill-index.js';
import type { Skill, SkillEntry } from '../src/base/model.js';

const skill = (name: string): Skill => ({
  metadata: { name, description: name },
  instructions: '',
  path: '',
  directory: '',
  resources: [],
});

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

  it('a narrowed part finds and loads only its own skills, the first of each name deciding', async () => {
    const hidden = (name: string): Skill => ({ ...skill(name), metadata: { name, description: 'hidden' } });
    // The second "b" passes the filter but is not the index's "b": the part must not find it either.
    const index = createSkillIndex({ skills: [skill('a'), hidden('b'), skill('b'), hidden('c')] });
    const part = narrowIndex(index, (entry) => entry.metadata.description !== 'hidden');
    expect(part.skills.map((s) => s.metadata.name)).toEqual(['a']);
    expect(part.get('a')).toBe(index.get('a'));
    for (const name of ['b', 'c', 'zzz']) {
      expect(part.get(name)).toBeUndefined();
      expect(await part.load(name)).toBeUndefined();
      expect(await part.loadDetailed(name)).toBeUndefined();
    }
    expect((await part.load('a'))?.metadata.name).toBe('a');
    // The part shares the whole's cache: loaded once.
    expect((await index.loadDetailed('a'))?.first).toBe(false);
    // Nothing filtered out: the index itself.
    expect(narrowIndex(index, () => true)).toBe(index);
  });
});

describe('lazy skill index', () => {
  const entry = (name: string): SkillEntry & { instructions?: string } => ({
    metadata: { name, description: name },
    path: `/s/${name}/SKILL.md`,
    directory: `/s/${name}`,
    instructions: 'held by discovery',
  });

  it('keeps level-1 fields only and loads each skill once, sharing concurrent loads', async () => {
    let calls = 0;
    const index = createLazySkillIndex({ skills: [entry('a'), entry('b')] }, async (e) => {
      calls++;
      return {
        skill: { ...e, instructions: `body of ${e.metadata.name}`, resources: [] },
        diagnostics: [{ code: 'RESOURCE_TOO_LARGE', severity: 'warning', file: 'f', line: 0, column: 0, message: 'm' }],
      };
    });
    expect(index.get('a')).toEqual({ metadata: { name: 'a', description: 'a' }, path: '/s/a/SKILL.md', directory: '/s/a' });
    expect(index.get('a')).not.toHaveProperty('instructions');
    const [first, second] = await Promise.all([index.loadDetailed('a'), index.loadDetailed('a')]);
    expect(first?.first).toBe(true);
    expect(second?.first).toBe(false);
    expect(first?.diagnostics).toHaveLength(1);
    expect((await index.load('a'))?.instructions).toBe('body of a');
    expect(calls).toBe(1);
    expect(await index.load('missing')).toBeUndefined();
    expect(await index.loadDetailed('missing')).toBeUndefined();
  });

  it('keeps each path and directory as given, whether or not the path is the folder plus SKILL.md', () => {
    const given = [
      { metadata: { name: 'a', description: 'A.' }, directory: join('/lib', 'a'), path: join('/lib', 'a', 'SKILL.md') },
      { metadata: { name: 'b', description: 'B.' }, directory: `/lib/b${sep}`, path: join('/lib', 'b', 'SKILL.md') },
      { metadata: { name: 'c', description: 'C.' }, directory: '/lib/c', path: '/elsewhere/SKILL.md' },
    ];
    const index = createLazySkillIndex({ skills: given }, async () => {
      throw new Error('not loaded');
    });
    expect(index.skills.map(({ path, directory }) => ({ path, directory }))).toEqual(
      given.map(({ path, directory }) => ({ path, directory })),
    );
  });

  it('does not keep a failed load: the next activation tries again', async () => {
    let attempt = 0;
    const index = createLazySkillIndex({ skills: [entry('a')] }, async (e) => {
      attempt++;
      if (attempt === 1) throw new Error('file vanished');
      return { skill: { ...e, instructions: 'back', resources: [] }, diagnostics: [] };
    });
    await expect(index.load('a')).rejects.toThrow('file vanished');
    expect((await index.load('a'))?.instructions).toBe('back');
  });

  it('an eager index loads from memory', async () => {
    const full = skill('a');
    const index = createSkillIndex({ skills: [full] });
    expect(await index.load('a')).toBe(full);
    expect((await index.loadDetailed('a'))?.diagnostics).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { skillsMiddleware } from '../../src/index.js';
import { createSkillIndex } from '../../src/index/skill-index.js';
import { unknownSkillMessage } from '../../src/tools/unknown-skill.js';
import { SkillRanker } from '../../src/catalog/skill-ranker.js';
import type { Skill } from '../../src/base/model.js';
import { callTool, conversation, createContext } from '../helpers/stack.js';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const skill = (name: string, description: string): Skill => ({
  metadata: { name, description },
  instructions: '',
  path: `/s/${name}/SKILL.md`,
  directory: `/s/${name}`,
  resources: [],
});

describe('unknownSkillMessage', () => {
  const index = createSkillIndex({
    skills: [
      skill('k8s-upgrade', 'Upgrades Kubernetes clusters and migrates workloads between versions.'),
      skill('generate-git-242', 'Generates git history fixtures.'),
      skill('pdf-tools', 'Fills PDF forms.'),
    ],
  });
  const ranking = new SkillRanker(index.skills);
  const ranker = () => ranking.get();

  it('suggests by meaning as well as spelling: the ranker finds what the words are about', () => {
    const message = unknownSkillMessage('kubernetes-migrate', index, ranker);
    expect(message).toMatch(/^Skill "kubernetes-migrate" not found\. Closest available skills: k8s-upgrade, /);
  });

  it('typos come first', () => {
    const message = unknownSkillMessage('pdf-tols', index, ranker, { retry: 'Call use_skill again with one of these names.' });
    expect(message).toMatch(
      /^Skill "pdf-tols" not found\. Closest available skills: pdf-tools, [a-z0-9-]+, [a-z0-9-]+\. Call use_skill again with one of these names\.$/,
    );
  });

  it('quotes a huge name back cut to 80 characters', () => {
    const message = unknownSkillMessage('x'.repeat(100_000), index, ranker);
    expect(message.length).toBeLessThan(300);
    expect(message).toContain(`"${'x'.repeat(80)}…"`);
  });

  it('names the search tool when the run has it', () => {
    expect(unknownSkillMessage('nothing', index, ranker, { searchTool: 'find_skills' })).toMatch(
      /Or call find_skills with a few words about the task to search all 3 skills\.$/,
    );
  });
});

describe('use_skill in a run: the unknown-name answer names find_skills only when it is registered', () => {
  it('over budget (find_skills registered) it does; with findSkills: false it does not', async () => {
    const root = await mkdtemp(join(tmpdir(), 'skills-unknown-'));
    try {
      for (let i = 0; i < 40; i++) {
        await mkdir(join(root, `skill-${i}`));
        await writeFile(
          join(root, `skill-${i}`, 'SKILL.md'),
          `---\nname: skill-${i}\ndescription: ${'Does a thing. '.repeat(10)}\n---\nBody.\n`,
        );
      }
      const over = createContext({ messages: conversation('hi') });
      await skillsMiddleware({ directories: [root], catalogBudget: 600 })(over, async () => {});
      expect(over.tools.get('find_skills')).toBeDefined();
      expect(await callTool(over, 'use_skill', { skill_name: 'nope' })).toContain('Or call find_skills');
      const off = createContext({ messages: conversation('hi') });
      await skillsMiddleware({ directories: [root], catalogBudget: 600, findSkills: false })(off, async () => {});
      expect(off.tools.get('find_skills')).toBeUndefined();
      expect(await callTool(off, 'use_skill', { skill_name: 'nope' })).not.toContain('find_skills');
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

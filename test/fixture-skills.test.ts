/**
 * The example skills in fixtures/skills, read with a full YAML parser (not
 * ours): the values our frontmatter parser must agree with, and the forms
 * published skills use.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { FIXTURE_SKILL_NAMES, SKILLS_FIXTURES } from './helpers/stack.js';

describe('example skills in fixtures/skills', () => {
  function frontmatter(name: string): Record<string, unknown> {
    const text = readFileSync(join(SKILLS_FIXTURES, name, 'SKILL.md'), 'utf8');
    const match = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(text);
    expect(match, `${name}/SKILL.md has no frontmatter`).not.toBeNull();
    return parseYaml(match![1]!) as Record<string, unknown>;
  }

  function body(name: string): string {
    return readFileSync(join(SKILLS_FIXTURES, name, 'SKILL.md'), 'utf8').split('\n---\n')[1] ?? '';
  }

  it('has exactly the five documented skills', () => {
    const folders = readdirSync(SKILLS_FIXTURES).filter((f) => statSync(join(SKILLS_FIXTURES, f)).isDirectory());
    expect(folders.sort()).toEqual([...FIXTURE_SKILL_NAMES]);
  });

  it.each(FIXTURE_SKILL_NAMES)('%s: valid name, a "Use when" description, real instructions and a resource', (name) => {
    const meta = frontmatter(name);
    expect(meta.name).toBe(name);
    expect(name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    expect(typeof meta.description).toBe('string');
    expect(meta.description as string).toMatch(/Use when/);
    expect((meta.description as string).length).toBeLessThanOrEqual(1024);
    const lines = body(name).trim().split('\n').length;
    expect(lines).toBeGreaterThanOrEqual(30);
    expect(lines).toBeLessThanOrEqual(80);
    const resources = readdirSync(join(SKILLS_FIXTURES, name)).filter((f) => f !== 'SKILL.md');
    expect(resources.length).toBeGreaterThan(0);
  });

  it('covers the frontmatter forms published skills use', () => {
    const raw = (name: string) => readFileSync(join(SKILLS_FIXTURES, name, 'SKILL.md'), 'utf8');
    expect(raw('code-review')).toMatch(/^description: >$/m);
    expect(raw('deploy-staging')).toMatch(/^description: \|-$/m);
    expect(raw('test-gen')).toMatch(/^description: ".*\\".*"$/m);
    expect(raw('test-gen')).toMatch(/^version: 1\.0$/m);
    expect(frontmatter('code-review')).toMatchObject({
      license: 'Apache-2.0',
      tags: ['review', 'quality', 'security'],
      metadata: { owner: 'platform-team', review: { 'max-findings': 15, 'severity-levels': 'blocker, major, minor, nit' } },
    });
    expect(frontmatter('test-gen').tags).toEqual(['testing', 'unit-tests', 'coverage']);
    expect(frontmatter('test-gen').description).toContain('"add tests"');
    expect(frontmatter('deploy-staging')).toMatchObject({
      'allowed-tools': 'Bash(git:*) Bash(./scripts/deploy.sh:*) Read',
      compatibility: 'Requires git, bash and network access to the staging cluster.',
    });
    // A literal block keeps its line break; the catalog must still show one line.
    expect(frontmatter('deploy-staging').description).toContain('drafts release notes.\nUse when');
    expect(frontmatter('explain').description).toContain("reader's level");
  });
});

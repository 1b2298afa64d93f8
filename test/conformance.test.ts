/**
 * Real-world conformance: every SKILL.md of the shared corpus, our metadata
 * against the `yaml` package's reading of the same frontmatter.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { checkSkill, findSkillFiles } from '../scripts/conformance-core.mjs';
import { parseFrontmatter } from '../src/frontmatter/parse.js';
import { describeWith } from './helpers/needs-shared.js';
import { CORPUS } from './helpers/shared.js';

// test/ -> repo root -> its parent, where the shared corpus sits beside the project.
describeWith('corpus', 'conformance with the yaml package on the shared corpus', () => {
  it('reads every SKILL.md as yaml does, or recovers name and description with a warning', () => {
    const files = findSkillFiles(CORPUS);
    expect(files.length).toBeGreaterThan(0);
    const counts = { equal: 0, recovered: 0, failed: 0 };
    const failures: string[] = [];
    for (const file of files) {
      const result = checkSkill(readFileSync(file, 'utf8'), { parseFrontmatter, parseYaml: (text) => parseYaml(text) });
      counts[result.outcome]++;
      if (result.outcome === 'failed') failures.push(`${relative(CORPUS, file)}: ${result.reason ?? ''}`);
    }
    console.log(`conformance: ${files.length} files, ${counts.equal} equal, ${counts.recovered} recovered, ${counts.failed} failed`);
    expect(failures).toEqual([]);
  });
});

describe('checkSkill outcomes', () => {
  const fixture = (name: string): string =>
    readFileSync(fileURLToPath(new URL(`../fixtures/frontmatter/${name}`, import.meta.url)), 'utf8');
  const deps = { parseFrontmatter, parseYaml: (text: string): unknown => parseYaml(text) };

  it('equal, recovered and failed', () => {
    expect(checkSkill(fixture('nested.md'), deps)).toEqual({ outcome: 'equal' });
    expect(checkSkill(fixture('no-frontmatter.md'), deps)).toEqual({ outcome: 'equal' });
    expect(checkSkill(fixture('recovered-colon.md'), deps)).toEqual({ outcome: 'recovered' });
    expect(checkSkill(fixture('error-quote.md'), deps)).toMatchObject({ outcome: 'failed' });
    const wrong = { ...deps, parseYaml: (): unknown => ({ name: 'other' }) };
    expect(checkSkill(fixture('basic.md'), wrong).reason).toMatch(/^at \$\.name: ours "pdf-tools", yaml "other"$/);
  });
});

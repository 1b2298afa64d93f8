import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoverSkills } from '../../src/discover/with-storage.js';
import { cleanup, makeTempTree, skillMd } from './helpers.js';

// Many real folders: no EMFILE, order by path. SKILLS_SCALE=20000 for the full-size run.
const COUNT = Number(process.env.SKILLS_SCALE ?? 2000);

describe(`discoverSkills on ${COUNT} skills`, () => {
  let root: string;
  beforeAll(async () => {
    root = await makeTempTree();
    const names = Array.from({ length: COUNT }, (_, i) => `skill-${String(i).padStart(5, '0')}`);
    for (let i = 0; i < names.length; i += 200) {
      await Promise.all(
        names.slice(i, i + 200).map(async (name) => {
          await mkdir(join(root, name, 'scripts'), { recursive: true });
          await writeFile(join(root, name, 'SKILL.md'), skillMd(name));
          await writeFile(join(root, name, 'scripts', 'run.sh'), 'echo ok\n');
        }),
      );
    }
  }, 120_000);
  afterAll(async () => {
    await cleanup(root);
  });

  it('loads them all, in order, without filesystem errors', async () => {
    const result = await discoverSkills({ directories: [root] });
    expect(result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);
    expect(result.skills).toHaveLength(COUNT);
    expect(result.skills.map((s) => s.metadata.name)).toEqual([...result.skills.map((s) => s.metadata.name)].sort());
    expect(result.skills.every((s) => s.resources.length === 1)).toBe(true);
  }, 120_000);
});

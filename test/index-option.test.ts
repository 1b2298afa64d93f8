/**
 * The `index` option end to end: start-up reads the prebuilt file instead of
 * scanning; an unusable index falls back to a scan with one warning; a
 * SKILL.md changed or removed since the build is refused at activation, never
 * answered with stale text; skills added later are not seen until a rebuild.
 */
import { mkdir, mkdtemp, realpath, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nodeFileSystem, type SkillsFileSystem } from '../src/base/fs.js';
import { getSkills, skillsMiddleware, SkillsConfigError } from '../src/index.js';
import { buildPrebuiltIndex, serializePrebuiltIndex } from './helpers/prebuilt.js';
import { callTool, conversation, createContext } from './helpers/stack.js';

let root: string;
let skills: string;
let indexFile: string;

const md = (name: string, body = `Do ${name}.`) =>
  `---\nname: ${name}\ndescription: Does ${name}. Use when asked about ${name}.\n---\n# ${name}\n${body}\n`;

async function writeSkill(name: string, body?: string): Promise<void> {
  await mkdir(join(skills, name), { recursive: true });
  await writeFile(join(skills, name, 'SKILL.md'), md(name, body));
}

async function buildIndex(): Promise<void> {
  const doc = await buildPrebuiltIndex({ directories: [skills] }, indexFile);
  await writeFile(indexFile, serializePrebuiltIndex(doc));
}

/** node's fs, counting directory listings: a start-up from the index lists nothing. */
function countingFs(): { fs: SkillsFileSystem; listings: () => number } {
  let listings = 0;
  return {
    fs: {
      ...nodeFileSystem,
      readdir: (path, options) => {
        listings++;
        return nodeFileSystem.readdir(path, options);
      },
    },
    listings: () => listings,
  };
}

beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'skills-index-')));
  skills = join(root, 'skills');
  indexFile = join(root, 'skills.index');
  await writeSkill('alpha');
  await writeSkill('beta');
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('index option', () => {
  it('start-up reads the index and lists no folder; activation reads the body as it is', async () => {
    await buildIndex();
    const { fs, listings } = countingFs();
    const ctx = createContext({ messages: conversation('hello') });
    await skillsMiddleware({ directories: [skills], index: indexFile, fs })(ctx, async () => {});
    expect(listings()).toBe(0);
    expect(getSkills(ctx)?.skills.map((s) => s.metadata.name)).toEqual(['alpha', 'beta']);
    // Level 2 is read at activation (its resource folder listed then).
    expect(await callTool(ctx, 'use_skill', { skill_name: 'alpha' })).toContain('Do alpha.');
    expect(ctx.log.entries.filter((e) => e.level === 'warn')).toEqual([]);
  });

  it('a changed or removed SKILL.md is refused with a message the model can act on, never stale text', async () => {
    await buildIndex();
    await writeFile(join(skills, 'alpha', 'SKILL.md'), md('alpha', 'NEW TEXT, longer than before.'));
    const later = new Date(Date.now() + 10_000);
    await utimes(join(skills, 'alpha', 'SKILL.md'), later, later);
    await rm(join(skills, 'beta'), { recursive: true });
    const ctx = createContext({ messages: conversation('hi') });
    await skillsMiddleware({ directories: [skills], index: indexFile })(ctx, async () => {});
    const alpha = await callTool(ctx, 'use_skill', { skill_name: 'alpha' });
    expect(alpha).toContain('changed after the skills index was built');
    expect(alpha).not.toContain('NEW TEXT');
    expect(alpha).not.toContain('Do alpha.');
    expect(await callTool(ctx, 'use_skill', { skill_name: 'beta' })).toContain('was removed after the skills index was built');
  });

  it('skills added after the build are not seen until the index is rebuilt', async () => {
    await buildIndex();
    await writeSkill('gamma');
    const ctx = createContext({ messages: conversation('hi') });
    await skillsMiddleware({ directories: [skills], index: indexFile })(ctx, async () => {});
    expect(getSkills(ctx)?.get('gamma')).toBeUndefined();
    await buildIndex();
    const rebuilt = createContext({ messages: conversation('hi') });
    await skillsMiddleware({ directories: [skills], index: indexFile })(rebuilt, async () => {});
    expect(getSkills(rebuilt)?.get('gamma')).toBeDefined();
  });

  it('a missing, damaged or mismatched index falls back to a scan with one INDEX_UNUSABLE warning', async () => {
    for (const prepare of [
      async () => undefined,
      async () => writeFile(indexFile, '{ not json'),
      async () => {
        const doc = await buildPrebuiltIndex({ directories: [join(root, 'elsewhere')] }, indexFile);
        await writeFile(indexFile, serializePrebuiltIndex(doc));
      },
    ]) {
      await rm(indexFile, { force: true });
      await prepare();
      const middleware = skillsMiddleware({ directories: [skills], index: indexFile, cacheTtl: 0 });
      const first = createContext({ messages: conversation('hi') });
      await middleware(first, async () => {});
      expect(getSkills(first)?.skills.map((s) => s.metadata.name)).toEqual(['alpha', 'beta']);
      const unusable = first.log.entries.filter(
        (e) => e.level === 'warn' && (e.args[1] as { code?: string } | undefined)?.code === 'INDEX_UNUSABLE',
      );
      expect(unusable).toHaveLength(1);
      // The next scan does not try the index again, so there is no second warning.
      const second = createContext({ messages: conversation('hi') });
      await middleware(second, async () => {});
      expect(second.log.entries.some((e) => (e.args[1] as { code?: string } | undefined)?.code === 'INDEX_UNUSABLE')).toBe(false);
    }
  });

  it('is checked at construction: a path, and not with preload', () => {
    expect(() => skillsMiddleware({ directories: [skills], index: '' })).toThrow(SkillsConfigError);
    expect(() => skillsMiddleware({ directories: [skills], index: 'x.json', preload: true })).toThrow(
      /`index` cannot be used with `preload: true`/,
    );
  });
});

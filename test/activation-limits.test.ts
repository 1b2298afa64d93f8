/**
 * Activation reads are bounded like discovery's: a burst of use_skill calls
 * never has more than MAX_CONCURRENT_FS_CALLS skill loads in flight, and a
 * load that runs out of file descriptors says "busy, try again".
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_CONCURRENT_FS_CALLS } from '../src/discover/scan.js';
import { nodeFileSystem, type SkillsFileSystem } from '../src/base/fs.js';
import { skillsMiddleware } from '../src/index.js';
import { callTool, conversation, createContext } from './helpers/stack.js';

const SKILLS = 200;
let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'skills-burst-'));
  for (let i = 0; i < SKILLS; i++) {
    const name = `skill-${i}`;
    await mkdir(join(root, name));
    await writeFile(
      join(root, name, 'SKILL.md'),
      `---\nname: ${name}\ndescription: Skill number ${i}. Use when testing.\n---\n# ${name}\nBody ${i}.\n`,
    );
  }
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A filesystem that counts whole-file reads of SKILL.md in flight (what activation does), and can fail them. */
function countingFs(fail?: NodeJS.ErrnoException): { fs: SkillsFileSystem; peak: () => number } {
  let inFlight = 0;
  let peak = 0;
  const fs: SkillsFileSystem = {
    ...nodeFileSystem,
    async readFile(path, encoding) {
      if (!path.endsWith('SKILL.md')) return nodeFileSystem.readFile(path, encoding);
      inFlight++;
      peak = Math.max(peak, inFlight);
      try {
        // Hold the slot a moment so a burst overlaps.
        await new Promise((resolve) => setTimeout(resolve, 2));
        if (fail) throw fail;
        return await nodeFileSystem.readFile(path, encoding);
      } finally {
        inFlight--;
      }
    },
  };
  return { fs, peak: () => peak };
}

describe('a burst of activations', () => {
  it(`keeps at most ${MAX_CONCURRENT_FS_CALLS} skill loads in flight, and every call is answered`, async () => {
    const { fs, peak } = countingFs();
    const ctx = createContext({ messages: conversation('go') });
    // rankInstructions off: its background reading (a second after the first request) would count too on a machine slow enough.
    await skillsMiddleware({ directories: [root], fs, rankInstructions: false })(ctx, async () => {});
    const answers = await Promise.all(Array.from({ length: SKILLS }, (_, i) => callTool(ctx, 'use_skill', { skill_name: `skill-${i}` })));
    answers.forEach((answer, i) => expect(answer).toContain(`Body ${i}.`));
    expect(peak()).toBeGreaterThan(1);
    expect(peak()).toBeLessThanOrEqual(MAX_CONCURRENT_FS_CALLS);
  });

  it('out of file descriptors: "busy, try again", and the next call succeeds once they are back', async () => {
    const emfile = Object.assign(new Error('EMFILE: too many open files'), { code: 'EMFILE' });
    let failing = true;
    const base = countingFs(emfile).fs;
    const fs: SkillsFileSystem = {
      ...base,
      readFile: (path, encoding) => (failing ? base.readFile(path, encoding) : nodeFileSystem.readFile(path, encoding)),
    };
    const ctx = createContext({ messages: conversation('go') });
    await skillsMiddleware({ directories: [root], fs })(ctx, async () => {});
    const answer = await callTool(ctx, 'use_skill', { skill_name: 'skill-1' });
    expect(answer).toMatch(/^Could not activate the skill: busy: too many files are open right now\. Try again/);
    failing = false;
    expect(await callTool(ctx, 'use_skill', { skill_name: 'skill-1' })).toContain('Body 1.');
  });
});

/**
 * Attacks on read_skill_resource, through the public tools registered in a
 * middleware stack and called as a host calls them. A canary file sits next to the skill (and secrets inside it): no
 * answer may ever contain it, whatever is asked and whatever changes on disk.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, open, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { discoverSkills } from '../../src/discover/with-storage.js';
import { nodeFileSystem, type SkillsFileSystem } from '../../src/base/fs.js';
import { createReadResourceTool, READ_RESOURCE_TOOL, type ReadResourceArgs } from '../../src/tools/read-resource.js';
import { renderResourceListing } from '../../src/tools/resource-listing.js';
import { createUseSkillTool } from '../../src/tools/use-skill.js';
import type { Skill } from '../../src/base/model.js';
import { cleanup, makeTempTree, skillMd } from '../discover/helpers.js';
import { callTool, invoke, runStack, type StackContext } from '../helpers/stack.js';

const CANARY = 'CANARY-7f3a9c-must-never-be-returned';
/** The start of /etc/passwd on every Unix. */
const PASSWD = 'root:';

let base: string;
let skillDir: string;
const everyAnswer: string[] = [];

beforeEach(async () => {
  base = await makeTempTree({
    'outside/canary.txt': CANARY,
    'outside/dir/guide.md': CANARY,
    'skills/demo/SKILL.md': skillMd('demo'),
    'skills/demo/references/guide.md': '# Guide\nSafe text.\n',
    'skills/demo/references/notes.md': 'Notes.\n',
    'skills/demo/scripts/run.sh': 'echo run\n',
    'skills/demo/.env': CANARY,
    'skills/demo/id_rsa': CANARY,
    'skills/demo/credentials.json': CANARY,
    'skills/demo/server.pem': CANARY,
    'skills/demo/tls/private.key': CANARY,
    'skills/demo/secrets/token.txt': CANARY,
  });
  skillDir = join(base, 'skills', 'demo');
  await symlink('/etc', join(skillDir, 'etc-link'));
  await symlink(join(base, 'outside'), join(skillDir, 'outside-link'));
  await symlink(join(base, 'outside', 'canary.txt'), join(skillDir, 'canary-link.txt'));
});
afterEach(async () => {
  await cleanup(base);
});
afterAll(() => {
  // The whole suite, once more: nothing from outside the skill, and no secret, was ever returned.
  expect(everyAnswer.length).toBeGreaterThan(50);
  for (const answer of everyAnswer) {
    expect(answer).not.toContain(CANARY);
    expect(answer).not.toContain(PASSWD);
  }
});

async function discover(): Promise<Skill> {
  const result = await discoverSkills({ directories: [join(base, 'skills')] });
  const skill = result.skills.find((s) => s.metadata.name === 'demo');
  if (!skill) throw new Error('demo skill not discovered');
  return skill;
}

/** Asks the registered read_skill_resource for every `path`, in order, in one run; returns the answers. */
async function attack(skill: Skill, requests: ReadonlyArray<string | Partial<ReadResourceArgs>>, settings = {}): Promise<string[]> {
  const register = async (ctx: StackContext, next: () => Promise<void>): Promise<void> => {
    ctx.tools.register(createUseSkillTool([skill]));
    ctx.tools.register(createReadResourceTool([skill], settings));
    await next();
  };
  const ctx = await runStack(register);
  const answers: string[] = [];
  for (const r of requests) {
    answers.push(
      await callTool(ctx, READ_RESOURCE_TOOL, typeof r === 'string' ? { skill_name: 'demo', path: r } : { skill_name: 'demo', ...r }),
    );
  }
  everyAnswer.push(...answers);
  expect(answers).toHaveLength(requests.length);
  for (const answer of answers) {
    expect(answer).not.toContain(CANARY);
    expect(answer).not.toContain(PASSWD);
  }
  expect(ctx.log.entries.filter((e) => e.level === 'error')).toEqual([]);
  return answers;
}

function expectRefused(answers: readonly string[], reason: RegExp): void {
  for (const answer of answers) {
    expect(answer).toMatch(/^Cannot read ".*" from skill "demo": /s);
    expect(answer).toMatch(reason);
  }
}

describe('read_skill_resource under attack', () => {
  it('baseline: a listed file is read, and the listing holds no secret and no link out', async () => {
    const skill = await discover();
    expect(skill.resources.map((r) => r.path)).toEqual(['references/guide.md', 'references/notes.md', 'scripts/run.sh']);
    const [answer] = await attack(skill, ['references/guide.md']);
    expect(answer).toContain('Safe text.');
  });

  it('refuses ../../etc/passwd and other climbs with `..`', async () => {
    const answers = await attack(await discover(), [
      '../../etc/passwd',
      '../../../../../../etc/passwd',
      '../../outside/canary.txt',
      'references/../../../outside/canary.txt',
      'references/../guide.md',
    ]);
    expectRefused(answers, /it uses `\.\.`/);
  });

  it('refuses absolute paths, drive letters and URLs, even to a listed file', async () => {
    const answers = await attack(await discover(), [
      '/etc/passwd',
      join(base, 'outside', 'canary.txt'),
      join(skillDir, 'references', 'guide.md'),
      '\\\\server\\share\\canary.txt',
      'C:\\Windows\\win.ini',
      'c:/etc/passwd',
      'file:///etc/passwd',
    ]);
    expectRefused(answers.slice(0, 4), /it is an absolute path/);
    expectRefused(answers.slice(4, 6), /it names a drive/);
    expectRefused(answers.slice(6), /it is a URL/);
  });

  it('refuses URL-encoded and backslash traversal', async () => {
    const answers = await attack(await discover(), [
      '%2e%2e%2f%2e%2e%2foutside%2fcanary.txt',
      '..%2f..%2foutside%2fcanary.txt',
      '%252e%252e%252f%252e%252e%252foutside%252fcanary.txt',
      '..%5c..%5coutside%5ccanary.txt',
      '%2fetc%2fpasswd',
      '..\\..\\outside\\canary.txt',
      'references\\..\\..\\..\\outside\\canary.txt',
    ]);
    expectRefused(answers.slice(0, 5), /URL-decoded form leaves the skill folder/);
    expectRefused(answers.slice(5), /it uses `\.\.`/);
  });

  it('a symlink to /etc (or to a folder outside) inside the skill is never listed, and refused even if a listing names it', async () => {
    const skill = await discover();
    expectRefused(
      await attack(skill, ['etc-link/passwd', 'outside-link/canary.txt', 'canary-link.txt']),
      /not one of the skill's listed files/,
    );
    // A stale or hand-built listing that names them: the real path decides.
    const stale: Skill = {
      ...skill,
      resources: [
        ...skill.resources,
        { name: 'passwd', path: 'etc-link/passwd', absolutePath: join(skillDir, 'etc-link/passwd'), type: 'other', size: 10 },
        {
          name: 'canary.txt',
          path: 'outside-link/canary.txt',
          absolutePath: join(skillDir, 'outside-link/canary.txt'),
          type: 'reference',
          size: 10,
        },
        { name: 'canary-link.txt', path: 'canary-link.txt', absolutePath: join(skillDir, 'canary-link.txt'), type: 'reference', size: 10 },
      ],
    };
    expectRefused(await attack(stale, ['etc-link/passwd', 'outside-link/canary.txt', 'canary-link.txt']), /outside the skill folder/);
  });

  it('a symlink swapped in after discovery is refused, even for a file read (and cached) before', async () => {
    const skill = await discover();
    const guide = join(skillDir, 'references', 'guide.md');
    // One tool across both turns, so its read cache holds the earlier content.
    const tool = createReadResourceTool([skill]);
    const before = await invoke(tool, { skill_name: 'demo', path: 'references/guide.md' });
    expect(before).toContain('Safe text.');
    await rm(guide);
    await symlink(join(base, 'outside', 'canary.txt'), guide);
    const after = await invoke(tool, { skill_name: 'demo', path: 'references/guide.md' });
    everyAnswer.push(after);
    expectRefused([after], /outside the skill folder/);
    // The whole folder swapped for a link to a look-alike folder outside.
    await rename(join(skillDir, 'references'), join(base, 'old-references'));
    await symlink(join(base, 'outside', 'dir'), join(skillDir, 'references'));
    expectRefused(await attack(skill, ['references/guide.md']), /outside the skill folder/);
    // A link to a secret inside the skill is refused by its real name.
    await rm(join(skillDir, 'references'));
    await mkdir(join(skillDir, 'references'));
    await symlink(join(skillDir, '.env'), join(skillDir, 'references', 'notes.md'));
    expectRefused(await attack(skill, ['references/notes.md']), /secret file pattern/);
  });

  it('refuses hard-to-see Unicode paths: fullwidth solidus and dots, dot leaders, right-to-left override, zero-width space', async () => {
    const skill = await discover();
    const answers = await attack(skill, [
      '\uff0e\uff0e\uff0f\uff0e\uff0e\uff0foutside\uff0fcanary.txt',
      '..\uff0f..\uff0foutside\uff0fcanary.txt',
      '\u2025/\u2025/outside/canary.txt',
      '\u2215etc\u2215passwd',
      'references/\u202Edm.ediug',
      'references/guide.md\u200B',
      'references\uff0fguide.md',
    ]);
    expectRefused(answers.slice(0, 4), /look like `\/`, `\\` or `\.`/);
    expectRefused(answers.slice(4, 6), /invisible or control characters/);
    expectRefused(answers.slice(6), /not one of the skill's listed files/);
  });

  it('a right-to-left-override file inside the skill is neither listed nor read', async () => {
    await writeFile(join(skillDir, 'scripts', 'run\u202Eht.sh'), CANARY);
    const skill = await discover();
    expect(skill.resources.map((r) => r.path)).not.toContain('scripts/run\u202Eht.sh');
    expectRefused(await attack(skill, ['scripts/run\u202Eht.sh']), /invisible or control characters/);
  });

  it('a 1 GB sparse file is listed as too large and refused without being read', async () => {
    const handle = await open(join(skillDir, 'assets-huge.bin'), 'w');
    await handle.truncate(1024 ** 3);
    await handle.close();
    const skill = await discover();
    const huge = skill.resources.find((r) => r.path === 'assets-huge.bin');
    expect(huge).toMatchObject({ size: 1024 ** 3, tooLarge: true });
    expect(renderResourceListing(skill.resources)).toContain('- assets-huge.bin (other, 1024.0 MB, too large to read)');
    const rss = process.memoryUsage().rss;
    // Even with no per-file limit, a read never allocates the whole file.
    const answers = [
      ...(await attack(skill, ['assets-huge.bin'])),
      ...(await attack(skill, ['assets-huge.bin'], { maxFileSize: Infinity, maxSkillSize: Infinity })),
    ];
    expect(process.memoryUsage().rss - rss).toBeLessThan(200 * 1024 * 1024);
    expectRefused(answers, /it is 1024\.0 MB, over the (100\.0 KB|64\.0 MB) limit for one file/);
  });

  it('a FIFO is never opened: not listed, and refused when swapped in after discovery (no hang)', async (ctx) => {
    const fifo = join(skillDir, 'references', 'pipe.md');
    try {
      execFileSync('mkfifo', [fifo]);
    } catch {
      ctx.skip();
    }
    const skill = await discover();
    expect(skill.resources.map((r) => r.path)).not.toContain('references/pipe.md');
    expectRefused(await attack(skill, ['references/pipe.md']), /not one of the skill's listed files/);
    await rm(join(skillDir, 'references', 'notes.md'));
    execFileSync('mkfifo', [join(skillDir, 'references', 'notes.md')]);
    expectRefused(await attack(skill, ['references/notes.md']), /not a regular file/);
  }, 5_000);

  it('a file swapped between the safety checks and the open is refused, never read (link, other file, pipe)', async (ctx) => {
    const skill = await discover();
    const target = join(skillDir, 'references', 'guide.md');
    // An fs that swaps the file at the worst moment: after every check passed, just before open().
    const swapping = (swap: () => Promise<void>): SkillsFileSystem => ({
      ...nodeFileSystem,
      open: async (path, flags) => {
        if (path.endsWith('guide.md')) await swap();
        return nodeFileSystem.open(path, flags);
      },
    });
    const toLink = swapping(async () => {
      await rm(target);
      await symlink(join(base, 'outside', 'canary.txt'), target);
    });
    expectRefused(await attack(skill, ['references/guide.md'], { fs: toLink }), /replaced between the safety checks and the read/);

    await rm(target);
    await writeFile(target, '# Guide\nSafe text.\n');
    await writeFile(join(base, 'outside', 'look-alike.md'), CANARY);
    const toOtherFile = swapping(() => rename(join(base, 'outside', 'look-alike.md'), target));
    expectRefused(await attack(skill, ['references/guide.md'], { fs: toOtherFile }), /replaced between the safety checks and the read/);

    await rm(target);
    await writeFile(target, '# Guide\nSafe text.\n');
    const toPipe = swapping(async () => {
      await rm(target);
      execFileSync('mkfifo', [target]);
    });
    try {
      execFileSync('mkfifo', [join(base, 'probe-fifo')]);
    } catch {
      ctx.skip();
    }
    // Opened without blocking, then refused: not the regular file that was checked.
    expectRefused(await attack(skill, ['references/guide.md'], { fs: toPipe }), /replaced between the safety checks and the read/);
  }, 5_000);

  it('a file that disappears between listing and reading gives a message', async () => {
    const skill = await discover();
    await rm(join(skillDir, 'references', 'notes.md'));
    await rm(join(skillDir, 'scripts'), { recursive: true });
    expectRefused(await attack(skill, ['references/notes.md', 'scripts/run.sh']), /no longer exists/);
  });

  it('refuses secrets by exact name, in any case, even when a listing names them', async () => {
    const secrets = [
      '.env',
      '.ENV',
      'id_rsa',
      'credentials.json',
      'Credentials.JSON',
      'server.pem',
      'tls/private.key',
      'secrets/token.txt',
    ];
    const skill = await discover();
    expectRefused(await attack(skill, secrets), /secret file pattern .*; secrets are never read\./);
    const stale: Skill = {
      ...skill,
      resources: [
        ...skill.resources,
        ...secrets.map((path) => ({ name: path, path, absolutePath: join(skillDir, path), type: 'other' as const, size: 10 })),
      ],
    };
    expectRefused(await attack(stale, secrets), /secrets are never read/);
    expectRefused(await attack(skill, ['notes.txt'], { secretPatterns: ['notes*'] }), /secret file pattern/);
  });

  it('refuses NUL bytes and an empty path', async () => {
    const answers = await attack(await discover(), ['references/guide.md\0.png', '', '.', './']);
    expectRefused(answers.slice(0, 1), /NUL byte/);
    expectRefused(answers.slice(1), /(the path is empty|names the skill folder itself)/);
  });

  it('fuzz: no mix of traversal pieces ever returns anything from outside or a secret', async () => {
    const skill = await discover();
    const tool = createReadResourceTool([skill]);
    const piece = fc.constantFrom(
      '..',
      '.',
      '',
      '%2e',
      '%2e%2e',
      '%2f',
      '%5c',
      '%252e',
      '\uff0e',
      '\uff0f',
      '\u2025',
      '\\',
      'outside',
      'canary.txt',
      'outside-link',
      'canary-link.txt',
      'etc-link',
      'etc',
      'passwd',
      '.env',
      'secrets',
      'token.txt',
      'references',
      'guide.md',
      base,
      skillDir,
      'C:',
    );
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { minLength: 1, maxLength: 7 }), fc.constantFrom('/', '\\', ''), async (pieces, separator) => {
        const answer = await invoke(tool, { skill_name: 'demo', path: pieces.join(separator) });
        everyAnswer.push(answer);
        expect(answer).not.toContain(CANARY);
        expect(answer).not.toContain(PASSWD);
        if (!answer.startsWith('Cannot read')) expect(answer).toMatch(/^<skill_resource skill="demo" path="references\/guide\.md"/);
      }),
      { numRuns: 400 },
    );
  });
});

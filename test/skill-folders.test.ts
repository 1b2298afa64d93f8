/**
 * Each skill's folder on this machine, as the middleware gives it: the
 * folders an app hands its terminal tool (`localRoots`), the folder
 * `${CLAUDE_SKILL_DIR}` and the use_skill answer name for a folder, a package
 * and a bucket (s3rver behind the counting proxy, which also plants hostile
 * keys real S3 would keep and s3rver must never be given), what the
 * conversation is told when a skill changed since it saw it, and the faults.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSkills, skillsMiddleware, type SkillsOptions } from '../src/index.js';
import { CHANGED_LINE } from '../src/tools/use-skill.js';
import { makeBucket, s3Config, type TestBucket } from './helpers/s3/bucket.js';
import { sharedS3rver } from './helpers/s3/server.js';
import { startProxy, type StorageProxy } from './helpers/storage/proxy.js';
import { callTool, compose, conversation, createContext, type StackContext, type StackMessage } from './helpers/stack.js';

const SKILL = (name: string, body: string) => `---\nname: ${name}\ndescription: The ${name} skill, for tests.\n---\n${body}\n`;
const RUN_BODY = 'Run `python3 ${CLAUDE_SKILL_DIR}/scripts/run.py` then `bash ${SKILL_DIR}/scripts/run.sh`.';

let work: string;
let bucket: TestBucket;
let proxy: StorageProxy;
let serial = 0;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'skill-folders-'));
  bucket = await makeBucket('folders');
  proxy = await startProxy(await sharedS3rver());
});
afterAll(async () => {
  await proxy.close();
  rmSync(work, { recursive: true, force: true });
});

/** `files` (relative to the place) in a new prefix of the bucket; the place's URL. */
async function inBucket(files: Record<string, string>): Promise<string> {
  const prefix = `p${++serial}`;
  await Promise.all(Object.entries(files).map(([path, text]) => bucket.put(`${prefix}/${path}`, text)));
  return `s3://${bucket.name}/${prefix}`;
}

function onDisk(files: Record<string, string>): string {
  const root = join(work, `d${++serial}`);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

/** use_skill on `ctx`, its call and answer then put in the conversation as SISU records them (call `id`); the answer. */
async function activateInConversation(ctx: StackContext, skill: string, id: string): Promise<string> {
  const answer = await callTool(ctx, 'use_skill', { skill_name: skill });
  ctx.messages.push(
    { role: 'assistant', content: '', tool_calls: [{ id, name: 'use_skill', arguments: { skill_name: skill } }] },
    { role: 'tool', tool_call_id: id, content: JSON.stringify(answer) },
  );
  return answer;
}

async function turn(middleware: ReturnType<typeof skillsMiddleware>, messages: StackMessage[]): Promise<StackContext> {
  const ctx = createContext({ messages });
  await compose([middleware])(ctx);
  return ctx;
}

const folderIn = (answer: string) => /^Skill directory: (.*)$/m.exec(answer)?.[1] as string;

describe('localRoots', () => {
  it("lists the configured folders on this disk, the packages' folders and the copy root (made now, mode 700)", () => {
    const app = onDisk({
      'skills/a/SKILL.md': SKILL('a', 'A.'),
      'node_modules/@acme/skill-b/package.json': '{"name":"@acme/skill-b","version":"1.0.0"}',
      'node_modules/@acme/skill-b/SKILL.md': SKILL('b', 'B.'),
    });
    const middleware = skillsMiddleware({
      directories: [join(app, 'skills'), `s3://${bucket.name}/none`],
      packages: ['@acme/skill-b', '@acme/not-installed'],
      cwd: app,
      s3: s3Config(proxy.endpoint),
    });
    const roots = middleware.localRoots();
    expect(roots.slice(0, 2)).toEqual([join(app, 'skills'), realpathSync(join(app, 'node_modules/@acme/skill-b'))]);
    expect(roots).toHaveLength(3);
    const copyRoot = roots[2] as string;
    expect(copyRoot.startsWith(join(tmpdir(), 'sisu-skills-'))).toBe(true);
    expect(statSync(copyRoot).mode & 0o777).toBe(0o700);
    expect(middleware.localRoots()).toEqual(roots);
    return middleware.close().then(() => expect(existsSync(copyRoot)).toBe(false));
  });

  it('has no copy root without a bucket, nor with localCopies: false; a configured root is made where it says', async () => {
    const app = onDisk({ 'skills/a/SKILL.md': SKILL('a', 'A.') });
    expect(skillsMiddleware({ directories: [join(app, 'skills')] }).localRoots()).toEqual([join(app, 'skills')]);
    const place = `s3://${bucket.name}/none`;
    expect(skillsMiddleware({ directories: [place], s3: s3Config(proxy.endpoint), localCopies: false }).localRoots()).toEqual([]);
    const configured = skillsMiddleware({
      directories: [place],
      s3: s3Config(proxy.endpoint),
      localCopies: { root: 'copies/here' },
      cwd: app,
    });
    expect(configured.localRoots()).toEqual([join(app, 'copies/here')]);
    expect(statSync(join(app, 'copies/here')).isDirectory()).toBe(true);
    await configured.close();
    // A configured root is shared: close() leaves it.
    expect(existsSync(join(app, 'copies/here'))).toBe(true);
  });
});

describe("a skill's folder in what the model reads", () => {
  it('a bucket skill runs from its local copy: the answer, ${CLAUDE_SKILL_DIR} and ${SKILL_DIR} name it, and the listing says what was left out', async () => {
    const place = await inBucket({
      'run/SKILL.md': SKILL('run', RUN_BODY),
      'run/scripts/run.py': '#!/usr/bin/env python3\nprint("ran")\n',
      'run/scripts/run.sh': 'echo ran\n',
      'run/assets/big.bin': 'x'.repeat(3000),
    });
    const middleware = skillsMiddleware({ directories: [place], s3: s3Config(proxy.endpoint), maxFileSize: 2000 });
    const ctx = await turn(middleware, conversation('Run it.'));
    const answer = await callTool(ctx, 'use_skill', { skill_name: 'run' });
    const folder = folderIn(answer);
    const root = middleware.localRoots().at(-1) as string;
    expect(folder).toMatch(new RegExp(`^${root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\${sep}run-[0-9a-f]{12}$`));
    expect(answer).toContain(`Run \`python3 ${folder}/scripts/run.py\` then \`bash ${folder}/scripts/run.sh\`.`);
    expect(answer).toContain('- assets/big.bin (asset, 2.9 KB, too large to read; not copied: over maxFileSize (2 KB))');
    expect(readdirSync(join(folder, 'scripts')).sort()).toEqual(['run.py', 'run.sh']);
    expect(statSync(join(folder, 'scripts/run.py')).mode & 0o777).toBe(0o555);
    expect(statSync(join(folder, 'scripts/run.sh')).mode & 0o777).toBe(0o444);
    expect(existsSync(join(folder, 'assets'))).toBe(false);
    // A second conversation finds the copy: no request.
    proxy.reset();
    const again = await turn(middleware, conversation('Run it again.'));
    expect(folderIn(await callTool(again, 'use_skill', { skill_name: 'run' }))).toBe(folder);
    expect(proxy.log).toEqual([]);
    await middleware.close();
    expect(existsSync(folder)).toBe(false);
  });

  it('a folder and a package skill run from their own folder; localCopies: false leaves a bucket skill at its URL', async () => {
    const app = onDisk({
      'skills/run/SKILL.md': SKILL('run', RUN_BODY),
      'node_modules/skill-pkg/package.json': '{"name":"skill-pkg","version":"1.0.0"}',
      'node_modules/skill-pkg/SKILL.md': SKILL('pkg', RUN_BODY),
    });
    const local = skillsMiddleware({ directories: [join(app, 'skills')], packages: ['skill-pkg'], cwd: app });
    const ctx = await turn(local, conversation('Run it.'));
    expect(folderIn(await callTool(ctx, 'use_skill', { skill_name: 'run' }))).toBe(realpathSync(join(app, 'skills/run')));
    expect(folderIn(await callTool(ctx, 'use_skill', { skill_name: 'pkg' }))).toBe(realpathSync(join(app, 'node_modules/skill-pkg')));
    const place = await inBucket({ 'run/SKILL.md': SKILL('run', RUN_BODY) });
    const off = skillsMiddleware({ directories: [place], s3: s3Config(proxy.endpoint), localCopies: false });
    const answer = await callTool(await turn(off, conversation('Run it.')), 'use_skill', { skill_name: 'run' });
    expect(folderIn(answer)).toBe(`${place}/run`);
    expect(answer).toContain(`python3 ${place}/run/scripts/run.py`);
  });

  it('hostile keys in a listing are never copied and never written outside the copy: the listing says so, the rest runs', async () => {
    const place = await inBucket({ 'run/SKILL.md': SKILL('run', RUN_BODY), 'run/scripts/run.py': 'print("ran")\n' });
    const key = place.slice(`s3://${bucket.name}/`.length);
    // Planted at the proxy, as S3 would keep them: s3rver must never be given `..` keys (it resolves them against its own folder).
    for (const hostile of ['../../../escape.sh', '%2e%2e/evil.sh', '..%2fevil.sh', 'a\\..\\..\\evil.sh', 'C:/evil.sh', 'scripts/x:y.sh']) {
      proxy.planted.set(`/${bucket.name}/${key}/run/${hostile}`, new TextEncoder().encode('echo owned > /tmp/owned\n'));
    }
    try {
      const middleware = skillsMiddleware({ directories: [place], s3: s3Config(proxy.endpoint) });
      const ctx = await turn(middleware, conversation('Run it.'));
      const answer = await callTool(ctx, 'use_skill', { skill_name: 'run' });
      const folder = folderIn(answer);
      expect(answer).toContain('- %2e%2e/evil.sh (script, 24 B; not copied: it holds %-escapes, which may spell `..` or `/`)');
      expect(answer).toContain('- a\\..\\..\\evil.sh (script, 24 B; not copied: it holds a backslash, a folder separator on Windows)');
      expect(answer).toContain('- C:/evil.sh (script, 24 B; not copied: it holds a `:` (a drive or stream name on Windows))');
      expect(answer).toContain('- scripts/x:y.sh (script, 24 B; not copied: it holds a `:` (a drive or stream name on Windows))');
      // Dot names (`..`, `..%2f…`) are never listed at all.
      expect(answer).not.toMatch(/escape\.sh|\.\.%2fevil/);
      const root = middleware.localRoots().at(-1) as string;
      expect(readdirSync(root).filter((name) => !name.startsWith('.'))).toEqual([folder.slice(root.length + 1)]);
      expect(readdirSync(folder).sort()).toEqual(['SKILL.md', 'scripts']);
      expect(readdirSync(join(folder, 'scripts'))).toEqual(['run.py']);
      await middleware.close();
    } finally {
      proxy.planted.clear();
    }
  });
});

describe('a skill that changed since the conversation saw it', () => {
  it('a folder skill edited between turns: use_skill answers the new instructions, saying so; unchanged, "already active"', async () => {
    const root = onDisk({ 'edit/SKILL.md': SKILL('edit', 'Version one.') });
    const options: SkillsOptions = { directories: [root], cacheTtl: 0, keepInView: false };
    const middleware = skillsMiddleware(options);
    const ctx = await turn(middleware, conversation('Edit.'));
    await activateInConversation(ctx, 'edit', 'c1');
    expect(await callTool(ctx, 'use_skill', { skill_name: 'edit' })).toContain('already active');
    writeFileSync(join(root, 'edit/SKILL.md'), SKILL('edit', 'Version two.'));
    ctx.messages.push({ role: 'assistant', content: 'Done.' }, { role: 'user', content: 'Again.' });
    await compose([middleware])(ctx);
    const second = await activateInConversation(ctx, 'edit', 'c2');
    expect(second.split('\n').slice(0, 3)).toEqual([
      '<skill name="edit">',
      CHANGED_LINE,
      `Skill directory: ${realpathSync(join(root, 'edit'))}`,
    ]);
    expect(second).toContain('Version two.');
    expect(ctx.log.find('[skills] activated').at(-1)?.args[1]).toMatchObject({ skill: 'edit', changed: true });
    expect(await callTool(ctx, 'use_skill', { skill_name: 'edit' })).toContain('already active');
  });

  it('with keepInView, the next turn is told before the model runs; a conversation resumed in another process is told its folder', async () => {
    const place = await inBucket({ 'edit/SKILL.md': SKILL('edit', 'Run `bash ${CLAUDE_SKILL_DIR}/go.sh`.'), 'edit/go.sh': 'echo one\n' });
    const options: SkillsOptions = { directories: [place], s3: s3Config(proxy.endpoint), refresh: 50 };
    const middleware = skillsMiddleware(options);
    const ctx = await turn(middleware, conversation('Edit.'));
    const first = await activateInConversation(ctx, 'edit', 'c1');
    ctx.messages.push({ role: 'assistant', content: 'Done.' }, { role: 'user', content: 'Again.' });
    // Unchanged: nothing put in.
    await compose([middleware])(ctx);
    expect(ctx.messages.filter((m) => m.role === 'tool')).toHaveLength(1);
    await bucket.put(`${place.slice(`s3://${bucket.name}/`.length)}/edit/go.sh`, 'echo two\n');
    const lists = proxy.count('list');
    const { until } = await import('./helpers/until.js');
    await until(() => proxy.count('list') >= lists + 2);
    await compose([middleware])(ctx);
    // Put in by the middleware as text (a tool's answer is stored as SISU stores it, JSON).
    const text = ctx.messages.filter((m) => m.role === 'tool').at(-1)?.content as string;
    expect(text.split('\n')[1]).toBe(CHANGED_LINE);
    const folder = folderIn(text);
    expect(folder).not.toBe(folderIn(first));
    expect(existsSync(folderIn(first))).toBe(false);
    expect(ctx.log.find('[skills] kept in view').at(-1)?.args[1]).toMatchObject({
      skills: [expect.objectContaining({ skill: 'edit', changed: true })],
    });
    await middleware.close();

    // The same messages in another process: its copy root differs, so the folder they name is not here.
    const other = skillsMiddleware(options);
    const resumed = createContext({
      messages: [...ctx.messages, { role: 'assistant', content: 'Done.' }, { role: 'user', content: 'Once more.' }],
    });
    await compose([other])(resumed);
    const retold = resumed.messages.filter((m) => m.role === 'tool').at(-1)?.content as string;
    expect(retold.split('\n')[1]).toBe(CHANGED_LINE);
    expect(folderIn(retold).startsWith(other.localRoots().at(-1) as string)).toBe(true);
    expect(getSkills(resumed)?.activated).toEqual(['edit']);
    await other.close();
  });
});

describe('faults', () => {
  it('a copy root that cannot be written: the activation says why and what to do, it is logged with its code, other skills work', async () => {
    const place = await inBucket({ 'run/SKILL.md': SKILL('run', RUN_BODY) });
    const local = onDisk({ 'fine/SKILL.md': SKILL('fine', 'Fine.') });
    const blocker = join(work, `blocker-${++serial}`);
    writeFileSync(blocker, 'a file where the root should be');
    const middleware = skillsMiddleware({
      directories: [place, local],
      s3: s3Config(proxy.endpoint),
      localCopies: join(blocker, 'copies'),
    });
    const ctx = await turn(middleware, conversation('Run it.'));
    const answer = await callTool(ctx, 'use_skill', { skill_name: 'run' });
    expect(answer).toMatch(
      /^Could not activate the skill: cannot copy skill "run" to the local disk: .*blocker-\d+\/copies cannot be written/,
    );
    expect(answer).toMatch(/ \(E[A-Z]+\) while making the copy root: set localCopies.root to a folder this process may write/);
    expect(ctx.log.find('[skills] local copy failed')[0]?.args[1]).toMatchObject({ skill: 'run', code: 'COPY_ROOT_UNWRITABLE' });
    expect(await callTool(ctx, 'use_skill', { skill_name: 'fine' })).toContain('Fine.');
    // A mention gets the same answer in the conversation.
    const mentioned = await turn(middleware, conversation('Use @run please.'));
    const injected = mentioned.messages.filter((m) => m.role === 'tool').map((m) => m.content);
    expect(injected).toHaveLength(1);
    expect(injected[0]).toContain('Could not activate the skill: cannot copy skill');
    expect(getSkills(mentioned)?.activated).toEqual([]);
    await middleware.close();
  });

  it('a read-only copy root (not as root, who may write anyway) fails the same way', async () => {
    const place = await inBucket({ 'run/SKILL.md': SKILL('run', RUN_BODY) });
    const locked = join(work, `locked-${++serial}`);
    mkdirSync(locked, { mode: 0o500 });
    chmodSync(locked, 0o500);
    const middleware = skillsMiddleware({
      directories: [place],
      s3: s3Config(proxy.endpoint),
      localCopies: { root: join(locked, 'copies') },
    });
    const answer = await callTool(await turn(middleware, conversation('Run it.')), 'use_skill', { skill_name: 'run' });
    if (process.getuid?.() === 0) expect(answer).toContain('<skill name="run">');
    else expect(answer).toMatch(/cannot be written \(EACCES\)/);
    await middleware.close();
    chmodSync(locked, 0o700);
  });
});

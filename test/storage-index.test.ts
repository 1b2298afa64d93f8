/**
 * An index published to a bucket or container (`index: 's3://bucket/key'`, `az://container/key`): the first
 * request reads the index alone (one GET); an activation lists the skill's
 * folder and GETs its SKILL.md; each check is one conditional GET answered
 * 304; a republished index reaches a running middleware, conversations go on;
 * an outage keeps the last good library and recovers; an index that cannot be
 * used falls back to listing. Requests are counted at a proxy in front of
 * s3rver and of Azurite: the same tests on both engines.
 */
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { getSkills, skillsMiddleware, type SkillsOptions } from '../src/index.js';
import { cliWithEnvironment } from './helpers/s3/cli.js';
import { ENGINES, publishIndexTo, type EngineContainer, type TestEngine } from './helpers/storage/engines.js';
import { startProxy, type StorageProxy } from './helpers/storage/proxy.js';
import { until as untilEvery } from './helpers/until.js';
import { callTool, compose, conversation, createContext, SKILLS_FIXTURES, type StackContext } from './helpers/stack.js';

describe.each(ENGINES)('an index published on $name', (engine: TestEngine) => {
  let bucket: EngineContainer;
  let proxy: StorageProxy;
  const INDEX_KEY = 'published/skills.index';
  const skillText = (name: string, body = 'Do the thing.') =>
    `---\nname: ${name}\ndescription: The ${name} skill, for published index tests.\n---\n${body}\n`;

  const at = (key: string) => `${engine.scheme}${bucket.name}/${key}`;
  const place = () => at('lib/');
  const indexUrl = () => at(INDEX_KEY);
  const cli = (...argv: string[]) => cliWithEnvironment(engine.cliEnvironment(bucket.endpoint), ...argv);

  /** Build the index over the bucket's lib/ (or `directories`) and put it at INDEX_KEY; see publishIndex for `mustHold`. */
  const publish = (directories: string[] = [place()], mustHold: string[] = []) =>
    publishIndexTo(engine, bucket, INDEX_KEY, directories, mustHold);

  beforeAll(async () => {
    bucket = await engine.makeContainer('published');
    proxy = await startProxy(await engine.server(), engine.dialect);
    await Promise.all(['one', 'two'].map((name) => bucket.put(`lib/${name}/SKILL.md`, skillText(name))));
    await bucket.put('lib/one/references/guide.md', 'The guide.\n');
    await publish();
  });
  afterAll(() => proxy.close());

  const options = (extra: Partial<SkillsOptions> = {}): SkillsOptions => ({
    directories: [place()],
    index: indexUrl(),
    ...engine.options(proxy.endpoint),
    // Long, but where the wait is what a test is about: a first request waits as long as s3rver takes on a loaded machine.
    storageWait: 10_000,
    rankInstructions: false,
    ...extra,
  });

  async function ask(middleware: ReturnType<typeof skillsMiddleware>, ctx = createContext({ messages: conversation('Help me.') })) {
    await compose([middleware])(ctx);
    return ctx;
  }
  const names = (ctx: StackContext): string[] => getSkills(ctx)?.skills.map((s) => s.metadata.name) ?? [];
  const warningsOf = (ctx: StackContext) => ctx.log.find('[skills] warning').map((e) => e.args[1] as { code: string; file: string });
  const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
  const until = (check: () => boolean | Promise<boolean>, ms = 4000) => untilEvery(check, ms, 25);
  const isIndex = (r: { path: string }) => r.path === `/${bucket.name}/${INDEX_KEY}`;
  const NO_INSTRUCTIONS = '[skills] the index holds no instructions: every process GETs each SKILL.md from storage to rank by them';

  describe('a published index', () => {
    it('the first request reads the index alone; an activation lists its folder and GETs its SKILL.md; resources come from that listing', async () => {
      proxy.reset();
      const middleware = skillsMiddleware(options({ refresh: 0 }));
      const ctx = await ask(middleware);
      expect(names(ctx)).toEqual(['one', 'two']);
      expect(proxy.log.map((r) => `${r.op} ${r.path}`)).toEqual([`get /${bucket.name}/${INDEX_KEY}`]);
      proxy.reset();
      expect(await callTool(ctx, 'use_skill', { skill_name: 'one' })).toContain('Do the thing.');
      // Its SKILL.md, and its one resource for the local copy its scripts run from.
      expect(proxy.log.map((r) => r.op).sort()).toEqual(['get', 'get', 'list']);
      expect(await callTool(ctx, 'read_skill_resource', { skill_name: 'one', path: 'references/guide.md' })).toContain('The guide.');
      // The resource's size came from the folder's listing: its GET is the only request more.
      expect(proxy.log.map((r) => r.op).sort()).toEqual(['get', 'get', 'get', 'list']);
      await middleware.close();
    });

    it(
      'a quiet check is one conditional GET answered 304; a republished index reaches a running middleware and the conversation goes on',
      { timeout: 60_000 },
      async () => {
        onTestFinished(async () => {
          await bucket.remove('lib/three/SKILL.md');
          await publish();
        });
        const middleware = skillsMiddleware(options({ refresh: 100 }));
        const talk = await ask(middleware, createContext({ messages: conversation('Use $one.') }));
        expect(await callTool(talk, 'use_skill', { skill_name: 'one' })).toContain('Do the thing.');
        proxy.reset();
        await sleep(250);
        await until(() => proxy.log.some((r) => r.status !== undefined), 10_000);
        // The last check may still be waiting for its answer (no status yet): every answer that came is a 304.
        const answered = proxy.log.filter((r) => r.status !== undefined);
        expect(proxy.log.every((r) => r.op === 'get' && isIndex(r) && r.ifNoneMatch !== undefined)).toBe(true);
        expect(answered.map((r) => r.status)).toEqual(answered.map(() => 304));

        await bucket.put('lib/three/SKILL.md', skillText('three'));
        await bucket.put('lib/one/SKILL.md', skillText('one', 'Edited.'));
        await publish([place()], ['three']);
        // Not a timing claim (s3-refresh's fleet test times propagation): room for a loaded CI machine.
        await until(async () => names(await ask(middleware)).includes('three'), 15_000);
        talk.messages.push({ role: 'user', content: 'And now?' });
        await ask(middleware, talk);
        expect(await callTool(talk, 'use_skill', { skill_name: 'three' })).toContain('Do the thing.');
        // The folder listed under the old index is forgotten: a new conversation reads the edited SKILL.md as it is now.
        const fresh = await ask(middleware);
        expect(await callTool(fresh, 'use_skill', { skill_name: 'one' })).toContain('Edited.');
        await bucket.put('lib/one/SKILL.md', skillText('one'));
        await middleware.close();
        proxy.reset();
        await sleep(250);
        expect(proxy.count()).toBe(0);
      },
    );

    it('an outage: the last good library serves with one warning, and recovers by itself', async () => {
      proxy.reset();
      const middleware = skillsMiddleware(options({ refresh: 100 }));
      expect(names(await ask(middleware))).toEqual(['one', 'two']);
      proxy.faults.down = true;
      const seen: StackContext[] = [];
      await until(async () => {
        const ctx = await ask(middleware);
        seen.push(ctx);
        return ctx.log.find('[skills] storage unavailable; serving the last good library').length > 0;
      });
      await sleep(250);
      seen.push(await ask(middleware));
      expect(seen.every((ctx) => names(ctx).join() === 'one,two')).toBe(true);
      expect(seen.flatMap((ctx) => ctx.log.find('[skills] storage unavailable; serving the last good library'))).toHaveLength(1);
      proxy.faults.down = false;
      await until(async () => (await ask(middleware)).log.find('[skills] storage is back').length > 0, 5000);
      await middleware.close();
    });

    it('unreachable at the first request: the other sources answer within storageWait, and the index comes when storage is back', async () => {
      onTestFinished(() => publish());
      await publish([SKILLS_FIXTURES, place()]);
      proxy.reset();
      proxy.faults.down = true;
      const middleware = skillsMiddleware(options({ directories: [SKILLS_FIXTURES, place()], refresh: 60_000, storageWait: 400 }));
      const first = await ask(middleware);
      expect(names(first)).toEqual(['code-review', 'debug', 'deploy-staging', 'explain', 'test-gen']);
      expect(warningsOf(first)).toEqual([expect.objectContaining({ code: 'STORAGE_UNAVAILABLE', file: indexUrl() })]);
      proxy.faults.down = false;
      await until(async () => names(await ask(middleware)).includes('one'));
      await middleware.close();
    });

    it('an index that cannot be used: missing falls back to listing the places; a damaged republish keeps the last good one', async () => {
      proxy.reset();
      const missing = skillsMiddleware(options({ index: at('nowhere.json'), refresh: 0 }));
      const ctx = await ask(missing);
      expect(names(ctx)).toEqual(['one', 'two']);
      expect(warningsOf(ctx)).toEqual([expect.objectContaining({ code: 'INDEX_UNUSABLE', file: at('nowhere.json') })]);
      expect(proxy.count('list')).toBe(1);
      await missing.close();
      proxy.reset();
      proxy.faults.fail = { count: 1000, status: 403 };
      proxy.faults.only = (r) => isIndex(r);
      const denied = skillsMiddleware(options({ refresh: 0 }));
      const deniedCtx = await ask(denied);
      expect(names(deniedCtx)).toEqual(['one', 'two']);
      expect(deniedCtx.log.find('[skills] warning')[0]?.args[1]).toMatchObject({
        code: 'INDEX_UNUSABLE',
        message: expect.stringContaining(engine.grant('get', bucket.name, INDEX_KEY)),
      });
      await denied.close();
      proxy.reset();

      onTestFinished(() => publish());
      const middleware = skillsMiddleware(options({ refresh: 100 }));
      expect(names(await ask(middleware))).toEqual(['one', 'two']);
      await bucket.put(INDEX_KEY, '{"format": "sisu-skills-index", "version": 2, "opti');
      const damaged = await untilWarned(middleware, 'INDEX_UNUSABLE');
      expect(names(damaged)).toEqual(['one', 'two']);
      await middleware.close();
    });
  });

  describe('sisu-skills index over these sources', () => {
    it('publishes with -o <scheme>://container/key, instructions in by default; a middleware starts from it with one GET; -o a folder: usage', async () => {
      const url = at('cli/skills.index');
      const built = await cli('index', place(), '-o', url);
      expect(built.err).toBe('');
      expect(built.out).toBe(`Wrote ${url}: 2 skills, 0 errors, 0 warnings.`);
      expect(built.code).toBe(0);
      proxy.reset();
      const middleware = skillsMiddleware(options({ index: url, refresh: 0, rankInstructions: true }));
      const ctx = await ask(middleware, createContext({ messages: conversation('Do the thing.') }));
      expect(names(ctx)).toEqual(['one', 'two']);
      // The instructions' terms are in the index: ranking by them reads no SKILL.md, now or in the background.
      await middleware.instructionsRanked();
      expect(proxy.log.map((r) => `${r.op} ${r.path}`)).toEqual([`get /${bucket.name}/cli/skills.index`]);
      expect(ctx.log.find(NO_INSTRUCTIONS)).toEqual([]);
      await middleware.close();
      const folder = await cli('index', place(), '-o', at('cli/'));
      expect(folder.code).toBe(2);
      expect(folder.err).toMatch(/-o [a-z0-9]+:\/\/.* cannot be published to: it names a folder, not an object/);
      expect((await cli('index', place(), '-o', `${engine.scheme}Bad_Bucket/x.json`)).err).toMatch(/is not a (bucket|container) name/);
    });

    it('--no-instructions leaves them out: a process starting from that index says once what reading them costs, then makes those GETs', async () => {
      const url = at('cli/plain.index');
      expect((await cli('index', place(), '-o', url, '--no-instructions')).code).toBe(0);
      proxy.reset();
      const middleware = skillsMiddleware(options({ index: url, refresh: 0, rankInstructions: true }));
      const first = await ask(middleware);
      const second = await ask(middleware);
      expect(first.log.find(NO_INSTRUCTIONS)).toEqual([
        {
          level: 'info',
          args: [
            NO_INSTRUCTIONS,
            { gets: 2, afterFirstRequestMs: expect.any(Number), avoid: expect.stringContaining('sisu-skills index --instructions') },
          ],
        },
      ]);
      expect(second.log.find(NO_INSTRUCTIONS)).toEqual([]);
      // What it said: one GET per SKILL.md, once ranking reads the instructions.
      expect(proxy.count('get', (r) => r.path.endsWith('/SKILL.md'))).toBe(0);
      await middleware.instructionsRanked();
      expect(proxy.count('get', (r) => r.path.endsWith('/SKILL.md'))).toBe(2);
      await middleware.close();
      // Without ranking by the instructions nothing is read, and nothing said.
      const words = skillsMiddleware(options({ index: url, refresh: 0, rankInstructions: false }));
      expect((await ask(words)).log.find(NO_INSTRUCTIONS)).toEqual([]);
      await words.close();
    });
  });

  async function untilWarned(middleware: ReturnType<typeof skillsMiddleware>, code: string): Promise<StackContext> {
    let found: StackContext | undefined;
    await until(async () => {
      const ctx = await ask(middleware);
      if (warningsOf(ctx).some((w) => w.code === code)) found = ctx;
      return found !== undefined;
    });
    return found as StackContext;
  }
});

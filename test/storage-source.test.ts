/**
 * A bucket or a container is a skill source like a folder: the same files
 * give the same skills, catalog, activation answers and diagnostics, read
 * from disk or from real storage (S3 on s3rver, Azure Blob on Azurite, each
 * behind a counting proxy), and the reads cost what they must.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoverSkills, getSkills, skillsMiddleware, type SkillsOptions } from '../src/index.js';
import type { DiscoveryResult } from '../src/base/model.js';
import { cliWithEnvironment } from './helpers/s3/cli.js';
import { ENGINES, type EngineContainer, type TestEngine } from './helpers/storage/engines.js';
import { startProxy, type StorageProxy } from './helpers/storage/proxy.js';
import { callTool, compose, conversation, createContext, INVALID_FIXTURES, SKILLS_FIXTURES, type StackContext } from './helpers/stack.js';

async function request(options: SkillsOptions, user = 'Please review my code.'): Promise<StackContext> {
  const middleware = skillsMiddleware(options);
  const ctx = createContext({ messages: conversation(user) });
  await compose([middleware])(ctx);
  await middleware.close();
  return ctx;
}

/** The text of a ctx's catalog, with each source's location made the same. */
function systemText(ctx: StackContext, location: string): string {
  return (ctx.messages[0]?.content ?? '').split(location).join('<root>');
}

describe.each(ENGINES)('a bucket as a skill source, on $name', (engine: TestEngine) => {
  let bucket: EngineContainer;
  let proxy: StorageProxy;
  let place: string;
  const at = (path: string) => `${engine.scheme}${bucket.name}/${path}`;
  const connection = () => engine.options(proxy.endpoint);

  beforeAll(async () => {
    bucket = await engine.makeContainer('source');
    proxy = await startProxy(await engine.server(), engine.dialect);
    await bucket.upload(SKILLS_FIXTURES, 'team/skills/');
    await bucket.upload(INVALID_FIXTURES, 'team/invalid/');
    place = at('team/skills/');
  });
  afterAll(() => proxy.close());

  it('gives the same skills, resources and catalog as the same files on disk', async () => {
    const disk = await discoverSkills({ directories: [SKILLS_FIXTURES] });
    const remote = await discoverSkills({ directories: [place], ...connection() });
    const root = place.slice(0, -1);
    const shape = (result: DiscoveryResult, from: string) =>
      result.skills.map((s) => ({
        metadata: s.metadata,
        path: s.path.replace(from, '<root>'),
        instructions: s.instructions,
        line: s.instructionsLine,
        resources: s.resources.map((r) => ({ ...r, absolutePath: r.absolutePath.replace(from, '<root>') })),
      }));
    expect(shape(remote, root)).toEqual(shape(disk, SKILLS_FIXTURES));
    expect(remote.errors).toEqual([]);
    expect(remote.warnings).toEqual([]);
    const fromDisk = await request({ directories: [SKILLS_FIXTURES] });
    const fromBucket = await request({ directories: [place], ...connection() });
    expect(getSkills(fromBucket)?.skills.map((s) => s.metadata)).toEqual(getSkills(fromDisk)?.skills.map((s) => s.metadata));
    expect(systemText(fromBucket, root)).toBe(systemText(fromDisk, SKILLS_FIXTURES));
  });

  it('reads each SKILL.md once at the first request, with a ranged GET, and resources from the listing', async () => {
    proxy.reset();
    const middleware = skillsMiddleware({ directories: [place], ...connection(), rankInstructions: false });
    const ctx = createContext({ messages: conversation('Please review my code.') });
    await compose([middleware])(ctx);
    const skillGets = proxy.log.filter((r) => r.op === 'get' && r.path.endsWith('/SKILL.md'));
    expect(proxy.count('list')).toBe(1);
    expect(skillGets).toHaveLength(5);
    expect(new Set(skillGets.map((r) => r.path)).size).toBe(5);
    expect(skillGets.every((r) => r.range === 'bytes=0-4095')).toBe(true);
    expect(proxy.count('head')).toBe(0);

    // Activation lists resources from the listing (no request to list them); the instructions come with one GET,
    // and each resource with one more, for the skill's local copy. A second activation reads nothing.
    proxy.reset();
    const answer = await callTool(ctx, 'use_skill', { skill_name: 'code-review' });
    expect(answer).toContain('references/');
    const skill = `/${bucket.name}/team/skills/code-review`;
    const requests = proxy.log.map((r) => `${r.op} ${r.path}`);
    expect(requests.filter((r) => !r.endsWith('/SKILL.md'))).toEqual([`get ${skill}/references/checklist.md`]);
    // None when the first ranged read held the whole file (4 KB or less).
    expect(requests.filter((r) => r.endsWith('/SKILL.md')).length).toBeLessThanOrEqual(1);
    proxy.reset();
    const again = createContext({ messages: conversation('Review it again.') });
    await compose([middleware])(again);
    await callTool(again, 'use_skill', { skill_name: 'code-review' });
    expect(proxy.log).toEqual([]);
    await middleware.close();
  });

  it("names the object's URL with line and column in diagnostics", async () => {
    const ctx = await request({ directories: [at('team/invalid')], ...connection() });
    const warned = ctx.log.find('[skills] skipped').map((e) => e.args[1] as { file: string; line: number; column: number });
    const local = await request({ directories: [INVALID_FIXTURES] });
    const expected = local.log.find('[skills] skipped').map((e) => e.args[1] as { file: string });
    expect(warned.length).toBe(expected.length);
    expect(warned.map((d) => d.file).sort()).toEqual(expected.map((d) => d.file.replace(INVALID_FIXTURES, at('team/invalid'))).sort());
    expect(warned.some((d) => d.line > 0 && d.column > 0)).toBe(true);
  });

  it("confines read_skill_resource to the skill's prefix, refuses secrets and sizes files from the listing", async () => {
    const skill = '---\nname: conf\ndescription: Confinement test skill for bucket keys.\n---\nRead references/a.md.\n';
    await Promise.all([
      bucket.put('conf/skills/conf/SKILL.md', skill),
      bucket.put('conf/skills/conf/references/a.md', 'line one\nline two\n'),
      bucket.put('conf/skills/conf/references/big.txt', 'x'.repeat(4000)),
      bucket.put('conf/skills/conf/.env', 'TOKEN=1'),
      bucket.put('conf/skills/conf/credentials.json', '{}'),
      bucket.put('conf/skills/outside.md', 'not part of the skill'),
      bucket.put('conf/private.md', 'outside the place'),
    ]);
    const middleware = skillsMiddleware({
      directories: [at('conf/skills')],
      ...connection(),
      maxFileSize: 1000,
    });
    const ctx = createContext({ messages: conversation('Use $conf please.') });
    await compose([middleware])(ctx);
    const listing = await callTool(ctx, 'use_skill', { skill_name: 'conf' });
    expect(listing).toContain('references/a.md');
    expect(listing).not.toContain('.env');
    expect(listing).not.toContain('credentials');
    proxy.reset();
    const read = (path: string) => callTool(ctx, 'read_skill_resource', { skill_name: 'conf', path });
    expect(await read('references/a.md')).toContain('line two');
    const refused = [
      '../outside.md',
      '../../private.md',
      '%2e%2e/outside.md',
      '..%2foutside.md',
      '/conf/private.md',
      at('conf/private.md'),
      '.env',
      'credentials.json',
    ];
    for (const path of refused) expect(await read(path), path).not.toMatch(/not part of the skill|outside the place|TOKEN/);
    expect(await read('references/big.txt')).toMatch(/over the .* limit/);
    // Only references/a.md was downloaded: every refusal, the size one included, was decided without a byte.
    expect(proxy.log.filter((r) => r.op === 'get').map((r) => r.path)).toEqual([`/${bucket.name}/conf/skills/conf/references/a.md`]);
    await middleware.close();
  });

  it("the CLI reads the engine's sources with the SDK's environment (validate, list, show, prompt)", async () => {
    const cli = (...argv: string[]) => cliWithEnvironment(engine.cliEnvironment(proxy.endpoint), ...argv);
    const listed = await cli('list', place);
    expect(listed.code).toBe(0);
    for (const name of ['code-review', 'debug', 'deploy-staging', 'explain', 'test-gen']) expect(listed.out).toContain(name);
    expect((await cli('validate', place)).code).toBe(0);
    expect((await cli('show', 'debug', place)).out).toContain('scripts/collect-env.py');
    expect((await cli('prompt', place)).out).toContain('code-review');
    // A bucket that does not exist is a source that cannot be read: an error, and nothing written by index.
    const missing = await cli('list', `${engine.scheme}no-such-bucket-cli/skills/`);
    expect(missing.code).toBe(1);
    expect(missing.out + missing.err).toMatch(new RegExp(`STORAGE_ACCESS .*${engine.containerWord} "no-such-bucket-cli" does not exist`));
    expect((await cli('index', `${engine.scheme}no-such-bucket-cli/skills/`, '-o', at('never.json'))).code).toBe(1);
    const bad = await cli('validate', at('team/invalid'));
    expect(bad.code).toBe(1);
    expect(bad.out).toContain(`${at('team/invalid/unclosed-frontmatter/SKILL.md')}:`);
    expect(bad.out).toMatch(/unclosed-frontmatter\/SKILL.md:\d+:\d+ error/);
  });
});

describe('the storage options, checked at construction with a fix in each error', () => {
  const place = 's3://bucket/skills/';
  const container = 'az://skills/team/';
  it.each([
    [{ directories: ['s3://Bad_Bucket/x'] }, /`directories\[0\]` .* is not a bucket name/],
    [{ directories: ['s3://bucket/../x'] }, /cannot hold `\.` or `\.\.`/],
    [{ directories: ['./skills'], s3: { region: 'eu-west-1' } }, /`s3` is set, but no source is in a bucket/],
    [{ directories: [place], index: 's3://bucket/indexes/' }, /`index` .* names a folder, not an object/],
    [{ directories: [place], index: 's3://Bad_Bucket/index.json' }, /`index` .* is not a bucket name/],
    [{ directories: [place], refresh: -1 }, /`refresh` must be a whole number of milliseconds/],
    [{ directories: [place], storageWait: 1.5 }, /`storageWait` must be a whole number/],
    [{ directories: [place], s3: 'us-east-1' as never }, /`s3` must be an S3Client or an S3ClientConfig/],
    [{ directories: ['az://Bad_Container/x'], azure: { connectionString: 'c' } }, /`directories\[0\]` .* is not a container name/],
    [{ directories: ['az://ab--cd/x'], azure: { connectionString: 'c' } }, /is not a container name/],
    [{ directories: ['az://skills/../x'], azure: { connectionString: 'c' } }, /cannot hold `\.` or `\.\.`/],
    [{ directories: ['./skills'], azure: { connectionString: 'c' } }, /`azure` is set, but no source is in an Azure container/],
    [{ directories: [container], azure: { connectionString: 'c' }, index: 'az://skills/indexes/' }, /`index` .* names a folder/],
    [{ directories: [container], azure: 'UseDevelopmentStorage=true' as never }, /`azure` must be a ContainerClient, a BlobServiceClient/],
    [
      { directories: [container], azure: { url: 'https://acct.blob.core.windows.net', credential: 'key' } },
      /`azure.credential` is not a credential/,
    ],
  ] as Array<[SkillsOptions, RegExp]>)('%j', (options, message) => {
    expect(() => skillsMiddleware(options)).toThrow(message);
  });

  it('an az:// source with no `azure` option and no AZURE_STORAGE_CONNECTION_STRING says what to set', () => {
    const saved = process.env.AZURE_STORAGE_CONNECTION_STRING;
    delete process.env.AZURE_STORAGE_CONNECTION_STRING;
    try {
      expect(() => skillsMiddleware({ directories: [container] })).toThrow(
        /set AZURE_STORAGE_CONNECTION_STRING, or pass the `azure` option/,
      );
    } finally {
      if (saved !== undefined) process.env.AZURE_STORAGE_CONNECTION_STRING = saved;
    }
  });
});

/**
 * sisu-skills: most cases run in-process through runCli (fast, counted by
 * coverage); a second suite builds the package with the real tsup config into
 * a private folder and runs the built binary as a user would.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, type CliIO } from '../src/cli/run.js';
import { buildCatalog, catalogEntries } from '../src/catalog/catalog.js';
import { discoverSkills, skillsMiddleware } from '../src/index.js';
import { cli, exec, PACKAGE, ROOT, useBuiltBinary, useTempFolder, writeSkill } from './helpers/cli.js';
import { createContext, FIXTURE_SKILL_NAMES, INVALID_FIXTURES, SKILLS_FIXTURES } from './helpers/stack.js';

const temp = useTempFolder('mw-skills-cli-');

const skillsRel = relative(ROOT, SKILLS_FIXTURES);
const invalidRel = relative(ROOT, INVALID_FIXTURES);

describe('sisu-skills (in-process)', () => {
  it('--help prints usage on stdout; --version prints the package version', async () => {
    const help = await cli(['--help']);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    for (const command of ['list', 'validate', 'show', 'prompt']) expect(help.stdout).toContain(`sisu-skills ${command}`);
    expect((await cli(['help'])).stdout).toBe(help.stdout);
    expect(await cli(['--version'])).toEqual({ code: 0, stdout: `${PACKAGE.version}\n`, stderr: '' });
    expect((await cli(['-v'])).stdout).toBe(`${PACKAGE.version}\n`);
  });

  it("<command> --help and help <command> print that command's options", async () => {
    const own = await cli(['validate', '--help']);
    expect(own.code).toBe(0);
    expect(own.stdout).toMatch(/^Usage: sisu-skills validate <dir\.\.\.> \[--package <name>\] \[--json\] \[--strict\]/);
    expect((await cli(['help', 'validate'])).stdout).toBe(own.stdout);
    expect((await cli(['show', '-h'])).stdout).toContain('--dir, -d');
  });

  it("show's help and the full usage say it prints exactly what the middleware's use_skill answers with default options", async () => {
    const promise = "exactly what the middleware's use_skill answers with default options";
    const own = (await cli(['show', '--help'])).stdout;
    expect(own).toContain(promise);
    // And which options a configured middleware would answer differently under.
    expect(own).toMatch(/maxListedResources or maxInstructionChars/);
    expect((await cli(['--help'])).stdout).toMatch(new RegExp(`^  show +Print a skill's frontmatter, then ${promise}\\.$`, 'm'));
  });

  it.each([
    [[], /no command given/],
    [['frobnicate'], /unknown command "frobnicate"/],
    [['--frobnicate'], /unknown option "--frobnicate"/],
    [['help', 'frobnicate'], /unknown command "frobnicate"/],
    [['list', '--bogus', 'x'], /list: Unknown option '--bogus'/],
    [['list'], /list: give at least one skills folder/],
    [['prompt', '--json', 'x'], /prompt: Unknown option '--json'/],
    [['show', 'debug'], /show: say where to look/],
    [['show', '--dir', 'x'], /show: give the skill name/],
    [['show', 'a', '--dir'], /show: Option '-d, --dir <value>' argument missing/],
    [['validate', ''], /directories\[0\]` must be a non-empty string/],
    [['prompt', 'x', '--budget', 'lots'], /--budget takes a number of characters, got "lots"/],
  ])('usage error %j: message and usage on stderr, exit 2', async (argv, message) => {
    const result = await cli(argv);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toMatch(/Usage/);
  });

  it("a usage error inside a command shows that command's usage", async () => {
    const { stderr } = await cli(['show', 'debug']);
    expect(stderr).toContain('Usage: sisu-skills show <name> <dir...>');
    expect(stderr).not.toContain('sisu-skills list');
  });

  it('list prints one line per skill, name and one-line description', async () => {
    const { code, stdout, stderr } = await cli(['list', skillsRel]);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    const lines = stdout.trimEnd().split('\n');
    expect(lines.map((line) => line.split(/\s+/)[0])).toEqual([...FIXTURE_SKILL_NAMES]);
    // Name, the folder it came from, description.
    expect(
      lines[0]?.startsWith(
        `code-review     ${skillsRel}  Reviews a code change for correctness, security, readability and test coverage, and reports`,
      ),
    ).toBe(true);
  });

  it('list --json gives names, paths and resources', async () => {
    const { code, stdout } = await cli(['list', '--json', SKILLS_FIXTURES]);
    expect(code).toBe(0);
    const skills = JSON.parse(stdout) as Array<{ name: string; path: string; modelInvocable: boolean; resources: Array<{ path: string }> }>;
    expect(skills.map((s) => s.name)).toEqual([...FIXTURE_SKILL_NAMES]);
    expect(skills[0]).toMatchObject({ path: join(SKILLS_FIXTURES, 'code-review', 'SKILL.md'), modelInvocable: true });
    expect(skills[0]?.resources.map((r) => r.path)).toContain('references/checklist.md');
  });

  it('list says on stderr when skills were left out, and when there are none', async () => {
    const mixed = await cli(['list', invalidRel]);
    // Its output is incomplete: errors left skills out.
    expect(mixed.code).toBe(1);
    expect(mixed.stdout.trimEnd().split('\n')).toHaveLength(1); // Bad_Name loads with a warning
    expect(mixed.stderr).toContain(`5 errors left skills out; run \`sisu-skills validate ${invalidRel}\` for details.`);
    const empty = await mkdtemp(join(temp.path, 'empty-'));
    expect(await cli(['list', empty])).toEqual({ code: 0, stdout: '', stderr: `No skills found in ${empty}.\n` });
  });

  it('validate prints file:line:column code message per diagnostic, a summary, and exits 1 on errors', async () => {
    const { code, stdout } = await cli(['validate', invalidRel]);
    expect(code).toBe(1);
    const lines = stdout.trimEnd().split('\n');
    expect(lines).toContain(
      `${join(invalidRel, 'tags-as-string', 'SKILL.md')}:4:1 error METADATA_INVALID ` +
        `tags: must be a list of strings, e.g. \`tags: [pdf, forms]\`, got a string.`,
    );
    expect(lines).toContain(
      `${join(invalidRel, 'unclosed-frontmatter', 'SKILL.md')}:1:1 error FRONTMATTER_UNCLOSED frontmatter opened with --- on line 1 is never closed`,
    );
    // Problems, then one indented line per folder given (which editors' problem matchers skip), then the verdict.
    const problems = lines.slice(0, -2);
    expect(problems.every((line) => /^\S+:\d+:\d+ (error|warning) [A-Z_]+ \S/.test(line))).toBe(true);
    expect(lines.at(-2)).toBe(`  folder ${invalidRel}: 1 skill`);
    expect(lines.at(-1)).toBe('FAILED: 1 skill loaded from 1 directory, 5 errors, 1 warning.');
    // Sorted by file, so an editor's problem list reads top to bottom.
    const files = problems.map((line) => line.split(':')[0] ?? '');
    expect(files).toEqual([...files].sort());
  });

  it('validate exits 0 with only warnings, and --strict fails them', async () => {
    const root = await mkdtemp(join(temp.path, 'warn-'));
    await writeSkill(root, 'Shouty', 'name: Shouty\ndescription: Loads, with a naming warning.');
    const relaxed = await cli(['validate', root]);
    expect(relaxed.code).toBe(0);
    expect(relaxed.stdout).toMatch(/^\S+Shouty\/SKILL\.md:2:1 warning NAME_FORMAT /);
    expect(relaxed.stdout).toContain('OK: 1 skill loaded from 1 directory, 0 errors, 1 warning.');
    const strict = await cli(['validate', '--strict', root]);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toContain('FAILED: 0 skills loaded from 1 directory, 1 error, 0 warnings.');
    // A warning strict mode does not turn into an error still fails under --strict.
    const dup = await mkdtemp(join(temp.path, 'dup-'));
    const other = await mkdtemp(join(temp.path, 'dup-other-'));
    await writeSkill(dup, 'twin', 'name: twin\ndescription: First.');
    await writeSkill(other, 'twin', 'name: twin\ndescription: Second.');
    expect((await cli(['validate', dup, other])).code).toBe(0);
    const strictDup = await cli(['validate', '--strict', dup, other]);
    expect(strictDup.code).toBe(1);
    expect(strictDup.stdout).toContain('SKILL_DUPLICATE');
    expect(strictDup.stdout).toContain('1 warning (--strict fails on warnings).');
  });

  it('validate: all fixtures pass', async () => {
    const { code, stdout } = await cli(['validate', skillsRel]);
    expect(code).toBe(0);
    expect(stdout).toBe(`  folder ${skillsRel}: 5 skills\nOK: 5 skills loaded from 1 directory, 0 errors, 0 warnings.\n`);
  });

  it('validate --json is machine-readable and keeps absolute paths and severities', async () => {
    const { code, stdout } = await cli(['validate', '--json', invalidRel]);
    expect(code).toBe(1);
    const report = JSON.parse(stdout) as {
      ok: boolean;
      strict: boolean;
      directories: string[];
      counts: { skills: number; errors: number; warnings: number };
      skills: Array<{ name: string }>;
      diagnostics: Array<{ code: string; severity: string; file: string; line: number; column: number; message: string }>;
    };
    expect(report).toMatchObject({
      ok: false,
      strict: false,
      directories: [INVALID_FIXTURES],
      counts: { skills: 1, errors: 5, warnings: 1 },
    });
    expect(report.skills).toEqual([
      { name: 'Bad_Name', path: join(INVALID_FIXTURES, 'Bad_Name', 'SKILL.md'), origin: { kind: 'folder', directory: INVALID_FIXTURES } },
    ]);
    expect(report.diagnostics).toContainEqual(
      expect.objectContaining({
        code: 'NAME_FORMAT',
        severity: 'warning',
        file: join(INVALID_FIXTURES, 'Bad_Name', 'SKILL.md'),
        line: 2,
        column: 1,
      }),
    );
    const strict = JSON.parse((await cli(['validate', '--json', '--strict', invalidRel])).stdout) as { ok: boolean; counts: object };
    expect(strict).toMatchObject({ ok: false, counts: { skills: 0, errors: 6, warnings: 0 } });
    expect(JSON.parse((await cli(['validate', '--json', skillsRel])).stdout)).toMatchObject({ ok: true, diagnostics: [] });
  });

  it('a folder named on the command line that does not exist is an error', async () => {
    const missing = join(temp.path, 'no-such-folder');
    const validate = await cli(['validate', missing, skillsRel]);
    expect(validate.code).toBe(1);
    expect(validate.stdout).toContain(`${missing} error DIRECTORY_NOT_FOUND skills directory does not exist.`);
    expect(validate.stdout).toContain('5 skills loaded from 2 directories, 1 error, 0 warnings.');
    for (const argv of [
      ['list', missing],
      ['prompt', missing],
      ['show', 'debug', '--dir', missing],
    ]) {
      const result = await cli(argv);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain('DIRECTORY_NOT_FOUND');
    }
  });

  it('prompt prints exactly the catalog the middleware renders', async () => {
    const { code, stdout, stderr } = await cli(['prompt', skillsRel]);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    // What the middleware puts into a conversation that has no system message yet.
    const ctx = createContext({ messages: [] });
    await skillsMiddleware({ directories: [SKILLS_FIXTURES] })(ctx, async () => {});
    expect(stdout).toBe(`${ctx.messages[0]?.content}\n`);
  });

  it('prompt --budget and --query give the budgeted catalog the middleware renders for that request', async () => {
    const { skills } = await discoverSkills({ directories: [SKILLS_FIXTURES] });
    const entries = catalogEntries(skills);
    for (const [budget, mode] of [
      [1000, 'shortened'],
      [600, 'names'],
    ] as const) {
      const result = await cli(['prompt', skillsRel, '--budget', String(budget)]);
      expect(result.code).toBe(0);
      expect(buildCatalog(entries, { budget }).report.mode).toBe(mode);
      expect(result.stdout).toBe(`${buildCatalog(entries, { budget }).text}\n`);
      expect(result.stdout.length).toBeLessThanOrEqual(budget + 1);
    }
    const query = 'deploy this branch to staging';
    const ranked = await cli(['prompt', skillsRel, '--budget', '600', '--query', query]);
    expect(ranked.stdout).toBe(`${buildCatalog(entries, { budget: 600, query }).text}\n`);
    const nothing = await cli(['prompt', skillsRel, '--budget', '0']);
    expect(nothing).toMatchObject({ code: 0, stdout: '' });
  });

  it('prompt and list leave out skills with disable-model-invocation from the catalog only', async () => {
    const root = await mkdtemp(join(temp.path, 'hidden-'));
    await writeSkill(root, 'visible', 'name: visible\ndescription: Shown to the model.');
    await writeSkill(root, 'manual-only', 'name: manual-only\ndescription: Only by @ mention.\ndisable-model-invocation: true');
    const prompt = await cli(['prompt', root]);
    expect(prompt.stdout).toContain('- visible: Shown to the model.');
    expect(prompt.stdout).not.toContain('manual-only');
    const list = await cli(['list', root]);
    expect(list.stdout).toContain(`manual-only  ${root}  Only by @ mention. [not in catalog: disable-model-invocation]`);
    const show = await cli(['show', 'manual-only', '--dir', root]);
    expect(show.stdout).toContain('catalog: not listed (disable-model-invocation); activate it with @manual-only or the always option');
    expect(show.stdout).toContain('disable-model-invocation: true');
    const onlyHidden = await mkdtemp(join(temp.path, 'only-hidden-'));
    await writeSkill(onlyHidden, 'manual-only', 'name: manual-only\ndescription: Only by @ mention.\ndisable-model-invocation: "true"');
    expect(await cli(['prompt', onlyHidden])).toEqual({
      code: 0,
      stdout: '',
      stderr: 'No skills the model may invoke (all have disable-model-invocation): the middleware adds no catalog section.\n',
    });
  });

  it('show prints the frontmatter and exactly what use_skill returns', async () => {
    const { code, stdout } = await cli(['show', 'code-review', '--dir', skillsRel]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^name: code-review\ndescription: Reviews a code change/);
    expect(stdout).toContain('license: Apache-2.0\n');
    expect(stdout).toContain('tags: ["review","quality","security"]\n');
    expect(stdout).toContain(`file: ${join(skillsRel, 'code-review', 'SKILL.md')}\n`);
    expect(stdout).toContain('catalog: listed; the model activates it with use_skill');
    const activation = stdout.slice(stdout.indexOf('What use_skill returns:\n') + 'What use_skill returns:\n'.length);
    // The folder as an absolute path, whatever it holds (a clone's path may have spaces).
    const head = `<skill name="code-review">\nSkill directory: ${join(ROOT, skillsRel, 'code-review')}\n\n# Code Review`;
    expect(activation.slice(0, head.length)).toBe(head);
    expect(activation.trimEnd().endsWith('</skill>')).toBe(true);
  });

  it('show --json and repeated --dir (the first folder wins, as in the middleware)', async () => {
    const root = await mkdtemp(join(temp.path, 'override-'));
    await writeSkill(root, 'debug', 'name: debug\ndescription: My own debug skill.', 'MY DEBUG');
    const { code, stdout } = await cli(['show', 'debug', '-d', root, '--dir', SKILLS_FIXTURES, '--json']);
    expect(code).toBe(0);
    const shown = JSON.parse(stdout) as { name: string; description: string; directory: string; activation: string };
    expect(shown).toMatchObject({ name: 'debug', description: 'My own debug skill.', directory: join(root, 'debug') });
    expect(shown.activation).toContain('MY DEBUG');
  });

  it('show: unknown names get the closest names; skipped skills get their error', async () => {
    const typo = await cli(['show', 'debgu', '--dir', skillsRel]);
    expect(typo).toMatchObject({ code: 1, stdout: '' });
    // The ranking itself is closestNames' (tested with it); the CLI shows its first five, nearest first.
    expect(typo.stderr).toMatch(/^Skill "debgu" not found\. Closest: debug(, [a-z-]+){4}\.\n$/);
    const broken = await cli(['show', 'tags-as-string', '--dir', invalidRel]);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain('Skill "tags-as-string" did not load:\n');
    expect(broken.stderr).toContain('METADATA_INVALID');
    const empty = await mkdtemp(join(temp.path, 'none-'));
    expect((await cli(['show', 'x', '--dir', empty])).stderr).toMatch(/^Skill "x" not found: no skills in \//);
  });

  it('paths outside the working directory stay absolute', async () => {
    const root = await mkdtemp(join(temp.path, 'abs-'));
    await writeSkill(root, 'broken', 'name: broken\ndescription: [unclosed');
    const { stdout } = await cli(['validate', root], SKILLS_FIXTURES);
    expect(stdout.startsWith(`${join(root, 'broken', 'SKILL.md')}:`)).toBe(true);
  });

  it('an unexpected failure is reported on stderr with exit 1', async () => {
    const io: CliIO = {
      out: () => {
        throw new Error('stdout is gone');
      },
      err: () => {},
      cwd: ROOT,
    };
    expect(await runCli(['--version'], io)).toBe(1);
  });
});

describe('sisu-skills (built binary)', () => {
  const built = useBuiltBinary('mw-skills-cli-');

  it('is an executable ESM file with a node shebang', async () => {
    const text = await readFile(built.bin, 'utf8');
    expect(text.startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect((await stat(built.bin)).mode & 0o111).not.toBe(0);
    // Runs directly, through the shebang, as npx runs it.
    const { stdout } = await exec(built.bin, ['--version']);
    expect(stdout).toBe(`${PACKAGE.version}\n`);
  });

  it('exit codes: 0 ok, 1 problems, 2 usage', async () => {
    expect((await built.run(['validate', skillsRel])).code).toBe(0);
    const invalid = await built.run(['validate', invalidRel]);
    expect(invalid.code).toBe(1);
    expect(invalid.stdout).toContain(
      `${join(invalidRel, 'missing-description', 'SKILL.md')}:1:1 error METADATA_REQUIRED description: is missing.`,
    );
    const usage = await built.run(['lsit', skillsRel]);
    expect(usage.code).toBe(2);
    expect(usage.stdout).toBe('');
    expect(usage.stderr).toMatch(/unknown command "lsit"[\s\S]*Usage:/);
  });

  it("over a bucket on Node below 22, prints the AWS SDK's NodeVersionSupportWarning once: the tests keep it out of their own workers only", async () => {
    const closed = await closedPort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${closed}`,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'key',
      AWS_SECRET_ACCESS_KEY: 'secret',
    };
    // vitest.config.ts sets it for the test workers; a user's process has no such variable.
    delete env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED;
    const run = await exec(process.execPath, [built.bin, 'list', 's3://skills-bucket/lib/'], { env }).then(
      () => ({ stdout: '', stderr: '' }),
      (error: { stdout: string; stderr: string }) => error,
    );
    // The SDK was loaded and asked: the storage did not answer.
    expect(`${run.stdout}${run.stderr}`).toContain('STORAGE_UNAVAILABLE');
    const warnings = run.stderr.match(/Warning: NodeVersionSupportWarning/g) ?? [];
    expect(warnings).toHaveLength(Number(process.versions.node.split('.')[0]) < 22 ? 1 : 0);
  });

  it('prompt, list and show give the same output as in-process', async () => {
    for (const argv of [
      ['prompt', skillsRel],
      ['list', skillsRel],
      ['show', 'explain', '--dir', skillsRel],
      ['validate', '--json', invalidRel],
    ]) {
      const fromBinary = await built.run(argv);
      const inProcess = await cli(argv);
      expect(fromBinary).toEqual(inProcess);
    }
  });

  it('stops quietly, exit code 0, when the reader closes the pipe early (`sisu-skills list dir | head -1`)', async () => {
    // Far more output than a pipe buffers, so the binary is still writing when the pipe closes.
    const many = join(temp.path, 'many');
    await Promise.all(
      Array.from({ length: 1500 }, (_, i) =>
        writeSkill(many, `skill-${i}`, `name: skill-${i}\ndescription: ${'Does one numbered task well. '.repeat(4)}`),
      ),
    );
    const child = spawn(process.execPath, [built.bin, 'list', many], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    let firstChunk = '';
    child.stdout.once('data', (chunk: Buffer) => {
      firstChunk = chunk.toString();
      child.stdout.destroy();
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(firstChunk).toMatch(/^skill-0 /);
    expect(stderr).toBe('');
    expect(code).toBe(0);
  }, 60_000);

  it('npm pack would ship dist/cli.js as the sisu-skills bin', async () => {
    const { stdout } = await exec('npm', ['pack', '--dry-run', '--json'], { cwd: built.pack });
    const [packed] = JSON.parse(stdout) as Array<{ files: Array<{ path: string; mode: number }> }>;
    const cliFile = packed?.files.find((file) => file.path === 'dist/cli.js');
    expect(cliFile).toBeDefined();
    expect((cliFile?.mode ?? 0) & 0o111).not.toBe(0);
    expect(PACKAGE.bin).toEqual({ 'sisu-skills': './dist/cli.js' });
  });
});

/** A port on 127.0.0.1 that nothing listens on: one the system just gave out and took back. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

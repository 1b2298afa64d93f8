/**
 * `sisu-skills index` (issue 13's build step): the file the built binary
 * writes reads back as what discovery finds with the same options, and a
 * middleware given `index:` starts from it; what it refuses (usage: 2; a
 * folder or package named that cannot be read, or a file it cannot write: 1,
 * leaving any existing index as it was); and that the file is replaced whole.
 */
import { mkdir, mkdtemp, open, readdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { temporaryPathFor, writeFileAtomically, type AtomicWriteFs } from '../src/cli/write-atomic.js';
import { nodeFileSystem } from '../src/base/fs.js';
import { discoverSkills, skillsMiddleware } from '../src/index.js';
import type { DiscoveryShape } from '../src/index/prebuilt/format.js';
import { readPrebuiltIndex } from './helpers/prebuilt.js';
import type { SkillsOptions } from '../src/run/options.js';
import type { SkillEntry } from '../src/base/model.js';
import { cli, useBuiltBinary, useTempFolder } from './helpers/cli.js';
import { runCli } from '../src/cli/run.js';
import { callTool, compose, conversation, createContext } from './helpers/stack.js';

const temp = useTempFolder('mw-skills-cli-index-');

function skillMd(name: string, description = `Does ${name} things. Use when asked about ${name}.`): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\n\nSteps for ${name}.\n`;
}

async function put(path: string, text: string): Promise<void> {
  await mkdir(join(path, '..'), { recursive: true });
  await writeFile(path, text);
}

/**
 * An app folder: skills/ with a skill holding references, one nested in a
 * category folder, one broken (no description: an error) and one misnamed (a
 * warning); more/ with a clash; and node_modules/@acme/team-skills, a package.
 */
async function app(): Promise<string> {
  const root = await mkdtemp(join(temp.path, 'app-'));
  await put(join(root, 'skills/pdf-tools/SKILL.md'), skillMd('pdf-tools', 'Fill PDF forms. Use for PDFs.'));
  await put(join(root, 'skills/pdf-tools/references/guide.md'), '# Guide\n');
  await put(join(root, 'skills/devops/deploy/SKILL.md'), skillMd('deploy'));
  await put(join(root, 'skills/broken/SKILL.md'), '---\nname: broken\n---\nNo description.\n');
  await put(join(root, 'skills/Misnamed/SKILL.md'), skillMd('other-name'));
  await put(join(root, 'more/pdf-tools/SKILL.md'), skillMd('pdf-tools', 'A second PDF skill, hidden by the first.'));
  await put(join(root, 'more/explain/SKILL.md'), skillMd('explain'));
  const team = join(root, 'node_modules/@acme/team-skills');
  await put(join(team, 'package.json'), JSON.stringify({ name: '@acme/team-skills', version: '1.2.3' }));
  await put(join(team, 'skills/invoice-chaser/SKILL.md'), skillMd('invoice-chaser'));
  return root;
}

const ARGS = ['skills', 'more', '--package', '@acme/team-skills'];

/** What the middleware resolves `ARGS` to, as readPrebuiltIndex compares it. */
function shapeOf(root: string, extra: Partial<DiscoveryShape> = {}): DiscoveryShape & { fs: typeof nodeFileSystem } {
  return {
    directories: [join(root, 'skills'), join(root, 'more')],
    packages: ['@acme/team-skills'],
    include: [],
    exclude: [],
    strict: false,
    fs: nodeFileSystem,
    ...extra,
  };
}

/** What an index holds of each skill (bodies and resources are read at activation). */
function heads(skills: readonly SkillEntry[]): SkillEntry[] {
  return skills.map(({ metadata, path, directory }) => ({ metadata, path, directory }));
}

describe('sisu-skills index: usage (exit 2)', () => {
  it.each([
    [['index', 'skills'], /index: say where to write the index with -o <file>/],
    [['index', '-o', 'x.json'], /index: give at least one skills folder or --package <name>/],
    [['index', 'skills', '-o', 'a.json', '--output', 'b.json'], /index: -o given 2 times \("a\.json", "b\.json"\); give one file/],
    [['index', 'skills', '-o', ' '], /index: -o is empty/],
    [['index', 'skills', '-o'], /index: Option '-o, --output <value>' argument missing/],
    [['index', 'skills', '--json', '-o', 'x.json'], /index: Unknown option '--json'/],
    [['index', 'skills', '-o', 'x.json', '--instructions', '--no-instructions'], /index: --instructions and --no-instructions: give one/],
  ])('%j', async (argv, message) => {
    const cwd = await app();
    const result = await cli(argv, cwd);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toContain('Usage: sisu-skills index <dir...>');
    expect(await readdir(cwd)).toEqual(['more', 'node_modules', 'skills']);
  });

  it('help names the command, its -o and its exit codes', async () => {
    const all = await cli(['--help'], temp.path);
    expect(all.stdout).toContain('sisu-skills index <dir...> [--package <name>] -o <file>');
    const own = await cli(['help', 'index'], temp.path);
    expect(own.code).toBe(0);
    expect(own.stdout).toContain('-o, --output');
    expect(own.stdout).toMatch(/Exits 0 when written/);
  });
});

describe('sisu-skills index (in-process)', () => {
  it("--instructions stores the instructions' terms; over local folders and packages the index holds none by default", async () => {
    const cwd = await app();
    expect((await cli(['index', ...ARGS, '-o', 'plain.index'], cwd)).code).toBe(0);
    expect((await cli(['index', ...ARGS, '-o', 'refused.index', '--no-instructions'], cwd)).code).toBe(0);
    expect((await cli(['index', ...ARGS, '-o', 'full.index', '--instructions'], cwd)).code).toBe(0);
    const read = async (file: string) => {
      const result = await readPrebuiltIndex(join(cwd, file), shapeOf(cwd));
      if (!result.ok) throw new Error(result.message);
      return result.result;
    };
    expect((await read('plain.index')).ranker?.body).toBeUndefined();
    expect((await read('refused.index')).ranker?.body).toBeUndefined();
    const full = await read('full.index');
    expect(full.ranker?.body?.read).toBe(5);
    expect(full.ranker?.body?.terms).toContain('step');
    const help = (await cli(['help', 'index'], cwd)).stdout;
    expect(help).toContain('[--instructions | --no-instructions]');
    expect(help).toMatch(/The default when a source is an s3:\/\/ or az:\/\/ place/);
  });

  it('prints the problems as validate does, then one summary line; skill errors are recorded, exit 0', async () => {
    const cwd = await app();
    const result = await cli(['index', ...ARGS, '-o', 'build/skills.index'], cwd);
    expect(result.code).toBe(0);
    const validate = await cli(['validate', ...ARGS], cwd);
    // validate's problem lines (its other lines are per-source counts, indented, and its verdict).
    const problems = validate.stdout.split('\n').filter((line) => /^\S+ (error|warning) [A-Z_]+ /.test(line));
    expect(
      problems.some((line) => line.startsWith(`${join('skills', 'broken', 'SKILL.md')}:`) && line.includes(' error METADATA_REQUIRED ')),
    ).toBe(true);
    expect(problems.some((line) => line.includes(' warning NAME_MISMATCH '))).toBe(true);
    expect(result.stdout).toBe(
      `${problems.join('\n')}\nWrote ${join('build', 'skills.index')}: 5 skills, 1 error, ${problems.length - 1} warnings.\n`,
    );
    expect(result.stderr).toMatch(
      /^1 error left skills out of the index, as a scan would; fix them \(`sisu-skills validate --package @acme\/team-skills skills more` lists them too\)/,
    );
    // Relative to the command's working directory, not the process's.
    const read = await readPrebuiltIndex(join(cwd, 'build', 'skills.index'), shapeOf(cwd));
    if (!read.ok) throw new Error(read.message);
    expect(read.result.errors.map((d) => d.code)).toEqual(['METADATA_REQUIRED']);
  });

  it('passes --strict, --include and --exclude on: the index is for a middleware with the same options only', async () => {
    const cwd = await app();
    const result = await cli(
      ['index', 'skills', 'more', '--package', '@acme/team-skills', '--strict', '--exclude', 'explain', '-o', 'skills.index'],
      cwd,
    );
    expect(result.code).toBe(0);
    const file = join(cwd, 'skills.index');
    const read = await readPrebuiltIndex(file, shapeOf(cwd, { strict: true, exclude: ['explain'] }));
    if (!read.ok) throw new Error(read.message);
    // strict: the misnamed skill is an error and left out; explain is excluded.
    expect(read.result.skills.map((s) => s.metadata.name).sort()).toEqual(['deploy', 'invoice-chaser', 'pdf-tools']);
    const other = await readPrebuiltIndex(file, shapeOf(cwd, { exclude: ['explain'] }));
    expect(other).toMatchObject({ ok: false, reason: 'other-options' });
  });

  it('an empty library is still an index (of no skills), with a note on stderr', async () => {
    const cwd = await mkdtemp(join(temp.path, 'empty-'));
    await mkdir(join(cwd, 'skills'));
    const result = await cli(['index', 'skills', '-o', 'skills.index'], cwd);
    expect(result).toEqual({
      code: 0,
      stdout: 'Wrote skills.index: 0 skills, 0 errors, 0 warnings.\n',
      stderr: 'No skills found in skills: the index lists none.\n',
    });
    const read = await readPrebuiltIndex(join(cwd, 'skills.index'), {
      ...shapeOf(cwd),
      directories: [join(cwd, 'skills')],
      packages: [],
    });
    expect(read.ok && read.result.skills).toEqual([]);
  });
});

describe('sisu-skills index: nothing written (exit 1), an existing index left as it was', () => {
  it.each([
    ['a folder that does not exist', ['skills', 'no-such-folder'], /no-such-folder error DIRECTORY_NOT_FOUND /],
    ['a package that is not installed', ['skills', '--package', '@acme/not-installed'], / error PACKAGE_NOT_FOUND /],
  ])('%s', async (_, args, problem) => {
    const cwd = await app();
    const file = join(cwd, 'skills.index');
    await writeFile(file, 'the previous index\n');
    const result = await cli(['index', ...args, '-o', 'skills.index'], cwd);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(problem);
    expect(result.stderr).toContain('Nothing written to skills.index: an index without these skills would hide them from the middleware.');
    expect(await readFile(file, 'utf8')).toBe('the previous index\n');
    expect((await readdir(cwd)).sort()).toEqual(['more', 'node_modules', 'skills', 'skills.index']);
  });

  it.each([
    // Both fail for root too: no permission bits involved.
    ['its folder is a file', 'a-file/skills.index', 'it is not a directory'],
    ['it is a folder', 'a-folder', 'it is a directory'],
  ])('the file cannot be written: %s', async (_, output, reason) => {
    const cwd = await app();
    await writeFile(join(cwd, 'a-file'), 'not a folder\n');
    await mkdir(join(cwd, 'a-folder'));
    await writeFile(join(cwd, 'a-folder', 'keep.txt'), 'kept\n');
    const result = await cli(['index', 'skills', '-o', output], cwd);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `sisu-skills: index: cannot write ${output} (${reason}); it was left as it was. Pass a file in a folder you can write to with -o.`,
    );
    expect(result.stdout).not.toContain('Wrote');
    // No temporary file left behind.
    expect((await readdir(cwd)).sort()).toEqual(['a-file', 'a-folder', 'more', 'node_modules', 'skills']);
    expect(await readdir(join(cwd, 'a-folder'))).toEqual(['keep.txt']);
  });
});

describe('the index file is replaced whole', () => {
  it('by a rename: a new file takes the name, so a reader holding the old one never sees it half-written', async () => {
    const cwd = await app();
    const file = join(cwd, 'skills.index');
    await writeFile(file, 'the previous index\n');
    const before = await stat(file);
    const reader = await open(file, 'r');
    try {
      expect((await cli(['index', 'skills', '-o', 'skills.index'], cwd)).code).toBe(0);
      // Written in place, the same inode would now hold the new text.
      expect((await stat(file)).ino).not.toBe(before.ino);
      expect(await reader.readFile('utf8')).toBe('the previous index\n');
    } finally {
      await reader.close();
    }
    expect((await readFile(file)).subarray(0, 18).toString('latin1')).toBe('sisu-skills-index ');
    expect((await readdir(cwd)).sort()).toEqual(['more', 'node_modules', 'skills', 'skills.index']);
  });

  /** Node's calls, with one of them failing. */
  function failing(step: 'write' | 'rename'): AtomicWriteFs {
    const fault = Object.assign(new Error(`injected ${step} failure`), { code: 'EIO' });
    return {
      mkdir,
      unlink,
      async open(...args: Parameters<typeof open>) {
        const handle = await open(...args);
        if (step !== 'write') return handle;
        return Object.assign(handle, { writeFile: () => Promise.reject(fault) });
      },
      rename: step === 'rename' ? () => Promise.reject(fault) : rename,
    };
  }

  it.each(['write', 'rename'] as const)('a failed %s leaves the old file and no temporary file, and is thrown', async (step) => {
    const folder = await mkdtemp(join(temp.path, 'atomic-'));
    const file = join(folder, 'skills.index');
    await writeFile(file, 'old\n');
    await expect(writeFileAtomically(file, 'new\n', failing(step))).rejects.toThrow(`injected ${step} failure`);
    expect(await readdir(folder)).toEqual(['skills.index']);
    expect(await readFile(file, 'utf8')).toBe('old\n');
    await writeFileAtomically(file, 'new\n');
    expect(await readFile(file, 'utf8')).toBe('new\n');
  });

  it('the temporary file sits beside the target, hidden, and leaves room for a long target name', () => {
    const long = join(temp.path, 'x'.repeat(250));
    const temporary = temporaryPathFor(long);
    expect(join(temporary, '..')).toBe(temp.path);
    const name = temporary.slice(temp.path.length + 1);
    expect(name.startsWith('.')).toBe(true);
    expect(name.length).toBeLessThanOrEqual(255);
    expect(temporaryPathFor(long)).not.toBe(temporary);
  });
});

describe('sisu-skills index (built binary)', () => {
  const built = useBuiltBinary('mw-skills-cli-index-');

  it('writes an index that reads back as what discovery finds with the same options', async () => {
    const cwd = await app();
    const fromBinary = await built.run(['index', ...ARGS, '--output', 'skills.index'], cwd);
    expect(fromBinary.code).toBe(0);
    expect(fromBinary).toEqual(await cli(['index', ...ARGS, '--output', 'skills.index'], cwd));
    const read = await readPrebuiltIndex(join(cwd, 'skills.index'), shapeOf(cwd));
    if (!read.ok) throw new Error(read.message);
    const scanned = await discoverSkills({ directories: ['skills', 'more'], packages: ['@acme/team-skills'], cwd });
    expect(heads(read.result.skills)).toEqual(heads(scanned.skills));
    expect(read.result.skills.map((s) => s.metadata.name).sort()).toEqual([
      'deploy',
      'explain',
      'invoice-chaser',
      'other-name',
      'pdf-tools',
    ]);
    expect(read.result.errors).toEqual(scanned.errors);
    expect(read.result.warnings).toEqual(scanned.warnings);
    expect(read.result.scannedDirectories).toEqual(scanned.scannedDirectories);
  });

  it('a middleware given index: starts from it: a skill added after the build is not seen, bodies are read at activation', async () => {
    const cwd = await app();
    expect((await built.run(['index', ...ARGS, '-o', 'skills.index'], cwd)).code).toBe(0);
    await put(join(cwd, 'skills/added-later/SKILL.md'), skillMd('added-later'));
    const options: SkillsOptions = { directories: ['skills', 'more'], packages: ['@acme/team-skills'], cwd, index: 'skills.index' };
    const ctx = createContext({ messages: conversation('Fill in this PDF form.') });
    await compose([skillsMiddleware(options)])(ctx);
    const system = ctx.messages[0]?.content ?? '';
    for (const name of ['pdf-tools', 'deploy', 'explain', 'invoice-chaser']) expect(system).toContain(name);
    expect(system).not.toContain('added-later');
    expect(ctx.log.entries.filter((e) => e.level === 'warn').map((e) => JSON.stringify(e.args))).not.toContainEqual(
      expect.stringContaining('INDEX_UNUSABLE'),
    );
    expect(await callTool(ctx, 'use_skill', { skill_name: 'pdf-tools' })).toContain('Steps for pdf-tools.');
    // Local files are cheap to read: an index without the instructions over them is not worth a line (a bucket's is: s3-index).
    expect(ctx.log.entries.filter((e) => e.level === 'info').map((e) => String(e.args[0]))).not.toContainEqual(
      expect.stringContaining('holds no instructions'),
    );
    // Scanning instead, the added skill is there: the index, not a scan, decided the catalog.
    const scanning = createContext({ messages: conversation('Fill in this PDF form.') });
    const { index: _index, ...scan } = options;
    await compose([skillsMiddleware(scan)])(scanning);
    expect(scanning.messages[0]?.content).toContain('added-later');
  });
});

describe('progress on a terminal', () => {
  it("shows each phase, and skills read of how many, only where io.progress is given (stderr a terminal); stdout's lines are the same", async () => {
    const cwd = await mkdtemp(join(temp.path, 'many-'));
    for (let i = 0; i < 120; i++) await put(join(cwd, 'skills', `skill-${i}`, 'SKILL.md'), skillMd(`skill-${i}`));
    const run = async (progress?: string[]) => {
      const out: string[] = [];
      const err: string[] = [];
      const io = { out: (line: string) => out.push(line), err: (line: string) => err.push(line), cwd };
      const code = await runCli(
        ['index', 'skills', '-o', 'skills.index', '--instructions'],
        progress ? { ...io, progress: (line) => progress.push(line) } : io,
      );
      return { code, out, err };
    };
    const lines: string[] = [];
    const watched = await run(lines);
    const quiet = await run();
    expect(watched).toEqual(quiet);
    expect(quiet.err).toEqual([]);
    expect(lines[0]).toBe('sisu-skills index: finding skills');
    // Skills found while the folders are walked, then each phase with its counts: its start, each tenth, its end.
    expect(lines).toContain('sisu-skills index: checking each SKILL.md, 0 of 120');
    expect(lines).toContain('sisu-skills index: checking each SKILL.md, 120 of 120');
    expect(lines).toContain('sisu-skills index: building the ranker');
    expect(lines).toContain('sisu-skills index: reading the instructions, 12 of 120');
    expect(lines).toContain('sisu-skills index: reading the instructions, 120 of 120');
    expect(lines).toContain("sisu-skills index: building the instructions' index");
    expect(lines.at(-1)).toBe('sisu-skills index: writing skills.index');
    expect(lines.length).toBeLessThan(40);
  });
});

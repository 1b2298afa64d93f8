/**
 * sisu-skills commands (issues 11 and 15): severities on validate lines,
 * folders for show, --include/--exclude, exit codes of list and prompt, a
 * prompt that prints exactly what the middleware injects at any budget, and
 * a show that prints exactly what use_skill answers (on the built binary).
 */
import { cp, mkdir, readdir, readFile, realpath, symlink, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { discoverSkills, skillsMiddleware } from '../src/index.js';
import { cli, ROOT, useBuiltBinary, useTempFolder, writeSkill } from './helpers/cli.js';
import { callTool, conversation, createContext } from './helpers/stack.js';
import type { SkillsContext } from '../src/run/context.js';
import { describeWith } from './helpers/needs-shared.js';
import { SISU_CORE, SISU_SKILLS } from './helpers/shared.js';

const temp = useTempFolder('mw-skills-cli-commands-');
/** Four valid skills. */
let four: string;
/** One valid skill, one with a naming warning, one skipped by an error. */
let mixed: string;
/** A second folder with its own `pdf-forms`, to see which folder wins. */
let other: string;
/** Forty skills: too many for a small budget to list whole, so the catalog ranks them. */
let many: string;

beforeAll(async () => {
  four = join(temp.path, 'four');
  await writeSkill(
    four,
    'pdf-forms',
    'name: pdf-forms\ndescription: Fill in and flatten PDF forms. Use when a user sends a PDF form.',
    '# PDF forms\n\nFill every field.',
  );
  await writeSkill(four, 'pdf-split', 'name: pdf-split\ndescription: Split a PDF into pages or ranges.');
  await writeSkill(four, 'invoice-chaser', 'name: invoice-chaser\ndescription: Write polite reminders for unpaid invoices.');
  await writeSkill(four, 'kubernetes-migrate', 'name: kubernetes-migrate\ndescription: Migrate Kubernetes manifests to a new API version.');
  mixed = join(temp.path, 'mixed');
  await writeSkill(mixed, 'good', 'name: good\ndescription: Loads cleanly.');
  await writeSkill(mixed, 'Shouty', 'name: Shouty\ndescription: Loads, with a naming warning.');
  await writeSkill(mixed, 'broken', 'name: broken\ntags: not-a-list\ndescription: Skipped: tags must be a list.');
  other = join(temp.path, 'other');
  await writeSkill(other, 'pdf-forms', "name: pdf-forms\ndescription: The other folder's PDF skill.", 'OTHER BODY');
  many = join(temp.path, 'many');
  for (let i = 0; i < 40; i++)
    await writeSkill(many, `task-${i}`, `name: task-${i}\ndescription: Does numbered task ${i} for a project, step by step.`);
  await writeSkill(many, 'kubernetes-migrate', 'name: kubernetes-migrate\ndescription: Migrate Kubernetes manifests to a new API version.');
});

describe('validate', () => {
  it('says on every line whether it is an error or a warning', async () => {
    const { code, stdout } = await cli(['validate', mixed, join(temp.path, 'missing')]);
    expect(code).toBe(1);
    // The last lines: one per folder given (indented, so problem matchers skip them), then the verdict.
    const lines = stdout.trimEnd().split('\n').slice(0, -3);
    expect(stdout.trimEnd().split('\n').slice(-3, -1)).toEqual([
      `  folder ${mixed}: 2 skills`,
      `  folder ${join(temp.path, 'missing')}: 0 skills`,
    ]);
    expect(lines.some((l) => l.startsWith(`${join(temp.path, 'missing')} error DIRECTORY_NOT_FOUND `))).toBe(true);
    expect(lines.find((l) => l.includes('broken'))).toMatch(/^\S+broken\/SKILL\.md:\d+:\d+ error METADATA_INVALID tags: /);
    expect(lines.find((l) => l.includes('Shouty'))).toMatch(/^\S+Shouty\/SKILL\.md:2:1 warning NAME_FORMAT /);
    for (const line of lines) expect(line).toMatch(/^\S+ (error|warning) [A-Z_]+ \S/);
  });
});

describe('show', () => {
  it('takes folders the way the other commands do, in order, --dir still working', async () => {
    const positional = await cli(['show', 'pdf-forms', four, other]);
    expect(positional.code).toBe(0);
    expect(positional.stdout).toContain('Fill every field.');
    expect((await cli(['show', 'pdf-forms', other, four])).stdout).toContain('OTHER BODY');
    // --dir and positionals mix; the order given is the precedence order.
    expect((await cli(['show', '--dir', other, 'pdf-forms', four])).stdout).toContain('OTHER BODY');
    expect((await cli(['show', 'pdf-forms', four, '-d', other])).stdout).toContain('Fill every field.');
  });

  it('list, list --json and show name the arguments a skill takes (argument-hint) and user-invocable: false', async () => {
    const folder = join(temp.path, 'hinted');
    await writeSkill(folder, 'deploy', 'name: deploy\ndescription: Deploy a branch.\nargument-hint: <region> [mode]', 'Deploy to $0.');
    await writeSkill(folder, 'helper', 'name: helper\ndescription: Internal helper.\nuser-invocable: false');
    const list = await cli(['list', folder]);
    expect(list.stdout).toMatch(/^deploy +\S+ +Deploy a branch\. \[arguments: <region> \[mode\]\]$/m);
    const json = JSON.parse((await cli(['list', '--json', folder])).stdout) as Array<Record<string, unknown>>;
    expect(json.map((s) => [s.name, s.argumentHint, s.userInvocable])).toEqual([
      ['deploy', '<region> [mode]', true],
      ['helper', null, false],
    ]);
    const show = (await cli(['show', 'deploy', folder])).stdout;
    expect(show).toContain('arguments: <region> [mode] (@deploy <arguments>, or use_skill\'s "arguments")');
    // What use_skill answers carries the hint too.
    expect(show.split('What use_skill returns:')[1]).toContain('Argument hint: <region> [mode]');
    expect((await cli(['show', 'helper', folder])).stdout).toContain('@helper: ignored (user-invocable: false)');
  });

  it.each([
    [['show'], /show: give the skill name, then its folders/],
    [['show', '--dir', 'x'], /show: give the skill name, then its folders/],
    [['show', 'pdf-forms'], /show: say where to look: sisu-skills show <name> <dir\.\.\.>/],
  ])('usage error %j', async (argv, message) => {
    const result = await cli(argv);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toContain('Usage: sisu-skills show <name> <dir...>');
  });
});

describe('--include and --exclude', () => {
  const names = async (argv: string[]): Promise<string[]> =>
    (JSON.parse((await cli(argv)).stdout) as Array<{ name: string }>).map((s) => s.name).sort();

  it('filter every command that loads skills; repeated or comma-separated', async () => {
    expect(await names(['list', '--json', four, '--include', 'pdf-*'])).toEqual(['pdf-forms', 'pdf-split']);
    expect(await names(['list', '--json', four, '--include', 'pdf-forms,invoice-*'])).toEqual(['invoice-chaser', 'pdf-forms']);
    expect(await names(['list', '--json', four, '--include', 'pdf-forms', '--include', 'kubernetes-migrate'])).toEqual([
      'kubernetes-migrate',
      'pdf-forms',
    ]);
    expect(await names(['list', '--json', four, '--include', 'pdf-*', '--exclude', 'pdf-split'])).toEqual(['pdf-forms']);
    const validate = JSON.parse((await cli(['validate', '--json', four, '--exclude', 'pdf-*,invoice-chaser'])).stdout) as {
      counts: { skills: number };
    };
    expect(validate.counts.skills).toBe(1);
    const prompt = await cli(['prompt', four, '--exclude', 'kubernetes-migrate']);
    expect(prompt.stdout).toContain('- pdf-forms: ');
    expect(prompt.stdout).not.toContain('kubernetes-migrate');
    const show = await cli(['show', 'pdf-forms', four, '--exclude', 'pdf-forms']);
    expect(show.code).toBe(1);
    expect(show.stderr).toMatch(/^Skill "pdf-forms" not found/);
  });

  it('repeat in the validate command list and prompt suggest when skills were left out', async () => {
    const { stderr } = await cli(['list', mixed, '--strict', '--exclude', 'good']);
    expect(stderr).toContain(`run \`sisu-skills validate --strict --exclude good ${mixed}\` for details.`);
  });
});

describe('exit codes of list and prompt', () => {
  it('are 0 when every skill loaded (warnings included) and 1 when errors left skills out', async () => {
    expect((await cli(['list', four])).code).toBe(0);
    expect((await cli(['prompt', four])).code).toBe(0);
    const clean = await cli(['list', mixed, '--exclude', 'broken']);
    expect(clean).toMatchObject({ code: 0, stderr: '' });
    for (const command of ['list', 'prompt']) {
      const result = await cli([command, mixed]);
      expect(result.code).toBe(1);
      expect(result.stdout).toContain('good');
      expect(result.stderr).toContain(`1 error left skills out; run \`sisu-skills validate ${mixed}\` for details.`);
    }
  });
});

describe('prompt at tiny budgets', () => {
  it.each([0, 10, 40])('--budget %i prints nothing, and says the budget is too small, not that there are no skills', async (budget) => {
    const result = await cli(['prompt', four, '--budget', String(budget)]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `A budget of ${budget} characters cannot hold even the smallest catalog section: the middleware adds ` +
        `none, and the model is not told about the 4 skills. Raise --budget (the middleware's catalogBudget).\n`,
    );
  });

  it('says on stderr what an over-budget section left out', async () => {
    const result = await cli(['prompt', many, '--budget', '800', '--query', 'migrate my kubernetes cluster']);
    expect(result.stdout.split('\n')[2]).toMatch(/^- kubernetes-migrate: /);
    expect(result.stderr).toMatch(
      /^Catalog over budget \(\d+ of 800 characters, mode ranked\): \d+ of 41 skills listed, 1 first as most relevant to --query\.\n$/,
    );
    const names = await cli(['prompt', four, '--budget', '500']);
    expect(names.stderr).toMatch(/^Catalog over budget \(\d+ of 500 characters, mode names\): 4 of 4 skills listed, names only\.\n$/);
  });
});

// The real host: what the middleware puts into a conversation, for the same folder, budget and request.
describeWith('sisu', 'prompt prints exactly what the middleware injects', () => {
  async function injected(folder: string, budget: number, query: string | undefined): Promise<string> {
    const core = (await import(pathToFileURL(SISU_CORE).href)) as {
      createCtx(options: { model: unknown; logLevel: string }): SkillsContext;
    };
    const ctx = core.createCtx({ model: {}, logLevel: 'error' });
    if (query !== undefined) ctx.messages.push({ role: 'user', content: query });
    await skillsMiddleware({ directories: [folder], catalogBudget: budget })(ctx, async () => {});
    const system = ctx.messages.find((m) => m.role === 'system');
    return system === undefined ? '' : `${String(system.content)}\n`;
  }

  it('with --instructions, as the middleware once it has read the instructions', async () => {
    const bodies = join(temp.path, 'bodies');
    for (let i = 0; i < 40; i++)
      await writeSkill(bodies, `task-${i}`, `name: task-${i}\ndescription: Does numbered task ${i} for a project, step by step.`);
    await writeSkill(
      bodies,
      'release',
      'name: release\ndescription: Ships a tagged version.',
      '## Canary stages\n\nWatch the canary, then promote it.',
    );
    const query = 'watch the canary before we promote it';
    const middleware = skillsMiddleware({ directories: [bodies], catalogBudget: 800 });
    const core = (await import(pathToFileURL(SISU_CORE).href)) as {
      createCtx(options: { model: unknown; logLevel: string }): SkillsContext;
    };
    await middleware(core.createCtx({ model: {}, logLevel: 'error' }), async () => {});
    await middleware.instructionsRanked();
    const ctx = core.createCtx({ model: {}, logLevel: 'error' });
    ctx.messages.push({ role: 'user', content: query });
    await middleware(ctx, async () => {});
    const expected = `${String(ctx.messages.find((m) => m.role === 'system')?.content)}\n`;
    const withInstructions = await cli(['prompt', bodies, '--budget', '800', '--query', query, '--instructions']);
    expect(withInstructions.stdout).toBe(expected);
    expect(withInstructions.stdout).toMatch(/most relevant to this request[^\n]*\n- release:/);
    // Without the flag: as the first request ranks, by the descriptions alone.
    expect((await cli(['prompt', bodies, '--budget', '800', '--query', query])).stdout).not.toMatch(/\n- release:/);
  });

  it.each([0, 10, 40, 100, 200, 300, 450, 600, 700, 900, 1200, 8000])('at --budget %i, with and without --query', async (budget) => {
    for (const folder of [four, many]) {
      for (const query of [undefined, 'migrate my kubernetes cluster', 'fill this pdf']) {
        const result = await cli(['prompt', folder, '--budget', String(budget), ...(query === undefined ? [] : ['--query', query])]);
        expect(result.stdout).toBe(await injected(folder, budget, query));
      }
    }
  });
});

describe('the built binary', () => {
  const built = useBuiltBinary('mw-skills-cli-commands-');
  const fixtures = join(ROOT, 'fixtures', 'skills');

  it("show prints exactly what the middleware's use_skill answers (default options) for every skill, as text and as JSON", async () => {
    const { skills } = await discoverSkills({ directories: [fixtures] });
    const middleware = skillsMiddleware({ directories: [fixtures] });
    expect(skills.length).toBeGreaterThan(0);
    for (const [i, skill] of skills.entries()) {
      const name = skill.metadata.name;
      // The model's use_skill, registered by the middleware on a fresh run (a second call in one run says "already active").
      const ctx = createContext({ messages: conversation('hello') });
      await middleware(ctx, async () => {});
      const answer = await callTool(ctx, 'use_skill', { skill_name: name });
      // The built binary for the first skill, in-process for the rest: the two print the same (cli.test.ts checks
      // show, list and prompt both ways), and each binary run is a node process to start.
      const run = i === 0 ? built.run : cli;
      const text = await run(['show', name, fixtures]);
      expect(text.code).toBe(0);
      const marker = '\nWhat use_skill returns:\n';
      expect(text.stdout.slice(text.stdout.indexOf(marker) + marker.length)).toBe(`${String(answer)}\n`);
      const json = await run(['show', name, '--dir', fixtures, '--json']);
      expect((JSON.parse(json.stdout) as { activation: string }).activation).toBe(answer);
    }
  });

  it('prompt --budget 10 prints nothing and says why; list exits 1 when a skill was skipped', async () => {
    expect(await built.run(['prompt', four, '--budget', '10'])).toMatchObject({
      code: 0,
      stdout: '',
      stderr: expect.stringMatching(/^A budget of 10 characters cannot hold/),
    });
    expect((await built.run(['list', mixed])).code).toBe(1);
  });
});

// ---------------------------------------------------------------------------
// --package (issue 12): skills installed as npm packages, found as Node finds them from the working directory.

/**
 * WAITS ON THE LEAD'S WIRING: true once discovery judges a package root's
 * name by expectedSkillName (src/config/packages.ts) instead of its folder's name.
 * Until then SISU's own packages load with a NAME_MISMATCH warning and the
 * strict test below is skipped, not passing.
 */
const PACKAGE_NAMES_WIRED = true;

const SISU_SKILL_PACKAGES = ['code-review', 'debug', 'deploy', 'explain', 'repo-search', 'test-gen'].map(
  (name) => `@sisu-ai/skill-${name}`,
);

async function writePackage(root: string, name: string, version: string): Promise<void> {
  await mkdir(root, { recursive: true });
  await writeFile(join(root, 'package.json'), JSON.stringify({ name, version }));
}

describe('--package', () => {
  /** An app whose node_modules holds a collection package (`skills/` folder) and a one-skill package, as npm lays them out. */
  let app: string;
  beforeAll(async () => {
    app = join(temp.path, 'app');
    const team = join(app, 'node_modules', '@acme', 'team-skills');
    await writePackage(team, '@acme/team-skills', '1.2.3');
    await writeSkill(join(team, 'skills'), 'pdf-forms', "name: pdf-forms\ndescription: The team's PDF forms skill.");
    await writeSkill(
      join(team, 'skills'),
      'invoice-chaser',
      'name: invoice-chaser\ndescription: Write polite reminders for unpaid invoices.',
    );
    const single = join(app, 'node_modules', 'single-skill');
    await writePackage(single, 'single-skill', '0.1.0');
    await writeSkill(join(app, 'node_modules'), 'single-skill', 'name: single-skill\ndescription: A package that is one skill.');
    await writeSkill(join(app, 'local'), 'pdf-forms', "name: pdf-forms\ndescription: The app's own PDF forms skill.");
    await mkdir(join(app, 'node_modules', 'not-skills'), { recursive: true });
    await writePackage(join(app, 'node_modules', 'not-skills'), 'not-skills', '2.0.0');
  });

  it('list shows each skill with the package and version it came from, the folder for the others', async () => {
    const result = await cli(['list', 'local', '--package', '@acme/team-skills', '--package', 'single-skill'], app);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout.trimEnd().split('\n')).toEqual([
      // The folder comes first and wins the clash over pdf-forms; the package's own pdf-forms is hidden.
      "pdf-forms       local                    The app's own PDF forms skill.",
      'invoice-chaser  @acme/team-skills@1.2.3  Write polite reminders for unpaid invoices.',
      'single-skill    single-skill@0.1.0       A package that is one skill.',
    ]);
    const json = JSON.parse((await cli(['list', '--json', '--package', 'single-skill'], app)).stdout) as Array<{ origin: unknown }>;
    expect(json[0]?.origin).toEqual({
      kind: 'package',
      name: 'single-skill',
      version: '0.1.0',
      directory: join(app, 'node_modules', 'single-skill'),
    });
  });

  it('validate counts the skills of each folder and package, says which packages, and passes --strict', async () => {
    const result = await cli(['validate', '--strict', '--package', '@acme/team-skills,single-skill'], app);
    expect(result).toEqual({
      code: 0,
      stdout: [
        `  package @acme/team-skills@1.2.3 (${join('node_modules', '@acme', 'team-skills')}): 2 skills`,
        `  package single-skill@0.1.0 (${join('node_modules', 'single-skill')}): 1 skill`,
        'OK: 3 skills loaded from 2 packages, 0 errors, 0 warnings.',
        '',
      ].join('\n'),
      stderr: '',
    });
    const json = JSON.parse((await cli(['validate', '--json', 'local', '--package', '@acme/team-skills'], app)).stdout) as {
      directories: string[];
      packages: unknown[];
      skills: Array<{ name: string; origin: { kind: string } }>;
    };
    expect(json.directories).toEqual([join(app, 'local')]);
    expect(json.packages).toEqual([
      { name: '@acme/team-skills', version: '1.2.3', directory: join(app, 'node_modules', '@acme', 'team-skills'), kind: 'collection' },
    ]);
    expect(json.skills.map((s) => [s.name, s.origin.kind])).toEqual([
      ['pdf-forms', 'folder'],
      ['invoice-chaser', 'package'],
    ]);
  });

  it('a package that is not installed, or holds no skill, is an error naming it: validate and list exit 1', async () => {
    const validate = await cli(['validate', '--package', '@acme/missing', '--package', 'not-skills', '--package', 'single-skill'], app);
    expect(validate.code).toBe(1);
    const lines = validate.stdout.split('\n');
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^node_modules\/@acme\/missing error PACKAGE_NOT_FOUND package @acme\/missing is not installed where Node looks from /,
      ),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(/^node_modules\/not-skills error PACKAGE_NOT_A_SKILL package not-skills@2\.0\.0 holds no skill/),
    );
    expect(validate.stdout).toContain('FAILED: 1 skill loaded from 1 package, 2 errors, 0 warnings.');
    // list would silently miss the package's skills: it stops, as for a folder that cannot be read.
    const list = await cli(['list', 'local', '--package', '@acme/missing'], app);
    expect(list).toMatchObject({ code: 1, stdout: '' });
    expect(list.stderr).toMatch(/^node_modules\/@acme\/missing error PACKAGE_NOT_FOUND /);
    const show = await cli(['show', 'pdf-forms', 'local', '--package', 'not-skills'], app);
    expect(show).toMatchObject({ code: 1, stdout: '' });
  });

  it('show and prompt take packages too; prompt prints what the same folders give', async () => {
    const show = await cli(['show', 'invoice-chaser', '--package', '@acme/team-skills'], app);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain(`from: package @acme/team-skills@1.2.3 (${join('node_modules', '@acme', 'team-skills')})\n`);
    const viaPackage = await cli(['prompt', '--package', '@acme/team-skills'], app);
    const viaFolder = await cli(['prompt', join('node_modules', '@acme', 'team-skills', 'skills')], app);
    expect(viaPackage.code).toBe(0);
    expect(viaPackage.stdout).toContain('- invoice-chaser: ');
    expect(viaPackage).toEqual(viaFolder);
  });

  it.each([
    [['list', '--package', '../escape'], /list: --package "\.\.\/escape": a package name is `name` or `@scope\/name`/],
    [['validate', '--package', ''], /validate: give at least one skills folder or --package <name>\./],
    [['show', 'x'], /show: say where to look: sisu-skills show <name> <dir\.\.\.> or --package <name>\./],
  ])('usage %j: exit 2', async (argv, why) => {
    const result = await cli(argv, app);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(why);
  });

  describeWith('sisu-skills', "SISU's skill packages", () => {
    /** SISU's seven packages as npm lays them out. */
    let npmApp: string;
    /** The same, as pnpm lays them out: real folders under .pnpm, linked from node_modules/@sisu-ai. */
    let pnpmApp: string;
    const versions = new Map<string, string>();

    beforeAll(async () => {
      npmApp = join(temp.path, 'sisu-npm');
      pnpmApp = join(temp.path, 'sisu-pnpm');
      for (const folder of await readdir(SISU_SKILLS)) {
        const source = join(SISU_SKILLS, folder);
        const { name, version } = JSON.parse(await readFile(join(source, 'package.json'), 'utf8')) as { name: string; version: string };
        versions.set(name, version);
        await cp(source, join(npmApp, 'node_modules', name), { recursive: true });
        const real = join(pnpmApp, 'node_modules', '.pnpm', `${name.replace('/', '+')}@${version}`, 'node_modules', name);
        await cp(source, real, { recursive: true });
        await mkdir(join(pnpmApp, 'node_modules', '@sisu-ai'), { recursive: true });
        await symlink(relative(join(pnpmApp, 'node_modules', '@sisu-ai'), real), join(pnpmApp, 'node_modules', name));
      }
    });

    it('list shows each with its package and version, in npm and pnpm layouts', async () => {
      for (const cwd of [npmApp, pnpmApp]) {
        const result = await cli(['list', '--package', SISU_SKILL_PACKAGES.join(',')], cwd);
        expect(result).toMatchObject({ code: 0, stderr: '' });
        const rows = result.stdout
          .trimEnd()
          .split('\n')
          .map((line) => line.split(/\s+/).slice(0, 2));
        expect(rows).toEqual(
          SISU_SKILL_PACKAGES.map((name) => [name.replace('@sisu-ai/skill-', ''), `${name}@${versions.get(name) ?? '?'}`]),
        );
      }
    });

    it('under pnpm, each skill is read from its real folder in .pnpm', async () => {
      const json = JSON.parse((await cli(['validate', '--json', '--package', '@sisu-ai/skill-debug'], pnpmApp)).stdout) as {
        packages: Array<{ directory: string }>;
        skills: Array<{ path: string }>;
      };
      const real = join(
        await realpath(pnpmApp),
        'node_modules',
        '.pnpm',
        `@sisu-ai+skill-debug@${versions.get('@sisu-ai/skill-debug') ?? '?'}`,
        'node_modules',
        '@sisu-ai',
        'skill-debug',
      );
      expect(json.packages[0]?.directory).toBe(real);
      expect(json.skills[0]?.path).toBe(join(real, 'SKILL.md'));
    });

    it('the installer package (@sisu-ai/skill-install) is reported as holding no skill', async () => {
      const result = await cli(['validate', '--package', '@sisu-ai/skill-install'], npmApp);
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(
        /^node_modules\/@sisu-ai\/skill-install error PACKAGE_NOT_A_SKILL package @sisu-ai\/skill-install@[\d.]+ holds no skill/,
      );
    });

    // WAITS ON THE LEAD'S WIRING (PACKAGE_NAMES_WIRED above).
    it.runIf(PACKAGE_NAMES_WIRED)('all six validate with --strict and no warnings, in npm and pnpm layouts', async () => {
      for (const cwd of [npmApp, pnpmApp]) {
        const result = await cli(['validate', '--strict', '--package', SISU_SKILL_PACKAGES.join(',')], cwd);
        expect(result.stdout).toMatch(/\nOK: 6 skills loaded from 6 packages, 0 errors, 0 warnings\.\n$/);
        expect(result.code).toBe(0);
      }
    });
  });
});

/**
 * `sisu-skills init` (issue 12) and the description placeholder it writes:
 * what lands on disk, what it refuses and why, that whatever description is
 * given reads back unchanged, and, on the built binary, that `validate`
 * accepts the new skill at once.
 */
import { mkdir, mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { skillFileText } from '../src/cli/scaffold.js';
import { parseFrontmatter } from '../src/frontmatter/parse.js';
import { DESCRIPTION_PLACEHOLDER, isDescriptionPlaceholder } from '../src/metadata/placeholder.js';
import { validateMetadata } from '../src/metadata/schema.js';
import { cli, useBuiltBinary, useTempFolder } from './helpers/cli.js';
import { anyCodePoint } from './helpers/awkward-text.js';

const temp = useTempFolder('mw-skills-cli-init-');

/** A fresh, empty working directory per test. */
async function workdir(): Promise<string> {
  return mkdtemp(join(temp.path, 'cwd-'));
}

describe('init writes a skill', () => {
  it('<name>/SKILL.md with the name, the placeholder and an outline, and an empty references/ folder', async () => {
    const cwd = await workdir();
    const result = await cli(['init', 'pdf-forms'], cwd);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain('Created pdf-forms/SKILL.md and an empty pdf-forms/references folder.');
    expect(result.stdout).toContain('replace the placeholder description in pdf-forms/SKILL.md');
    expect(await readdir(join(cwd, 'pdf-forms'))).toEqual(['SKILL.md', 'references']);
    expect(await readdir(join(cwd, 'pdf-forms', 'references'))).toEqual([]);
    const text = await readFile(join(cwd, 'pdf-forms', 'SKILL.md'), 'utf8');
    const parsed = parseFrontmatter(text);
    expect(parsed.diagnostics).toEqual([]);
    expect(parsed.metadata).toEqual({ name: 'pdf-forms', description: DESCRIPTION_PLACEHOLDER });
    for (const heading of ['# pdf-forms', '## When to use', '## Steps', '## Resources']) expect(parsed.body).toContain(`\n${heading}\n`);
  });

  it('--description replaces the placeholder, and the next step says validate --strict', async () => {
    const cwd = await workdir();
    const description = 'Fills PDF forms. Use when the user asks to fill or sign a PDF.';
    const result = await cli(['init', 'pdf-forms', '--description', description], cwd);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('`sisu-skills validate --strict pdf-forms`');
    const parsed = parseFrontmatter(await readFile(join(cwd, 'pdf-forms', 'SKILL.md'), 'utf8'));
    expect(parsed.metadata).toEqual({ name: 'pdf-forms', description });
  });

  it('--dir is the parent folder, created when missing; the skill goes in <dir>/<name>/', async () => {
    const cwd = await workdir();
    expect((await cli(['init', 'deploy', '--dir', join('skills', 'team')], cwd)).code).toBe(0);
    expect((await stat(join(cwd, 'skills', 'team', 'deploy', 'SKILL.md'))).isFile()).toBe(true);
    const absolute = join(cwd, 'elsewhere');
    expect((await cli(['init', 'debug', '--dir', absolute], cwd)).code).toBe(0);
    expect((await stat(join(absolute, 'debug', 'references'))).isDirectory()).toBe(true);
  });

  it('a description full of YAML syntax is quoted and reads back exactly', async () => {
    const cwd = await workdir();
    const description = '- "Fills": forms #1, [a] {b} & *c | > %d @e `f` \\ g. Use when: asked.';
    // A value starting with "-" needs the `=` form: node:util's parser would take it for an option.
    expect((await cli(['init', 'tricky', `--description=${description}`], cwd)).code).toBe(0);
    const parsed = parseFrontmatter(await readFile(join(cwd, 'tricky', 'SKILL.md'), 'utf8'));
    expect(parsed.diagnostics).toEqual([]);
    expect(parsed.metadata.description).toBe(description);
  });
});

describe('skillFileText', () => {
  const name = 'any-skill';
  const yamlish = fc.constantFrom(
    ':',
    '#',
    '"',
    "'",
    '-',
    '[',
    ']',
    '{',
    '}',
    '&',
    '*',
    '!',
    '|',
    '>',
    '%',
    '@',
    '`',
    ',',
    '?',
    '\\',
    ' ',
    '\t',
    '\n',
    '\r',
    'a',
    'é',
    '\u0085',
    '\u2028',
    '\u2029',
    '\u0000',
    '\u007f',
    '\u0090',
    '\ufffe',
    '\u{1F600}',
  );
  const descriptions = fc
    .oneof(fc.string({ unit: yamlish, minLength: 1 }), fc.string({ unit: anyCodePoint, minLength: 1 }), fc.string({ minLength: 1 }))
    .filter((text) => text.trim() !== '' && [...text.trim()].length <= 1024);

  it('any description reads back as given (trimmed), by our parser with no diagnostic and by the yaml package', () => {
    fc.assert(
      fc.property(descriptions, (description) => {
        const text = skillFileText(name, description);
        const parsed = parseFrontmatter(text);
        expect(parsed.diagnostics).toEqual([]);
        expect(parsed.metadata).toEqual({ name, description: description.trim() });
        expect(YAML.parse(parsed.frontmatter ?? '')).toEqual({ name, description: description.trim() });
        // One line, with nothing raw that YAML forbids unescaped or that YAML 1.1 readers (PyYAML) take for a line break (NEL, LS, PS).
        expect(text.split('\n')[2]).not.toMatch(/[\p{Cc}\u2028\u2029\ufffe\uffff]/u);
        expect(text.split('\n')[3]).toBe('---');
      }),
      { numRuns: 500 },
    );
  });

  it('passes strict validation in a folder of its name for ordinary text', () => {
    const ordinary = fc
      .string({ unit: fc.constantFrom(...'abc XYZ:#"\'-[]{}&*!|>%@`,?.é'.split('')), minLength: 1 })
      .filter((t) => t.trim() !== '');
    fc.assert(
      fc.property(ordinary, (description) => {
        const parsed = parseFrontmatter(skillFileText(name, description));
        const result = validateMetadata(parsed, { file: 'SKILL.md', folderName: name, strict: true });
        expect(result.diagnostics).toEqual([]);
      }),
    );
  });

  it('writes a plain scalar when it reads back unchanged, and quotes what YAML 1.1 readers would read as another type', () => {
    expect(skillFileText(name, 'Fills PDF forms.')).toContain('\ndescription: Fills PDF forms.\n');
    expect(skillFileText(name)).toContain(`\ndescription: ${DESCRIPTION_PLACEHOLDER}\n`);
    // PyYAML reads these unquoted as true, false, null and 3600.
    for (const word of ['yes', 'Off', 'null', '1:00:00']) expect(skillFileText(name, word)).toContain(`\ndescription: "${word}"\n`);
  });
});

describe('init refuses', () => {
  it('an existing folder, exit 1, saying why and what to do, and changes nothing', async () => {
    const cwd = await workdir();
    await mkdir(join(cwd, 'taken'));
    await writeFile(join(cwd, 'taken', 'SKILL.md'), 'mine');
    const result = await cli(['init', 'taken'], cwd);
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toBe(
      'sisu-skills: init: taken already exists, and init never overwrites. Choose another name, or another parent folder with --dir.\n',
    );
    expect(await readFile(join(cwd, 'taken', 'SKILL.md'), 'utf8')).toBe('mine');
    expect(await readdir(join(cwd, 'taken'))).toEqual(['SKILL.md']);
    // A file of that name, and an empty folder, are refused the same way.
    await writeFile(join(cwd, 'file'), '');
    await mkdir(join(cwd, 'empty'));
    expect((await cli(['init', 'file'], cwd)).stderr).toContain('file already exists');
    expect((await cli(['init', 'empty'], cwd)).code).toBe(1);
    expect(await readdir(join(cwd, 'empty'))).toEqual([]);
  });

  it('two runs at once for one name: exactly one creates it', async () => {
    const cwd = await workdir();
    const results = await Promise.all([
      cli(['init', 'race', '--description', 'First.'], cwd),
      cli(['init', 'race', '--description', 'Second.'], cwd),
    ]);
    expect(results.map((r) => r.code).sort()).toEqual([0, 1]);
    const winner = results.find((r) => r.code === 0) === results[0] ? 'First.' : 'Second.';
    expect(parseFrontmatter(await readFile(join(cwd, 'race', 'SKILL.md'), 'utf8')).metadata.description).toBe(winner);
  });

  it('a parent that cannot be a folder: exit 1, nothing created', async () => {
    const cwd = await workdir();
    await writeFile(join(cwd, 'plain-file'), '');
    const result = await cli(['init', 'x', '--dir', join('plain-file', 'sub')], cwd);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^sisu-skills: init: cannot create the folder plain-file\/sub \(.+\)\. Pass an existing folder you can write to with --dir\.\n$/,
    );
    expect(await readdir(cwd)).toEqual(['plain-file']);
  });

  it.each([
    [
      'My-Skill',
      /"My-Skill" contains uppercase letters\. A skill name .* is 1-64 lowercase letters, digits and single hyphens, .* Try `sisu-skills init my-skill`\./,
    ],
    ['pdf_forms', /"pdf_forms" contains characters other than a-z, 0-9 and -\..* Try `sisu-skills init pdf-forms`\./],
    ['-pdf', /"-pdf" starts or ends with a hyphen\..* Try `sisu-skills init pdf`\./],
    ['pdf--forms', /"pdf--forms" contains consecutive hyphens\./],
    ['a'.repeat(65), /is 65 characters long \(the limit is 64\)/],
    ['../escape', /"\.\.\/escape" contains characters other than a-z, 0-9 and -/],
    ['', /the skill name is empty\. Give one, e\.g\. `sisu-skills init pdf-forms`\./],
  ])('an invalid name %j: a usage error (exit 2) that says why, and nothing created', async (name, why) => {
    const cwd = await workdir();
    // `--` so that "-pdf" reaches the name check instead of the option parser.
    const result = await cli(['init', '--', name], cwd);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(why);
    expect(result.stderr).toContain('Usage: sisu-skills init <name>');
    expect(await readdir(cwd)).toEqual([]);
    expect(await readdir(temp.path)).not.toContain('escape');
  });

  it.each([
    [['init'], /init: give the new skill's name: sisu-skills init <name>\./],
    [['init', 'one', 'two'], /init: takes one skill name, got 2 \("one" "two"\)\. Put a description in quotes after --description\./],
    [['init', 'ok', '--description', '  '], /init: --description is empty\./],
    [['init', 'ok', '--description', 'x'.repeat(1025)], /init: --description is 1025 characters long; the limit is 1024\./],
    [['init', 'ok', '--dir', ''], /init: --dir is empty\./],
    [['init', 'ok', '--strict'], /init: Unknown option '--strict'/],
  ])('usage %j: exit 2, nothing created', async (argv, why) => {
    const cwd = await workdir();
    const result = await cli(argv, cwd);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(why);
    expect(await readdir(cwd)).toEqual([]);
  });

  it('is listed in the help', async () => {
    const help = await cli(['--help'], temp.path);
    expect(help.stdout).toContain('sisu-skills init <name> [--dir <folder>] [--description <text>]');
    expect((await cli(['init', '--help'], temp.path)).stdout).toMatch(/^Usage: sisu-skills init <name>/);
  });
});

describe('the description placeholder (src/metadata/placeholder.ts, reported by validateMetadata)', () => {
  const file = '/skills/x/SKILL.md';
  const problems = (text: string, strict: boolean) =>
    validateMetadata(parseFrontmatter(text, { file }), { file, folderName: 'x', strict }).diagnostics;

  it('is what init writes: one DESCRIPTION_PLACEHOLDER at the description key, a warning, an error under strict', () => {
    expect(problems(skillFileText('x'), false)).toEqual([
      {
        code: 'DESCRIPTION_PLACEHOLDER',
        severity: 'warning',
        file,
        line: 3,
        column: 1,
        message: expect.stringMatching(
          /^description: is still the placeholder `sisu-skills init` wrote.*Replace it with what the skill does and when to use it, e\.g\. `description: /,
        ),
      },
    ]);
    expect(problems(skillFileText('x'), true)).toEqual([
      expect.objectContaining({ code: 'DESCRIPTION_PLACEHOLDER', severity: 'error', line: 3, column: 1 }),
    ]);
  });

  it('is found alone, folded over lines, or with text around it', () => {
    expect(isDescriptionPlaceholder(DESCRIPTION_PLACEHOLDER)).toBe(true);
    expect(isDescriptionPlaceholder(`  ${DESCRIPTION_PLACEHOLDER.replace(/ /g, '\n  ')}\n`)).toBe(true);
    expect(isDescriptionPlaceholder(`Mine. ${DESCRIPTION_PLACEHOLDER}`)).toBe(true);
    // An author who rewraps it in a folded block scalar has still not replaced it.
    const folded = `---\nname: x\ndescription: >\n  ${DESCRIPTION_PLACEHOLDER.replace(/ (?=e\.g\.|Use )/g, '\n  ')}\n---\n`;
    expect(problems(folded, false)).toEqual([expect.objectContaining({ code: 'DESCRIPTION_PLACEHOLDER', line: 3, column: 1 })]);
  });

  it('is not found in a real description, part of it, or a value that is not text', () => {
    for (const value of [
      'Fills PDF forms. Use when the user asks to fill or sign a PDF.',
      DESCRIPTION_PLACEHOLDER.slice(0, 40),
      '',
      undefined,
      null,
      42,
      [DESCRIPTION_PLACEHOLDER],
    ]) {
      expect(isDescriptionPlaceholder(value)).toBe(false);
    }
    expect(problems(skillFileText('x', 'Fills PDF forms. Use when the user asks to fill or sign a PDF.'), true)).toEqual([]);
  });
});

describe('init, then validate (built binary)', () => {
  const built = useBuiltBinary('mw-skills-cli-init-');

  it('without --description validate exits 0; with it, validate --strict exits 0 with nothing to report', async () => {
    const cwd = await workdir();
    expect((await built.run(['init', 'draft', '--dir', 'skills'], cwd)).code).toBe(0);
    expect((await built.run(['validate', join('skills', 'draft')], cwd)).code).toBe(0);
    const described = await built.run(
      ['init', 'pdf-forms', '--dir', 'skills', '--description', 'Fills PDF forms. Use when the user asks to fill or sign a PDF.'],
      cwd,
    );
    expect(described.code).toBe(0);
    expect(await built.run(['validate', '--strict', join('skills', 'pdf-forms')], cwd)).toEqual({
      code: 0,
      stdout: `  folder ${join('skills', 'pdf-forms')}: 1 skill\nOK: 1 skill loaded from 1 directory, 0 errors, 0 warnings.\n`,
      stderr: '',
    });
    // A bad name is refused by the binary too, and an existing folder.
    expect((await built.run(['init', 'Draft', '--dir', 'skills'], cwd)).code).toBe(2);
    expect((await built.run(['init', 'draft', '--dir', 'skills'], cwd)).code).toBe(1);
  });

  it('the placeholder is one warning, which --strict fails on, until the author replaces it', async () => {
    const cwd = await workdir();
    expect((await built.run(['init', 'draft'], cwd)).code).toBe(0);
    const relaxed = await built.run(['validate', 'draft'], cwd);
    expect(relaxed.code).toBe(0);
    const problems = relaxed.stdout.split('\n').filter((line) => /^\S+:\d+:\d+ /.test(line));
    expect(problems).toEqual([
      expect.stringMatching(/^draft\/SKILL\.md:3:1 warning DESCRIPTION_PLACEHOLDER description: is still the placeholder/),
    ]);
    expect(relaxed.stdout).toContain('OK: 1 skill loaded from 1 directory, 0 errors, 1 warning.');
    const strict = await built.run(['validate', '--strict', 'draft'], cwd);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toContain('draft/SKILL.md:3:1 error DESCRIPTION_PLACEHOLDER');
    const file = join(cwd, 'draft', 'SKILL.md');
    await writeFile(
      file,
      (await readFile(file, 'utf8')).replace(DESCRIPTION_PLACEHOLDER, 'Drafts release notes. Use when asked for release notes.'),
    );
    expect((await built.run(['validate', '--strict', 'draft'], cwd)).code).toBe(0);
  });
});

/**
 * `sisu-skills eval`'s input and its offline mode (issue 21): wrong usage is
 * exit 2, unusable cases or modules exit 1 saying what to fix, --offline
 * scores what the middleware's auto-activation picks, and a module may export
 * a factory and `skillsOptions`. The runs against SISU's real adapters are in
 * test/real-sisu/trigger-eval.test.ts.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { EvalOutput } from '../src/cli/eval-command.js';
import { splitCases, type TriggerCase } from '../src/cli/trigger-eval.js';
import { cli, useTempFolder, writeSkill } from './helpers/cli.js';

const temp = useTempFolder('mw-skills-cli-eval-');
let dir: string;

const CASES = [
  { query: 'Fill in and flatten this PDF form', expect: 'pdf-forms' },
  { query: 'Write a polite reminder for the unpaid invoice', expect: 'invoice-chaser' },
  { query: 'Tell me a joke', expect: null },
];

beforeAll(async () => {
  dir = temp.path;
  await writeSkill(
    join(dir, 'skills'),
    'pdf-forms',
    'name: pdf-forms\ndescription: Fill in and flatten PDF forms. Use when a user sends a PDF form.',
  );
  await writeSkill(join(dir, 'skills'), 'invoice-chaser', 'name: invoice-chaser\ndescription: Write polite reminders for unpaid invoices.');
  await writeFile(join(dir, 'cases.jsonl'), `${CASES.map((c) => JSON.stringify(c)).join('\n')}\n\n`);
  await writeFile(
    join(dir, 'bad.jsonl'),
    '{"query": "ok", "expect": null}\nnot json\n{"query": "", "expect": null}\n{"query": "x", "expect": 3}\n',
  );
  await writeFile(join(dir, 'empty.jsonl'), '\n');
  await writeFile(join(dir, 'unknown.jsonl'), '{"query": "fill the form", "expect": "pdf-form"}\n');
  await writeFile(join(dir, 'no-model.mjs'), 'export const name = "not a model";\n');
  await writeFile(join(dir, 'broken.mjs'), 'export default {;\n');
  // A factory as default export, and options for the middleware: `always` pre-activates invoice-chaser in every run.
  await writeFile(
    join(dir, 'factory.mjs'),
    [
      'export default async () => ({ generate: async () => ({ message: { role: "assistant", content: "ok" } }) });',
      'export const skillsOptions = { always: ["invoice-chaser"] };',
    ].join('\n'),
  );
});

const run = (args: string[]) => cli(['eval', ...args], dir);

describe('sisu-skills eval: usage', () => {
  it.each([
    [['skills', '--offline'], 'eval: give the cases with --cases <file.jsonl>'],
    [['skills', '--cases', 'cases.jsonl'], 'eval: give --model <module>'],
    [['skills', '--cases', 'cases.jsonl', '--offline', '--model', 'm.mjs'], 'give --model <module> or --offline, not both'],
    [['skills', '--cases', 'cases.jsonl', '--offline', '--split', '1'], '--split takes a number between 0 and 1 (exclusive), got "1"'],
    [['skills', '--cases', 'cases.jsonl', '--offline', '--runs', '0'], '--runs takes a whole number from 1 to 100, got "0"'],
    [['skills', '--cases', 'cases.jsonl', '--offline', '--concurrency', 'x'], '--concurrency takes a whole number from 1 to 64'],
    [['skills', '--cases', 'cases.jsonl', '--offline', '--min-f1', '1.5'], '--min-f1 takes a number from 0 to 1'],
    [['--cases', 'cases.jsonl', '--offline'], 'eval: give at least one skills folder or --package <name>.'],
  ])('%j is wrong usage: exit 2 with the fix', async (args, message) => {
    const { code, stderr } = await run(args);
    expect(code).toBe(2);
    expect(stderr).toContain(message);
  });
});

describe('sisu-skills eval: unusable input says what to fix (exit 1)', () => {
  it('lists every bad line of the cases file', async () => {
    const { code, stderr } = await run(['skills', '--cases', 'bad.jsonl', '--offline']);
    expect(code).toBe(1);
    expect(stderr.trimEnd().split('\n')).toEqual([
      'bad.jsonl:2: not JSON. Each line is one {"query": "...", "expect": "skill-name"} or {"query": "...", "expect": null}.',
      'bad.jsonl:3: "query" must be a non-empty string.',
      'bad.jsonl:4: "expect" must be a skill name, or null when the query should trigger no skill.',
    ]);
  });

  it('refuses a missing or empty cases file', async () => {
    expect((await run(['skills', '--cases', 'missing.jsonl', '--offline'])).stderr).toContain(
      'eval: cannot read the cases file missing.jsonl',
    );
    expect((await run(['skills', '--cases', 'empty.jsonl', '--offline'])).stderr).toContain('eval: empty.jsonl holds no cases.');
  });

  it('names an expected skill the folders do not hold, with the closest names', async () => {
    const { code, stderr } = await run(['skills', '--cases', 'unknown.jsonl', '--offline']);
    expect(code).toBe(1);
    expect(stderr).toContain('unknown.jsonl:1: expect "pdf-form" is not a skill in these folders (closest: pdf-forms');
  });

  it('refuses a module that cannot be imported or exports no adapter', async () => {
    const broken = await run(['skills', '--cases', 'cases.jsonl', '--model', 'broken.mjs']);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain('eval: cannot import --model broken.mjs');
    const none = await run(['skills', '--cases', 'cases.jsonl', '--model', 'no-model.mjs']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('eval: --model no-model.mjs exports no model adapter.');
  });

  it('stops on a folder that cannot be read', async () => {
    const { code, stderr } = await run(['missing-folder', '--cases', 'cases.jsonl', '--offline']);
    expect(code).toBe(1);
    expect(stderr).toContain('DIRECTORY_NOT_FOUND');
  });
});

describe('sisu-skills eval: runs', () => {
  it('--offline scores what auto-activation picks, one run per case, with a text report and a progress line', async () => {
    const { code, stdout, stderr } = await run(['skills', '--cases', 'cases.jsonl', '--offline', '--runs', '5']);
    expect(code).toBe(0);
    expect(stdout).toContain(
      'Trigger eval: 3 cases x 1 run through skillsMiddleware, the local ranker (--offline); 2 skills in the catalog.',
    );
    expect(stdout).toContain('Total: 3/3 cases passed; precision 1.00, recall 1.00, F1 1.00; 3 runs, 0 errors.');
    expect(stderr).toContain('eval: 3/3 runs, 0 errors');
  });

  it('a factory export and its skillsOptions: `always` injects invoice-chaser in every run, and the report shows the confusions', async () => {
    const { code, stdout } = await run(['skills', '--cases', 'cases.jsonl', '--model', 'factory.mjs', '--runs', '2', '--json']);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as EvalOutput;
    expect(report.confusions).toEqual([
      { expected: null, got: 'invoice-chaser', runs: 2 },
      { expected: 'pdf-forms', got: 'invoice-chaser', runs: 2 },
    ]);
    expect(report.totals).toEqual({ cases: 3, passed: 1, runs: 6, errors: 0, tp: 1, fp: 2, fn: 1, precision: 1 / 3, recall: 0.5, f1: 0.4 });
    const text = await run(['skills', '--cases', 'cases.jsonl', '--model', 'factory.mjs', '--runs', '2']);
    expect(text.stdout).toContain('Confusions (expected -> got: runs):\n  (none) -> invoice-chaser: 2\n  pdf-forms -> invoice-chaser: 2');
    expect(text.stdout).toContain('line 1: expect pdf-forms, rate 0.00, got invoice-chaser 2: "Fill in and flatten this PDF form"');
  });
});

describe('splitCases', () => {
  const cases: TriggerCase[] = Array.from({ length: 20 }, (_, i) => ({ query: `q${i}`, expect: i < 12 ? `s${i % 3}` : null, line: i + 1 }));

  it('puts the share of each kind of case in train, the same way for the same seed', () => {
    const sets = splitCases(cases, 0.6, 42);
    expect(splitCases(cases, 0.6, 42)).toEqual(sets);
    expect(sets.slice(0, 12).filter((s) => s === 'train')).toHaveLength(7);
    expect(sets.slice(12).filter((s) => s === 'train')).toHaveLength(5);
    expect(splitCases(cases, 0.6, 43)).not.toEqual(sets);
  });
});

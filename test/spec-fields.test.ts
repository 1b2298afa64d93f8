/**
 * `validate --strict` holds skills to the agentskills.io specification
 * (issue 21): fields outside it, metadata values that are not strings, and
 * allowed-tools as a list are strict-only warnings; recognised extensions
 * pass; without --strict nothing new is printed; flow-style YAML stays valid.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { RECOGNISED_EXTENSIONS, SPEC_FIELDS } from '../src/metadata/spec-fields.js';
import { cli, ROOT, useTempFolder, writeSkill } from './helpers/cli.js';

const temp = useTempFolder('mw-skills-spec-fields-');
let loose: string;
let clean: string;

beforeAll(async () => {
  loose = join(temp.path, 'loose');
  await writeSkill(
    loose,
    'extras',
    [
      'name: extras',
      'description: Has fields the specification does not define.',
      'dependencies: [numpy, pandas]',
      'triggers: pdf, forms',
      'metadata:',
      '  owner: team-a',
      '  related:',
      '    skill: other',
      '  priority: 3',
      '  beta: true',
      '  empty:',
      'allowed-tools:',
      '  - Read',
      '  - Bash',
    ].join('\n'),
  );
  clean = join(temp.path, 'clean');
  await writeSkill(
    clean,
    'recognised',
    [
      'name: recognised',
      'description: Uses only the specification and recognised extensions.',
      'license: MIT',
      'compatibility: Node 20',
      'allowed-tools: Read Bash',
      'metadata: { owner: team-a, tier: "2" }',
      'version: "1.0.0"',
      'author: Jane Doe',
      'tags: [pdf, forms]',
      ...Object.keys(RECOGNISED_EXTENSIONS)
        .filter((field) => !['version', 'author', 'tags'].includes(field))
        .map((field) => `${field}: ${field === 'disable-model-invocation' ? 'false' : field === 'user-invocable' ? 'true' : 'x'}`),
    ].join('\n'),
  );
});

describe('validate --strict: the specification shape rules', () => {
  it('names each field outside the specification and says it belongs under metadata', async () => {
    const { code, stdout } = await cli(['validate', '--strict', loose]);
    const file = join(loose, 'extras', 'SKILL.md');
    const lines = stdout.split('\n').filter((l) => l.startsWith(file));
    expect(lines.filter((l) => l.includes(' warning FIELD_NOT_IN_SPEC '))).toEqual([
      expect.stringMatching(/:4:1 warning FIELD_NOT_IN_SPEC "dependencies": is not a field .* Move it under `metadata:`/),
      expect.stringMatching(/:5:1 warning FIELD_NOT_IN_SPEC "triggers": is not a field/),
    ]);
    const metadata = lines.filter((l) => l.includes('METADATA_VALUE_NOT_STRING'));
    expect(metadata.map((l) => /metadata\.(\w+): is ([a-z ]+)/.exec(l)?.slice(1, 3).join(' '))).toEqual([
      'related a nested map',
      'priority a number ',
      'beta a boolean ',
      'empty an empty value ',
    ]);
    expect(metadata.every((l) => l.includes(':6:1 warning '))).toBe(true);
    expect(lines.filter((l) => l.includes('ALLOWED_TOOLS_LIST'))).toEqual([
      expect.stringMatching(/:13:1 warning ALLOWED_TOOLS_LIST allowed-tools: is a list.* `allowed-tools: Read Bash`/),
    ]);
    // Warnings: the skill loads, and --strict fails on them.
    expect(stdout).toContain('FAILED: 1 skill loaded');
    expect(code).toBe(1);
  });

  it('prints nothing new without --strict', async () => {
    const { code, stdout } = await cli(['validate', loose]);
    expect(stdout).not.toMatch(/FIELD_NOT_IN_SPEC|METADATA_VALUE_NOT_STRING|ALLOWED_TOOLS_LIST/);
    expect(stdout).toContain('OK: 1 skill loaded from 1 directory, 0 errors, 0 warnings.');
    expect(code).toBe(0);
  });

  it('passes the specification fields, every recognised extension and flow-style YAML', async () => {
    const { code, stdout } = await cli(['validate', '--strict', '--json', clean]);
    const report = JSON.parse(stdout) as { ok: boolean; diagnostics: unknown[]; counts: { skills: number } };
    expect(report.diagnostics).toEqual([]);
    expect(report).toMatchObject({ ok: true, counts: { skills: 1 } });
    expect(code).toBe(0);
  });

  it('lists in docs/frontmatter-fields.md exactly the fields the validator recognises', async () => {
    const page = await readFile(join(ROOT, 'docs', 'frontmatter-fields.md'), 'utf8');
    const section = (title: string) => {
      const start = page.indexOf(`## ${title}`);
      const end = page.indexOf('\n## ', start + 3);
      return [...page.slice(start, end === -1 ? undefined : end).matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]);
    };
    expect(section('Fields of the agentskills.io specification')).toEqual(SPEC_FIELDS);
    expect(section('Recognised extensions')).toEqual(Object.keys(RECOGNISED_EXTENSIONS));
  });
});

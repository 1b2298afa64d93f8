/**
 * `--embeddings <module>` on `index` and `eval`, with providers written as
 * plain modules (no server, no SISU: test/real-sisu/embeddings.test.ts runs
 * SISU's real client): what a module must export, and what each command
 * does when the provider cannot be used.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli, useTempFolder, writeSkill } from './helpers/cli.js';
import { readPrebuiltIndex, shapeOf } from './helpers/prebuilt.js';
import { nodeFileSystem } from '../src/base/fs.js';

const folder = useTempFolder('cli-embeddings-');
/** A provider module: `body` is the module's text after a working provider named `provider` is defined. */
async function module(name: string, body: string): Promise<string> {
  const file = join(folder.path, name);
  await writeFile(file, `const provider = { embed: async (texts) => texts.map((t) => [t.length, 1, 0]) };\n${body}\n`);
  return file;
}

describe('--embeddings <module>', () => {
  let skills: string;
  beforeAll(async () => {
    skills = join(folder.path, 'skills');
    await writeSkill(skills, 'pdf-forms', 'name: pdf-forms\ndescription: Fill PDF forms.');
    await writeSkill(skills, 'fleet-care', 'name: fleet-care\ndescription: Periodic maintenance for company cars.');
    await writeFile(join(folder.path, 'cases.jsonl'), '{"query": "fill a pdf form", "expect": "pdf-forms"}\n');
  });

  it('index stores the vectors of a default export made by a function, with its model', async () => {
    const embedder = await module('fn.mjs', "export default () => ({ provider, model: 'len-3' });");
    const output = join(folder.path, 'a.index');
    const run = await cli(['index', skills, '-o', output, '--embeddings', embedder]);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain('Embedded 2 skills with model len-3 (3 dimensions, int8, 1 call).');
    const read = await readPrebuiltIndex(output, { ...shapeOf([skills]), fs: nodeFileSystem });
    if (!read.ok) throw new Error(read.message);
    expect(read.result.vectors).toMatchObject({ model: 'len-3', count: 2, data: expect.any(String) });
  });

  it.each([
    ['missing.mjs', undefined, 'cannot import --embeddings'],
    ['nothing.mjs', 'export const other = 1;', 'exports no embeddings provider'],
    ['bad.mjs', 'export const embeddings = { provider, queryTimeoutMs: 0 };', '`embeddings.queryTimeoutMs` must be a whole number'],
    ['failing.mjs', "export default { embed: async () => { throw new Error('no key'); } };", 'no skill could be embedded (no key)'],
  ])('index writes nothing with %s', async (name, body, message) => {
    const embedder = body === undefined ? join(folder.path, name) : await module(name, body);
    const output = join(folder.path, `${name}.index.json`);
    const run = await cli(['index', skills, '-o', output, '--embeddings', embedder]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(message);
    await expect(readFile(output, 'utf8')).rejects.toThrow();
  });

  it('eval takes --embeddings only with --offline, and reports words and words + meaning', async () => {
    const embedder = await module('plain.mjs', 'export default provider;');
    const cases = join(folder.path, 'cases.jsonl');
    const wrong = await cli(['eval', skills, '--cases', cases, '--model', embedder, '--embeddings', embedder]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('--embeddings compares rankings offline');
    const run = await cli(['eval', skills, '--cases', cases, '--offline', '--embeddings', embedder]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      "Ranking (find_skills' order) of the 1 case with an expected skill, by words and by words + meaning (model default, 3 dimensions, meaningWeight 0.05):",
    );
    expect(run.stdout).toMatch(/\n {2}words +1\.00 +1\.00 +1\.000\n/);
    const none = await cli(['eval', skills, '--cases', cases, '--offline', '--embeddings', join(folder.path, 'missing.mjs')]);
    expect(none.code).toBe(1);
  });
});

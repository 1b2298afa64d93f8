/**
 * Local copies shared by real processes: several Node processes copy the same
 * skill version into one copy root at once, one dies in the middle of a copy,
 * and the next process on that root sweeps what it left. Each process runs
 * src/storage/copies bundled by esbuild (test/helpers/copies/copy-child.mjs).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const REPO = fileURLToPath(new URL('..', import.meta.url));
const CHILD = fileURLToPath(new URL('./helpers/copies/copy-child.mjs', import.meta.url));
const FILES = ['SKILL.md', 'scripts/run.py', 'scripts/lib/util.py', 'references/a.md', 'references/b.md'];

describe('local copies shared by several processes', () => {
  let work: string;
  let module: string;
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'copies-processes-'));
    module = join(work, 'copies.mjs');
    await build({
      stdin: {
        contents:
          "export { LocalCopies } from './src/storage/copies/local-copies.ts';\nexport { planCopy } from './src/storage/copies/copy-plan.ts';\n",
        resolveDir: REPO,
        loader: 'ts',
      },
      bundle: true,
      format: 'esm',
      platform: 'node',
      outfile: module,
      logLevel: 'error',
    });
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  /** Writes the objects of version `version` and a config; runs one process; its JSON line, or its exit code. */
  async function child(
    version: string,
    options: { crashAfter?: number } = {},
  ): Promise<{ folder?: string; reused?: boolean; exit: number; stderr?: string }> {
    const objects = join(work, `objects-${version}`);
    // Written once per version: rewriting them for each process would truncate a file another process is
    // reading (seen once at load average 11: a process listed a short file and made a version of its own).
    if (!existsSync(objects)) {
      for (const file of FILES) {
        mkdirSync(join(objects, file, '..'), { recursive: true });
        writeFileSync(join(objects, file), `${file} of ${version}\n${'x'.repeat(2000)}\n`);
      }
    }
    const config = join(work, `config-${version}-${Math.random().toString(36).slice(2)}.json`);
    const settings = {
      module,
      root: join(work, 'root'),
      source: 's3://team/prod/deploy',
      objects,
      files: FILES,
      etag: `"${version}"`,
      ...options,
    };
    writeFileSync(config, JSON.stringify(settings));
    try {
      const { stdout } = await run(process.execPath, [CHILD, config]);
      return { ...(JSON.parse(stdout) as { folder: string; reused: boolean }), exit: 0 };
    } catch (error) {
      const failed = error as { code: number; stderr?: string };
      return { exit: failed.code, stderr: failed.stderr ?? '' };
    }
  }

  const versions = () => readdirSync(join(work, 'root')).filter((name) => !name.startsWith('.'));
  const scratch = () => readdirSync(join(work, 'root')).filter((name) => name.startsWith('.partial-') || name.startsWith('.trash-'));

  it('four processes copying one version at once end with one whole folder; a copy cut short is never used, and swept', async () => {
    const together = await Promise.all([1, 2, 3, 4].map(() => child('v1')));
    // A process that failed shows its stderr here, not only an `undefined` among the folders.
    expect(together.filter((result) => result.exit !== 0)).toEqual([]);
    const folders = new Set(together.map((result) => result.folder));
    expect(folders.size).toBe(1);
    const [folder] = [...folders] as [string];
    for (const file of FILES) expect(readFileSync(join(folder, file), 'utf8')).toContain(`${file} of v1`);
    expect(versions()).toHaveLength(1);
    expect(scratch()).toEqual([]);

    // A process killed after reading two of five objects of the next version. On its way in, it swept v1:
    // the processes that copied it have ended without close(), and no running process holds it.
    expect((await child('v2', { crashAfter: 2 })).exit).toBe(3);
    expect(scratch()).toHaveLength(1);
    expect(versions()).toEqual([]);
    expect(existsSync(folder)).toBe(false);

    // The next process sweeps the dead one's partial folder and copies v2 whole.
    const next = await child('v2');
    expect(next).toMatchObject({ exit: 0, reused: false });
    expect(scratch()).toEqual([]);
    expect(versions()).toHaveLength(1);
    for (const file of FILES) expect(readFileSync(join(next.folder as string, file), 'utf8')).toContain(`${file} of v2`);
  }, 60_000);
});

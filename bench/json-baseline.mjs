// The plain baseline of the compact index's rows (issue 44): the package as it
// was just before its index became format 3, when it was JSON (format 2), built
// from git at JSON_BASELINE_COMMIT into bench-results/json-baseline/: its
// library (index.js) and its `sisu-skills` (cli.js), which writes its indexes.
// Bundled with esbuild (tsup's own bundler) inside the repository, so `zod`
// resolves from node_modules. Resolves with undefined, saying why, where git or
// that commit is missing (a shallow clone): the baseline's rows are then left out.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';

const run = promisify(execFile);
const repo = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');

/**
 * The last commit whose index was JSON: main just before format 3, so only the
 * format differs (the house issue's changes in between kept 2.4 MB more heap
 * at 20,000 skills whatever the format). Issue 44 was measured at aaa7059.
 */
export const JSON_BASELINE_COMMIT = 'ec7d051465cbe945cb20740957c7cd62a5c7cae5';

/**
 * `{ index, cli, commit }`: paths of the baseline's bundles (made once
 * per commit, then reused), or undefined with `log` told why.
 */
export async function jsonBaseline(log, commit = JSON_BASELINE_COMMIT) {
  const out = join(repo, 'bench-results', 'json-baseline', commit.slice(0, 12));
  const files = { index: join(out, 'index.js'), cli: join(out, 'cli.js'), commit };
  if (existsSync(files.cli)) return files;
  const tree = join(out, 'tree');
  try {
    await rm(out, { recursive: true, force: true });
    await mkdir(tree, { recursive: true });
    const { stdout } = await run('git', ['-C', repo, 'archive', '--format=tar', commit, 'src', 'package.json'], {
      encoding: 'buffer',
      maxBuffer: 64 << 20,
    });
    const tarFile = join(out, 'tree.tar');
    await writeFile(tarFile, stdout);
    await run('tar', ['-xf', tarFile, '-C', tree]);
    await rm(tarFile);
  } catch (error) {
    log(
      `[bench] the JSON index baseline is left out: commit ${commit.slice(0, 12)} cannot be read from git (${error.message.split('\n')[0]})`,
    );
    return undefined;
  }
  const shared = {
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: ['zod', '@sisu-ai/core', '@aws-sdk/client-s3'],
    logLevel: 'error',
  };
  await build({ ...shared, entryPoints: [join(tree, 'src', 'index.ts')], outfile: files.index });
  await build({ ...shared, entryPoints: [join(tree, 'src', 'cli.ts')], outfile: files.cli });
  return files;
}

// The bench builds each real-shaped library's prebuilt index in process, with
// the functions `sisu-skills index` uses (src/index/prebuilt/ is not in the
// package's public entry), bundled from source with esbuild (tsup's own
// bundler) into bench-results/. The first request from that index runs the
// package's own build (dist/) with the `index` option.
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const repo = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');

const ENTRY = `
import { prebuiltBuilder } from './src/index/prebuilt/build.ts';
import { prebuiltReader } from './src/index/prebuilt/read.ts';
import { RANKER_FORMAT } from './src/catalog/rank/data.ts';
import { RANKER_BUILDER } from './src/catalog/saved-ranker.ts';
export { serializePrebuiltIndex } from './src/index/prebuilt/write.ts';
export const { build: buildPrebuiltIndex } = prebuiltBuilder(RANKER_BUILDER);
export const { parse: parsePrebuiltIndex } = prebuiltReader(RANKER_FORMAT);
`;

/** Build the bundle; resolves with its path (inside the repository, so `zod` resolves from node_modules). */
export async function bundlePrebuilt() {
  const outDir = join(repo, 'bench-results');
  await mkdir(outDir, { recursive: true });
  const outfile = join(outDir, 'prebuilt.bundle.mjs');
  await build({
    stdin: { contents: ENTRY, resolveDir: repo, loader: 'ts', sourcefile: 'bench-prebuilt-entry.ts' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: ['zod', '@sisu-ai/core'],
    outfile,
    logLevel: 'warning',
  });
  return outfile;
}

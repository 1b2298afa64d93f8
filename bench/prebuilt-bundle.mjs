// src/prebuilt-index.ts is not in the package's entry yet (the lead wires the
// `index` option and the CLI command), so the bench bundles it from source
// with esbuild (tsup's own bundler) into bench-results/, next to everything
// a first request uses: the same code the package builds, at the same weight
// (the whole public entry is in the bundle too).
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const repo = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');

const ENTRY = `
export * from './src/index.ts';
export { buildPrebuiltIndex, readPrebuiltIndex, serializePrebuiltIndex } from './src/prebuilt-index.ts';
export { createLazySkillIndex, narrowIndex } from './src/skill-index.ts';
export { createCatalog } from './src/catalog.ts';
export { rankerForSkills } from './src/tools/find-skills.ts';
export { resolveOptions } from './src/options.ts';
export { loadSkillContent } from './src/discover/discover.ts';
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

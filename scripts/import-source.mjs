// Modules of src/ imported into a measuring script without a build: bundled from source with esbuild (tsup's own
// bundler), so a script can reach what the package's public entry does not export, or try weights before a build.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

export const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * `{ name: 'src/....ts' }` -> `{ name: module }`. The entries are bundled together with shared chunks, so a class
 * two of them use is one class (an instance made by one module passes another's instanceof).
 */
export async function importSource(entries) {
  const out = mkdtempSync(join(tmpdir(), 'mw-skills-source-'));
  try {
    await build({
      entryPoints: Object.fromEntries(Object.entries(entries).map(([name, file]) => [name, join(root, file)])),
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      outdir: out,
      logLevel: 'error',
    });
    const modules = {};
    for (const name of Object.keys(entries)) modules[name] = await import(pathToFileURL(join(out, `${name}.js`)).href);
    return modules;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

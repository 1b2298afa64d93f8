/**
 * The CLI's modules in layers: each imports only from layers below its own,
 * so there is no import cycle and a leaf (io.ts, usage.ts) can be read, and
 * reused, on its own. The library never imports the CLI.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src', import.meta.url));
const CLI = join(SRC, 'cli');

/** Lowest first. A new module goes in the lowest layer above everything it imports. */
const LAYERS: readonly (readonly string[])[] = [
  ['io', 'usage', 'scaffold', 'write-atomic', 'catalog-section', 'trigger-eval'],
  ['arg-values'],
  ['trust-args'],
  ['args', 'key-files', 'progress'],
  ['load'],
  ['overlap-command', 'embeddings-module', 'eval-ranking', 'observe'],
  ['commands', 'init', 'index-command', 'eval-command', 'keygen-command', 'sign-command', 'verify-command'],
  ['run'],
];
const layerOf = new Map(LAYERS.flatMap((names, layer) => names.map((name): [string, number] => [name, layer])));

/** Relative imports of a file (static, re-exports, side-effect and dynamic), resolved to .ts paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [
    ...text.matchAll(/^(?:import|export)\s[^'";]*?from\s+'(\.[^']+)'/gm),
    ...text.matchAll(/^import\s+'(\.[^']+)'/gm),
    ...text.matchAll(/\bimport\(\s*'(\.[^']+)'\s*\)/g),
  ].map((match) => match[1] ?? '');
  return specifiers.map((specifier) => resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
}

function tsFilesUnder(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => join(folder, name));
}

const cliModules = tsFilesUnder(CLI).map((file) => basename(file, '.ts'));

describe('src/cli layers', () => {
  it('every CLI module has a layer', () => {
    expect(cliModules.filter((name) => !layerOf.has(name))).toEqual([]);
  });

  it('each CLI module imports only CLI modules of lower layers (hence no cycle)', () => {
    const upward: string[] = [];
    for (const name of cliModules) {
      const own = layerOf.get(name) ?? -1;
      for (const target of importsOf(join(CLI, `${name}.ts`))) {
        if (dirname(target) !== CLI) continue;
        const other = basename(target, '.ts');
        if ((layerOf.get(other) ?? Infinity) >= own) upward.push(`${name} -> ${other}`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('only the binary (src/cli.ts) imports the CLI; the library never does', () => {
    const library = tsFilesUnder(SRC).filter((file) => dirname(file) !== CLI && !file.startsWith(`${CLI}/`));
    const importers = library
      .filter((file) => importsOf(file).some((target) => target.startsWith(`${CLI}/`)))
      .map((file) => relative(SRC, file));
    expect(importers).toEqual(['cli.ts']);
  });
});

/**
 * src/'s import graph as its tests read it: each module's relative imports
 * and re-exports (type-only ones included: a type import still ties a reader
 * to the module), as paths under src/.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SRC = fileURLToPath(new URL('../../src', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(path) : entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Each module's relative imports and re-exports (`from './x.js'`), as paths under src/. */
export function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, 'utf8');
    const targets = [
      ...text.matchAll(/^(?:import|export)\s[^;]*?from\s+'(\.[^']+)'/gms),
      ...text.matchAll(/^import\s+'(\.[^']+)'/gm),
      ...text.matchAll(/\bimport\(\s*'(\.[^']+)'\s*\)/g),
    ].map((match) => relative(SRC, resolve(dirname(file), (match[1] ?? '').replace(/\.js$/, '.ts'))));
    graph.set(relative(SRC, file), targets);
  }
  return graph;
}

/** The modules of src/ that `start` imports, directly or through others (`start` included). */
export function reachableFrom(graph: ReadonlyMap<string, readonly string[]>, start: string): Set<string> {
  const seen = new Set<string>();
  const visit = (module: string): void => {
    if (seen.has(module) || !graph.has(module)) return;
    seen.add(module);
    for (const next of graph.get(module) ?? []) visit(next);
  };
  visit(start);
  return seen;
}

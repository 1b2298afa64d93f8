/**
 * The layering rule, checked: no import cycle in src/, type-only imports
 * included (a type cycle still ties two modules together for a reader), and
 * the leaf modules import nothing of ours but other leaves.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(path) : entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Each module's relative imports and re-exports (`from './x.js'`), as paths under src/. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(/^(?:import|export)\s[^;]*?from\s+'(\.[^']+)'/gms)].map((match) =>
      relative(SRC, resolve(dirname(file), (match[1] ?? '').replace(/\.js$/, '.ts'))),
    );
    graph.set(relative(SRC, file), targets);
  }
  return graph;
}

function cycles(graph: Map<string, string[]>): string[] {
  const found: string[] = [];
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (node: string): void => {
    if (done.has(node)) return;
    const at = path.indexOf(node);
    if (at !== -1) {
      found.push([...path.slice(at), node].join(' -> '));
      return;
    }
    path.push(node);
    for (const next of graph.get(node) ?? []) if (graph.has(next)) visit(next);
    path.pop();
    done.add(node);
  };
  for (const node of graph.keys()) visit(node);
  return found;
}

describe('layers', () => {
  const graph = importGraph();

  it('src/ has no import cycle', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('leaf modules import only other leaves', () => {
    // fs.ts is the filesystem edge: it imports node only.
    const leaves = [
      'base/model.ts',
      'base/host.ts',
      'config/defaults.ts',
      'base/diagnostics.ts',
      'base/tool-names.ts',
      'base/fs.ts',
      'base/skill-file.ts',
      'base/paths.ts',
      'base/glob.ts',
      'base/hidden-characters.ts',
    ];
    for (const leaf of leaves) {
      expect(graph.has(leaf), `${leaf} exists`).toBe(true);
      const outside = (graph.get(leaf) ?? []).filter((target) => !leaves.includes(target));
      expect(outside, `${leaf} imports`).toEqual([]);
    }
  });

  it('the cycle finder finds a cycle', () => {
    expect(
      cycles(
        new Map([
          ['a', ['b']],
          ['b', ['c']],
          ['c', ['a']],
        ]),
      ),
    ).toEqual(['a -> b -> c -> a']);
  });
});

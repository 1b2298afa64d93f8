/**
 * The layering rule, checked: src/ is a stack of folders (LAYERS, lowest
 * first) and a module imports only from its own folder or folders below it;
 * no import cycle in src/, type-only imports included (a type cycle still
 * ties two modules together for a reader); the leaf modules import nothing
 * of ours but other leaves.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importGraph, SRC } from './helpers/import-graph.js';

/**
 * src/'s folders, lowest first, then the files at its top (each a layer of its own). Each folder's
 * README.md says what it does and names the folders it may import. A new folder goes in the lowest
 * place above everything it imports.
 */
const LAYERS: readonly string[] = [
  'base',
  'trust',
  'frontmatter',
  'metadata',
  'config',
  'storage',
  'watch',
  'source',
  'discover',
  'index',
  'catalog',
  'meaning',
  'resources',
  'tools',
  'run',
  'runtime',
  'middleware.ts',
  'cli',
  'cli.ts',
  'index.ts',
  'internals.ts',
];

/** A module's layer: its folder under src/, or its own name for a file at the top. */
const layerName = (module: string): string => module.split('/')[0] ?? module;

/** Imports that point up or sideways: `from -> to` for each edge whose target's layer is not at or below its source's. */
function upwardImports(graph: Map<string, string[]>, layers: readonly string[]): string[] {
  const rank = (module: string): number => layers.indexOf(layerName(module));
  const found: string[] = [];
  for (const [from, targets] of graph) {
    for (const to of targets) {
      if (!graph.has(to)) continue;
      if (layerName(to) !== layerName(from) && rank(to) >= rank(from)) found.push(`${from} -> ${to}`);
    }
  }
  return found;
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

  it('every module of src/ lies in a declared layer', () => {
    expect([...graph.keys()].filter((module) => !LAYERS.includes(layerName(module)))).toEqual([]);
  });

  it('each module imports only from its own folder or folders below it', () => {
    expect(upwardImports(graph, LAYERS)).toEqual([]);
  });

  it("each folder's README.md says what it may import: every folder it imports, and only folders below it", () => {
    for (const folder of LAYERS.filter((layer) => !layer.endsWith('.ts'))) {
      const readme = join(SRC, folder, 'README.md');
      expect(existsSync(readme), `src/${folder}/README.md exists`).toBe(true);
      const line =
        readFileSync(readme, 'utf8')
          .split('\n')
          .find((text) => text.startsWith('May import: ')) ?? '';
      expect(line, `src/${folder}/README.md has a "May import:" line`).not.toBe('');
      const allowed = [...line.matchAll(/`([^`/]+)\/?`/g)].map((match) => match[1] ?? '').filter((name) => name !== 'src');
      const below = LAYERS.slice(0, LAYERS.indexOf(folder));
      expect(
        allowed.filter((name) => !below.includes(name)),
        `src/${folder}/README.md names only layers below it`,
      ).toEqual([]);
      const imported = new Set(
        [...graph]
          .filter(([from]) => layerName(from) === folder)
          .flatMap(([, targets]) => targets.filter((to) => graph.has(to)).map(layerName)),
      );
      imported.delete(folder);
      expect(
        [...imported].filter((name) => !allowed.includes(name)).sort(),
        `src/${folder}/ imports only what its README.md allows`,
      ).toEqual([]);
    }
  });

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

  it('the layer check finds an import that points up or sideways', () => {
    const graph = new Map([
      ['base/a.ts', ['base/b.ts']],
      ['base/b.ts', ['catalog/c.ts']],
      ['catalog/c.ts', ['base/a.ts', 'catalog/d.ts']],
      ['catalog/d.ts', []],
      ['run/e.ts', ['tools/f.ts']],
      ['tools/f.ts', ['run/e.ts']],
      ['middleware.ts', ['cli.ts', 'tools/f.ts']],
      ['cli.ts', ['middleware.ts']],
    ]);
    expect(upwardImports(graph, ['base', 'catalog', 'run', 'tools', 'middleware.ts', 'cli.ts'])).toEqual([
      'base/b.ts -> catalog/c.ts',
      'run/e.ts -> tools/f.ts',
      'middleware.ts -> cli.ts',
    ]);
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

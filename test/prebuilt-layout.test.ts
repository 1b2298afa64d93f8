/**
 * The prebuilt index's rooms (src/index/prebuilt/): the middleware reads an
 * index and checks stamps at activation; building one is the CLI's alone,
 * so nothing the middleware or the package's main entry imports reaches the
 * builder (nor the catalog builders and discovery it drives for that).
 */
import { describe, expect, it } from 'vitest';
import { importGraph, reachableFrom } from './helpers/import-graph.js';

const PREBUILT = 'index/prebuilt/';
/** The builder and the writer of the file's bytes: the CLI's. */
const BUILDERS = [`${PREBUILT}build.ts`, `${PREBUILT}write.ts`, `${PREBUILT}in-order.ts`];

describe('the prebuilt index folder', () => {
  const graph = importGraph();

  it.each(['middleware.ts', 'index.ts'])('%s reaches reading and stamps, never the builder or the writer', (start) => {
    const reached = [...reachableFrom(graph, start)].filter((module) => module.startsWith(PREBUILT));
    expect(reached).toContain(`${PREBUILT}read.ts`);
    expect(reached).toContain(`${PREBUILT}stamps.ts`);
    for (const builder of BUILDERS) expect(reached).not.toContain(builder);
  });

  it('the CLI reaches the builder and the writer (the check above would see them)', () => {
    for (const builder of BUILDERS) {
      expect(graph.has(builder)).toBe(true);
      expect(reachableFrom(graph, 'cli/index-command.ts').has(builder)).toBe(true);
    }
  });

  it('reachableFrom follows imports through other modules, and only those', () => {
    const toy = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts', 'node-only.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect([...reachableFrom(toy, 'a.ts')].sort()).toEqual(['a.ts', 'b.ts', 'c.ts']);
  });
});

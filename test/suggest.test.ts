import { describe, expect, it } from 'vitest';
import { createRanker } from '../src/catalog/rank/score.js';
import type { RankEntry } from '../src/catalog/rank/build.js';
import { suggestNames, type SuggestionSource } from '../src/catalog/suggest.js';
import { closestNames, MAX_COMPARED_LENGTH, MAX_SUGGESTION_DISTANCE, type DistanceWork } from '../src/base/text.js';

/** A large library like the one in issue 11: many generated names, a few real skills among them. */
function largeLibrary(): RankEntry[] {
  const topics = ['analyze-audio', 'generate-git', 'render-chart', 'parse-logs', 'sync-calendar', 'translate-docs'];
  const entries: RankEntry[] = [];
  for (let i = 0; i < 3000; i++) {
    const topic = topics[i % topics.length] as string;
    entries.push({ name: `${topic}-${i}`, description: `Does ${topic.replace('-', ' ')} work number ${i}.` });
  }
  entries.push(
    {
      name: 'k8s-upgrade',
      description: 'Migrates Kubernetes clusters and workloads to a new version. Use when asked to migrate or upgrade Kubernetes.',
    },
    { name: 'helm-chart-scaffolding', description: 'Packages a Kubernetes app as a Helm chart.' },
    { name: 'pdf-tools', description: 'Fills and merges PDF forms.' },
  );
  return entries;
}

function sourceOf(entries: readonly RankEntry[], calls?: string[]): SuggestionSource {
  const ranker = createRanker(entries);
  return {
    names: entries.map((e) => e.name),
    rank: (query, limit) => {
      calls?.push(query);
      return ranker.rank(query, limit).map((r) => r.name);
    },
  };
}

describe('suggestNames', () => {
  const entries = largeLibrary();
  const source = sourceOf(entries);

  it('suggests skills about the requested words, where spelling alone suggests look-alike strings', () => {
    // What edit distance alone offers: generated names a few edits away, nothing about Kubernetes.
    const bySpelling = closestNames(source.names, 'kubernetes-migrate', { limit: 3 });
    expect(bySpelling).not.toContain('k8s-upgrade');
    const suggested = suggestNames(source, 'kubernetes-migrate', 3);
    expect(suggested[0]).toBe('k8s-upgrade');
    expect(suggested).toContain('helm-chart-scaffolding');
    expect(suggested).toHaveLength(3);
  });

  it('puts a typo of a name before anything the ranker finds', () => {
    expect(suggestNames(source, 'pdf-tols', 3)[0]).toBe('pdf-tools');
    expect(suggestNames(source, 'PDF-Tools', 1)).toEqual(['pdf-tools']);
    expect(suggestNames(source, 'generate-git-24', 2)).toEqual(['generate-git-241', 'generate-git-247']);
  });

  it('falls back to spelling without a ranker, and fills up to the limit', () => {
    const names = ['explain', 'debug', 'code-review'];
    expect(suggestNames({ names }, 'reveiw', 3)).toEqual(closestNames(names, 'reveiw'));
    expect(suggestNames({ names, rank: () => [] }, 'zzz', 5)).toHaveLength(3);
    expect(suggestNames({ names }, 'x', 0)).toEqual([]);
    expect(suggestNames({ names: [] }, 'x', 3)).toEqual([]);
  });

  it('never suggests a name twice', () => {
    const names = ['pdf-tools', 'pdf-merge', 'pdf-split'];
    const suggested = suggestNames({ names, rank: () => ['pdf-merge', 'pdf-tools', 'pdf-merge'] }, 'pdf', 5);
    expect(new Set(suggested).size).toBe(suggested.length);
    expect(suggested).toHaveLength(3);
  });

  // Issue 15: the cost of a suggestion must not grow with the request's length.
  it('does bounded work whatever the length of the request', () => {
    const calls: string[] = [];
    const counted = sourceOf(entries, calls);
    const cells = (requested: string): number => {
      const work: DistanceWork = { cells: 0 };
      suggestNames(counted, requested, 10, work);
      return work.cells;
    };
    const huge = `kubernetes-migrate-${'x'.repeat(100_000)}`;
    expect(cells(huge)).toBe(cells(huge.slice(0, MAX_COMPARED_LENGTH)));
    expect(cells(huge)).toBeLessThanOrEqual(entries.length * MAX_COMPARED_LENGTH * (2 * MAX_SUGGESTION_DISTANCE + 1));
    // The ranker gets a bounded prefix of the request, never all of it.
    for (const query of calls) expect(query.length).toBeLessThanOrEqual(256);
  });
});

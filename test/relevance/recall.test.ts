/**
 * Relevance of the local ranker on the shared corpus: our labeled queries,
 * recall@5 (a query is found when one of its wanted skills is in the top 5).
 * Skips when the corpus is not beside the project.
 */
import { expect, it } from 'vitest';
import { parseFrontmatter } from '../../src/frontmatter/parse.js';
import { createRanker } from '../../src/catalog/rank/score.js';
import { loadEntries as loadCorpus } from './corpus.mjs';
import { QUERIES } from './queries.mjs';
import { describeWith } from '../helpers/needs-shared.js';

const K = 5;
const loadEntries = () => loadCorpus(parseFrontmatter);

describeWith('corpus', 'ranker relevance on the shared corpus', () => {
  it('has at least 50 labeled queries, each naming skills that exist', () => {
    const names = new Set(loadEntries().map((e) => e.name));
    expect(QUERIES.length).toBeGreaterThanOrEqual(50);
    const unknown = QUERIES.flatMap((q) => q.want.filter((name) => !names.has(name)));
    expect(unknown).toEqual([]);
  });

  it(`finds a wanted skill in the top ${K} for at least 90% of queries`, () => {
    const entries = loadEntries();
    const ranker = createRanker(entries);
    let found = 0;
    let reciprocal = 0;
    const misses: string[] = [];
    for (const { query, want } of QUERIES) {
      const ranked = ranker.rank(query, 20).map((r) => r.name);
      const position = ranked.findIndex((name) => want.includes(name));
      if (position !== -1) reciprocal += 1 / (position + 1);
      if (position !== -1 && position < K) found++;
      else misses.push(`  "${query}" wants ${want.join('|')}; top ${K}: ${ranked.slice(0, K).join(', ')}`);
    }
    const recall = found / QUERIES.length;
    console.log(
      `relevance: ${entries.length} skills, ${QUERIES.length} queries, recall@${K} ${recall.toFixed(3)}, MRR@20 ${(reciprocal / QUERIES.length).toFixed(3)}` +
        (misses.length > 0 ? `\nmisses:\n${misses.join('\n')}` : ''),
    );
    expect(recall).toBeGreaterThanOrEqual(0.9);
  });
});

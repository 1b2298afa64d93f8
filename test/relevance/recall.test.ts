/**
 * Relevance of the local ranker on the shared corpus: our labeled queries,
 * recall@5 (a query is found when one of its wanted skills is in the top 5).
 * Skips when the corpus is not beside the project.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findSkillFiles } from '../../scripts/conformance-core.mjs';
import { parseFrontmatter } from '../../src/frontmatter/parse.js';
import { createRanker, type RankEntry } from '../../src/rank.js';
import { QUERIES } from './queries.js';

const CORPUS = fileURLToPath(new URL('../../../shared/corpus/skills', import.meta.url));
const present = existsSync(CORPUS);
if (!present) console.log(`relevance: corpus not found at ${CORPUS}, skipping`);

const K = 5;

function loadEntries(): RankEntry[] {
  const entries: RankEntry[] = [];
  const seen = new Set<string>();
  for (const file of findSkillFiles(CORPUS)) {
    const { metadata } = parseFrontmatter(readFileSync(file, 'utf8'), { file });
    const { name, description, tags } = metadata;
    if (typeof name !== 'string' || typeof description !== 'string') continue;
    // Duplicate names: the first wins, as in discovery.
    if (seen.has(name)) continue;
    seen.add(name);
    const tagList = Array.isArray(tags) ? tags.filter((t): t is string => typeof t === 'string') : undefined;
    entries.push({ name, description, ...(tagList ? { tags: tagList } : {}) });
  }
  return entries;
}

describe.skipIf(!present)('ranker relevance on the shared corpus', () => {
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

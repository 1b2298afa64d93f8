/**
 * Ranking by the instructions on the shared corpus: the labelled requests of
 * test/relevance/body-set (held-back part: never tuned on) and the older
 * queries of queries.mjs. Figures as scripts/body-rank-experiment.mjs prints
 * them (docs/performance.md); here, the floors they must not fall under.
 * Skips when the corpus is not beside the project.
 */
import { describe, expect, it } from 'vitest';
import { buildCatalog, catalogEntries } from '../../src/catalog/catalog.js';
import { parseFrontmatter } from '../../src/frontmatter/parse.js';
import { createRanker, createTunedRanker, RANK_TUNING } from '../../src/catalog/rank.js';
import type { SkillEntry } from '../../src/index/types.js';
import { CORPUS_DIR, corpusPresent, loadSkills } from './corpus.mjs';
import { loadRequests } from './body-set/set.mjs';
import { QUERIES } from './queries.mjs';

const present = corpusPresent();
if (!present) console.log(`relevance (instructions): corpus not found at ${CORPUS_DIR}, skipping`);

describe.skipIf(!present)('ranking by the instructions on the shared corpus', () => {
  const skills = present ? loadSkills(parseFrontmatter) : [];
  const entries = skills.map((s) => s.entry);
  const bodies = skills.map((s) => s.body);
  const requests = loadRequests();
  const heldBack = requests.filter((r) => r.heldBack);

  it('labels at least 200 requests, each naming skills that exist, about 40% held back', () => {
    const names = new Set(entries.map((e) => e.name));
    expect(requests.length).toBeGreaterThanOrEqual(200);
    expect(requests.flatMap((r) => r.accept.filter((name) => !names.has(name)))).toEqual([]);
    expect(heldBack.length / requests.length).toBeGreaterThan(0.3);
    expect(heldBack.length / requests.length).toBeLessThan(0.5);
  });

  it('finds more held-back requests in the top 1 and top 5 than the description alone', () => {
    const plain = createTunedRanker(entries, RANK_TUNING);
    const aware = createRanker(entries, bodies);
    const recall = (ranker: typeof plain, k: number): number =>
      heldBack.filter((r) => ranker.rank(r.request, k).some((m) => r.accept.includes(m.name))).length / heldBack.length;
    console.log(
      `held-back: description only @1 ${recall(plain, 1).toFixed(2)} @5 ${recall(plain, 5).toFixed(2)}; with instructions @1 ${recall(aware, 1).toFixed(2)} @5 ${recall(aware, 5).toFixed(2)}`,
    );
    expect(recall(aware, 1)).toBeGreaterThan(recall(plain, 1));
    expect(recall(aware, 5)).toBeGreaterThan(recall(plain, 5));
    expect(recall(aware, 5)).toBeGreaterThanOrEqual(0.65);
  });

  it('keeps the older queries at recall@5 >= 0.97', () => {
    const aware = createRanker(entries, bodies);
    const found = QUERIES.filter(({ query, want }) => aware.rank(query, 5).some((m) => want.includes(m.name))).length;
    expect(found / QUERIES.length).toBeGreaterThanOrEqual(0.97);
  });

  it('at the default budget over 2,000 skills, the catalog names an accepted skill for at least 85% of held-back requests', () => {
    const copies = skills
      .slice(0, 2000 - skills.length)
      .map((s) => ({ entry: { ...s.entry, name: `${s.entry.name}-copy` }, body: s.body }));
    const library = [...skills, ...copies];
    const list = catalogEntries(library.map((s) => ({ metadata: s.entry }) as SkillEntry));
    const ranker = createRanker(
      library.map((s) => s.entry),
      library.map((s) => s.body),
    );
    const accepted = (accept: readonly string[], name: string): boolean =>
      accept.includes(name) || accept.includes(name.replace(/-copy$/, ''));
    const listed = heldBack.filter((r) =>
      buildCatalog(list, { query: r.request, ranker }).report.included.some((name) => accepted(r.accept, name)),
    );
    expect(listed.length / heldBack.length).toBeGreaterThanOrEqual(0.85);
  });
});

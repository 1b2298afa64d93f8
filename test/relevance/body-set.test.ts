/**
 * Ranking by the instructions on the shared corpus: the held-back parts (never
 * tuned on) of both labelled sets, test/relevance/body-set (written from what
 * skills are for) and test/relevance/instructions-set (written from their
 * instructions), and the older queries of queries.mjs. Figures as
 * scripts/body-rank-experiment.mjs --held-back prints them (docs/performance.md,
 * beside plain BM25); here, the floors they must not fall under. Skips when the
 * corpus is not beside the project.
 */
import { expect, it } from 'vitest';
import { buildCatalog, catalogEntries } from '../../src/catalog/catalog.js';
import { parseFrontmatter } from '../../src/frontmatter/parse.js';
import { createRanker, createTunedRanker, RANK_TUNING, type Ranker } from '../../src/catalog/rank/score.js';
import type { SkillEntry } from '../../src/base/model.js';
import { loadSkills } from './corpus.mjs';
import { loadRequests as loadBodySet } from './body-set/set.mjs';
import { loadRequests as loadInstructionsSet } from './instructions-set/set.mjs';
import { QUERIES } from './queries.mjs';
import { describeWith } from '../helpers/needs-shared.js';
import { hasShared } from '../helpers/shared.js';

/** Held-back floors, each a little under what was measured once at the end of issue 29 (docs/performance.md). */
const FLOORS = {
  'body-set': { at1: 0.48, at5: 0.67, catalog: 0.9 },
  'instructions-set': { at1: 0.65, at5: 0.85, catalog: 0.9 },
};

describeWith('corpus', 'ranking by the instructions on the shared corpus', () => {
  const skills = hasShared('corpus') ? loadSkills(parseFrontmatter) : [];
  const entries = skills.map((s) => s.entry);
  const bodies = skills.map((s) => s.body);
  const aware = createRanker(entries, bodies);
  const sets = { 'body-set': loadBodySet(), 'instructions-set': loadInstructionsSet() };
  // The 2,000-skill library of the catalog figure: the corpus, then renamed copies of its first skills.
  const copies = skills.slice(0, 2000 - skills.length).map((s) => ({ entry: { ...s.entry, name: `${s.entry.name}-copy` }, body: s.body }));
  const library = [...skills, ...copies];
  const recall = (ranker: Ranker, list: ReadonlyArray<{ request: string; accept: string[] }>, k: number): number =>
    list.filter((r) => ranker.rank(r.request, k).some((m) => r.accept.includes(m.name))).length / list.length;

  it('labels at least 200 + 150 requests, each naming skills that exist, about 40% held back', () => {
    const names = new Set(entries.map((e) => e.name));
    expect(sets['body-set'].length).toBeGreaterThanOrEqual(200);
    expect(sets['instructions-set'].length).toBeGreaterThanOrEqual(150);
    for (const requests of Object.values(sets)) {
      expect(requests.flatMap((r) => r.accept.filter((name) => !names.has(name)))).toEqual([]);
      const share = requests.filter((r) => r.heldBack).length / requests.length;
      expect(share).toBeGreaterThan(0.3);
      expect(share).toBeLessThan(0.5);
    }
  });

  it.each(Object.keys(FLOORS) as Array<keyof typeof FLOORS>)(
    '%s: held back, @1 and @5 over their floors and above the description alone',
    (set) => {
      const heldBack = sets[set].filter((r) => r.heldBack);
      const plain = createTunedRanker(entries, RANK_TUNING);
      expect(recall(aware, heldBack, 1)).toBeGreaterThan(recall(plain, heldBack, 1));
      expect(recall(aware, heldBack, 5)).toBeGreaterThan(recall(plain, heldBack, 5));
      expect(recall(aware, heldBack, 1)).toBeGreaterThanOrEqual(FLOORS[set].at1);
      expect(recall(aware, heldBack, 5)).toBeGreaterThanOrEqual(FLOORS[set].at5);
    },
  );

  it('keeps the older queries at recall@5 >= 0.97', () => {
    const found = QUERIES.filter(({ query, want }) => aware.rank(query, 5).some((m) => want.includes(m.name))).length;
    expect(found / QUERIES.length).toBeGreaterThanOrEqual(0.97);
  });

  it('at the default budget over 2,000 skills, the catalog names an accepted skill for held-back requests of both sets', () => {
    const list = catalogEntries(library.map((s) => ({ metadata: s.entry }) as SkillEntry));
    const ranker = createRanker(
      library.map((s) => s.entry),
      library.map((s) => s.body),
    );
    const accepted = (accept: readonly string[], name: string): boolean =>
      accept.includes(name) || accept.includes(name.replace(/-copy$/, ''));
    for (const set of Object.keys(FLOORS) as Array<keyof typeof FLOORS>) {
      const heldBack = sets[set].filter((r) => r.heldBack);
      const listed = heldBack.filter((r) =>
        buildCatalog(list, { query: r.request, ranker }).report.included.some((name) => accepted(r.accept, name)),
      );
      expect(listed.length / heldBack.length, set).toBeGreaterThanOrEqual(FLOORS[set].catalog);
    }
  });
});

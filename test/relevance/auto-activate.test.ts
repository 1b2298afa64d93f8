/**
 * The default `autoActivate` threshold against what it was chosen from
 * (scripts/auto-activate-threshold.mjs prints the whole table): on the shared
 * corpus and on the five example skills, requests that fit a skill activate
 * it and everyday requests activate nothing. Skips when the corpus is absent.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/config/defaults.js';
import { parseFrontmatter } from '../../src/frontmatter/parse.js';
import { createRanker } from '../../src/catalog/rank/score.js';
import { loadEntries, loadSkills, measureAutoActivation } from './corpus.mjs';
import { FIXTURE_QUERIES, NEGATIVES, NEGATIVES_HELD_OUT, QUERIES, QUERIES_HELD_OUT } from './queries.mjs';
import { describeWith } from '../helpers/needs-shared.js';
import { hasShared } from '../helpers/shared.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/skills', import.meta.url));
const { threshold, maxSkills } = DEFAULTS.autoActivate;
const negatives = [...NEGATIVES, ...NEGATIVES_HELD_OUT];

/** The default threshold's bar on the corpus: most labelled requests activate a wanted skill, no everyday request does (at most one held out). */
function expectDefaultThresholdHolds(ranker: ReturnType<typeof createRanker>): void {
  const figures = measureAutoActivation(ranker, { queries: QUERIES, negatives: NEGATIVES, threshold, maxSkills });
  expect(figures.recall).toBeGreaterThanOrEqual(0.8);
  expect(figures.precision).toBeGreaterThanOrEqual(0.9);
  expect(figures.falseHits).toEqual([]);
  const heldOut = measureAutoActivation(ranker, { queries: QUERIES_HELD_OUT, negatives: NEGATIVES_HELD_OUT, threshold, maxSkills });
  expect(heldOut.recall).toBeGreaterThanOrEqual(0.6);
  expect(heldOut.falseOnNegatives).toBeLessThanOrEqual(1);
}

describe('autoActivate default threshold on the example skills', () => {
  const entries = loadEntries(parseFrontmatter, FIXTURES);
  const ranker = createRanker(entries);

  it('labels only skills that exist', () => {
    const names = new Set(entries.map((e) => e.name));
    expect(FIXTURE_QUERIES.flatMap((q) => q.want.filter((name) => !names.has(name)))).toEqual([]);
  });

  it("activates the demo's own request, and none of the everyday requests", () => {
    const demo = ranker.rank('Can you review the change I made to src/auth/session.ts?', 1)[0];
    expect(demo?.name).toBe('code-review');
    expect(demo?.score).toBeGreaterThanOrEqual(threshold);
    const figures = measureAutoActivation(ranker, { queries: FIXTURE_QUERIES, negatives, threshold, maxSkills });
    expect(figures.falseHits).toEqual([]);
    expect(figures.wrongOnLabeled).toBe(0);
    expect(figures.recall).toBeGreaterThanOrEqual(0.6);
  });
});

describeWith('corpus', 'autoActivate default threshold on the shared corpus, with the instructions ranked too', () => {
  const skills = hasShared('corpus') ? loadSkills(parseFrontmatter) : [];
  const ranker = createRanker(
    skills.map((s) => s.entry),
    skills.map((s) => s.body),
  );

  it('activates as often, and no more everyday requests, than on the descriptions alone', () => {
    expectDefaultThresholdHolds(ranker);
  });
});

describeWith('corpus', 'autoActivate default threshold on the shared corpus', () => {
  const entries = hasShared('corpus') ? loadEntries(parseFrontmatter) : [];
  const ranker = createRanker(entries);

  it('labels only skills that exist, in the held-out requests too', () => {
    const names = new Set(entries.map((e) => e.name));
    expect(QUERIES_HELD_OUT.flatMap((q) => q.want.filter((name) => !names.has(name)))).toEqual([]);
  });

  it('activates a wanted skill for most labeled requests, with few wrong activations', () => {
    expectDefaultThresholdHolds(ranker);
  });
});

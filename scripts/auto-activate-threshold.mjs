// Usage: npx tsup --silent && node scripts/auto-activate-threshold.mjs [--misses] [--description-only]
// Measures `autoActivate` with the built package, for thresholds from 0.1 to
// 0.5, on two libraries: the shared corpus (1,088 skills; the labeled requests
// of test/relevance/queries.mjs) and the five example skills of
// fixtures/skills (FIXTURE_QUERIES). Every request in NEGATIVES should
// activate nothing, on either library. The *_HELD_OUT sets were written after
// the scale and the default threshold were chosen on the others, to check the
// choice. Recall: labeled requests that activated a wanted skill; precision:
// wanted activations / all activations (labeled and negative requests);
// false: negatives that activated a skill; wrong: labeled requests that
// activated an unwanted skill. --misses lists, at the default threshold, what
// each negative activated and each labeled request missed. Each table is printed twice:
// ranking by name, tags and description only, then with the instructions indexed too
// (what the middleware ranks with once it has read them, `rankInstructions`).
import { fileURLToPath } from 'node:url';
import { DEFAULTS, parseFrontmatter } from '../dist/index.js';
import { createRanker } from '../dist/internals.js';
import { corpusPresent, CORPUS_DIR, loadSkills, measureAutoActivation } from '../test/relevance/corpus.mjs';
import { FIXTURE_QUERIES, NEGATIVES, NEGATIVES_HELD_OUT, QUERIES, QUERIES_HELD_OUT } from '../test/relevance/queries.mjs';

if (!corpusPresent()) {
  console.error(`corpus not found at ${CORPUS_DIR}`);
  process.exit(2);
}
const FIXTURES = fileURLToPath(new URL('../fixtures/skills', import.meta.url));
const { maxSkills, threshold: current } = DEFAULTS.autoActivate;
const corpusSkills = loadSkills(parseFrontmatter);
const fixtureSkills = loadSkills(parseFrontmatter, FIXTURES);
const corpus = corpusSkills.map((s) => s.entry);
const fixtures = fixtureSkills.map((s) => s.entry);
const withInstructions = process.argv.includes('--description-only') ? [false] : [false, true];
const allNegatives = [...NEGATIVES, ...NEGATIVES_HELD_OUT];

const thresholds = [];
for (let t = 0.1; t <= 0.5001; t += 0.025) thresholds.push(Math.round(t * 1000) / 1000);

const pct = (x) => x.toFixed(2);
console.log(
  `autoActivate, maxSkills ${maxSkills} (default threshold ${current}); corpus: ` +
    `${corpus.length} skills, ${QUERIES.length} labeled + ${QUERIES_HELD_OUT.length} held-out; ` +
    `fixtures: ${fixtures.length} skills, ${FIXTURE_QUERIES.length} labeled; negatives: ${NEGATIVES.length} + ${NEGATIVES_HELD_OUT.length} held-out`,
);
for (const instructions of withInstructions) {
  const big = createRanker(corpus, instructions ? corpusSkills.map((s) => s.body) : undefined);
  const small = createRanker(fixtures, instructions ? fixtureSkills.map((s) => s.body) : undefined);
  console.log(`\n${instructions ? 'With the instructions' : 'Name, tags and description only'}:`);
  console.log(
    'threshold | corpus recall | corpus precision | corpus false (negatives) | corpus false (held-out) ' +
      '| wrong | held-out recall | fixtures recall | fixtures precision | fixtures false (all negatives)',
  );
  console.log('--- | --- | --- | --- | --- | --- | --- | --- | --- | ---');
  for (const threshold of thresholds) {
    const at = (ranker, queries, negatives) => measureAutoActivation(ranker, { queries, negatives, threshold, maxSkills });
    const tuned = at(big, QUERIES, NEGATIVES);
    const held = at(big, QUERIES_HELD_OUT, NEGATIVES_HELD_OUT);
    const fx = at(small, FIXTURE_QUERIES, allNegatives);
    console.log(
      [
        threshold.toFixed(3),
        pct(tuned.recall),
        pct(tuned.precision),
        `${tuned.falseOnNegatives}/${tuned.negatives}`,
        `${held.falseOnNegatives}/${held.negatives}`,
        tuned.wrongOnLabeled + held.wrongOnLabeled,
        pct(held.recall),
        pct(fx.recall),
        pct(fx.precision),
        `${fx.falseOnNegatives}/${fx.negatives}`,
      ].join(' | '),
    );
  }

  if (process.argv.includes('--misses')) {
    console.log(`\n--misses (${instructions ? 'with the instructions' : 'description only'}):`);
    const highestNegative = (ranker) =>
      allNegatives
        .map((text) => ({ text, top: ranker.rank(text, 1)[0] }))
        .filter((n) => n.top)
        .sort((a, b) => b.top.score - a.top.score)
        .slice(0, 5);
    for (const [label, ranker, queries] of [
      ['corpus', big, [...QUERIES, ...QUERIES_HELD_OUT]],
      ['fixtures', small, FIXTURE_QUERIES],
    ]) {
      console.log(`\n${label}: highest-scoring negatives`);
      for (const { text, top } of highestNegative(ranker)) console.log(`  ${top.score.toFixed(3)} ${top.name} <- "${text}"`);
      console.log(`${label}: labeled requests not activated at ${current}`);
      for (const { query, want } of queries) {
        const top = ranker.rank(query, 1)[0];
        if (!top || top.score < current || !want.includes(top.name)) {
          console.log(`  ${top ? `${top.score.toFixed(3)} ${top.name}` : 'no match'} <- "${query}" (wants ${want.join('|')})`);
        }
      }
    }
  }
}

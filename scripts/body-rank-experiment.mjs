// Usage: node scripts/body-rank-experiment.mjs [--held-back] [--all] [--prf] [--try=<json>] [--misses] [--dump=<file>]
// Measures the ranker on the labelled request sets over the shared corpus (1,088 distinct
// skills), beside the plain BM25 baseline (scripts/plain-bm25.mjs) every figure must stand by:
// - test/relevance/body-set: requests written from what skills are for (issue 23);
// - test/relevance/instructions-set: requests written from the skills' instructions (issue 29),
//   when it is present.
// Per set and part: @1, @5 (a request is found when one of the skills it accepts is ranked first /
// in the top 5), MRR@10 and catalog: at the default budget (8,000 characters) over a 2,000-skill
// library (the corpus and renamed copies of its first 912 skills, as the bench's real-shaped
// library repeats it), whether the ranked catalog lists an accepted skill (or a copy of one).
// The last column is recall@5 of the older labelled queries (test/relevance/queries.mjs).
// src/catalog/rank/ is bundled from source, so every weight can be tried without a build.
// Without --held-back only the train parts are measured: tune there. --held-back adds the
// held-back parts, for the final figures. --all adds the candidates that were tried; --try adds
// others, as JSON [[label, change of RANK_TUNING], ...], e.g. --try='[["w1", {"bodyWeight": 1}]]'. --prf adds
// pseudo-relevance feedback over the chosen ranker (tried, left out; no catalog column).
// --misses lists the chosen ranker's train misses; --dump writes its top 5 per request as JSON.
import { writeFileSync } from 'node:fs';
import { QUERIES } from '../test/relevance/queries.mjs';
import { plainBm25 } from './plain-bm25.mjs';
import { loadSkills } from '../test/relevance/corpus.mjs';
import { bundleSources, libraryOf, loadParts } from './rank-experiment-setup.mjs';

const args = process.argv.slice(2);
const showHeld = args.includes('--held-back');

const { rank: rankModule, catalog: catalogModule, parse } = await bundleSources();
const { createTunedRanker, RANK_TUNING } = rankModule;
const { buildCatalog, catalogEntries } = catalogModule;

// The corpus as the relevance tests read it: first of each name wins, as in discovery.
const skills = loadSkills(parse.parseFrontmatter);
const library = libraryOf(skills);
const accepts = (accept, name) => accept.includes(name) || (name.endsWith('-copy') && accept.includes(name.slice(0, -5)));
const catalogList = catalogEntries(library.map((s) => ({ metadata: s.entry })));
const parts = await loadParts(showHeld);

/** What a candidate ranks with: a local ranker (and its 2,000-skill twin for the catalog), or plain BM25. */
function rankersOf(candidate) {
  if (candidate.plain !== undefined) {
    const plain = plainBm25(
      skills.map((s) => ({ ...s.entry, body: s.body })),
      candidate.plain,
    );
    return { rank: (query, k) => plain.rank(query, k).map((r) => r.name) };
  }
  const bodies = (list) => (candidate.bodies ? list.map((s) => s.body) : undefined);
  const ranker = createTunedRanker(
    skills.map((s) => s.entry),
    candidate.tuning,
    bodies(skills),
  );
  const big = createTunedRanker(
    library.map((s) => s.entry),
    candidate.tuning,
    bodies(library),
  );
  if (candidate.prf) return { rank: feedbackRank(ranker, candidate.prf) };
  return { rank: (query, k) => ranker.rank(query, k).map((r) => r.name), big };
}

/**
 * Pseudo-relevance feedback (tried for issue 29, left out): the request's words plus the descriptions (and, with
 * `withBody`, the instructions' first 600 characters) of its first `depth` results, ranked again; each skill scores
 * its first score plus `alpha` times its second.
 */
function feedbackRank(ranker, { depth, alpha, withBody }) {
  const byName = new Map(skills.map((s) => [s.entry.name, s]));
  return (query, k) => {
    const first = ranker.rank(query, 100);
    const feedback = first
      .slice(0, depth)
      .map((r) => byName.get(r.name))
      .map((s) => `${s?.entry.description ?? ''} ${withBody ? (s?.body ?? '').slice(0, 600) : ''}`)
      .join(' ');
    const scores = new Map(first.map((r) => [r.name, r.score]));
    for (const r of ranker.rank(`${query} ${feedback}`, 100)) scores.set(r.name, (scores.get(r.name) ?? 0) + alpha * r.score);
    return [...scores]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, k)
      .map(([name]) => name);
  };
}

/** @1, @5, MRR@10 and catalog of one part, with its misses and top fives. */
function measurePart({ rank, big }, list) {
  const sum = { at1: 0, at5: 0, mrr: 0, catalog: 0 };
  const misses = [];
  const tops = {};
  for (const { request, accept } of list) {
    const ten = rank(request, 10);
    const found = ten.findIndex((name) => accept.includes(name));
    if (found >= 0) sum.mrr += 1 / (found + 1);
    if (found === 0) sum.at1++;
    if (found >= 0 && found < 5) sum.at5++;
    else misses.push(`"${request}" wants ${accept.join('|')}; top 5: ${ten.slice(0, 5).join(', ')}`);
    tops[request] = { found, top: ten.slice(0, 5) };
    if (big) {
      const { report } = buildCatalog(catalogList, { query: request, ranker: big });
      if (report.included.some((name) => accepts(accept, name))) sum.catalog++;
    }
  }
  const n = list.length;
  return { at1: sum.at1 / n, at5: sum.at5 / n, mrr: sum.mrr / n, catalog: big ? sum.catalog / n : undefined, misses, tops };
}

function measure(candidate) {
  const rankers = rankersOf(candidate);
  const results = parts.map(({ list }) => measurePart(rankers, list));
  let found = 0;
  for (const { query, want } of QUERIES) if (rankers.rank(query, 5).some((name) => want.includes(name))) found++;
  return { results, relevance: found / QUERIES.length };
}

const tuned = (change) => ({ ...RANK_TUNING, ...change, body: { ...RANK_TUNING.body, ...(change.body ?? {}) } });
const CHOSEN = 'chosen (RANK_TUNING)';
const candidates = [
  { label: 'plain BM25, name x2 + description', plain: 0 },
  { label: 'plain BM25 + instructions x1', plain: 1 },
  { label: 'plain BM25 + instructions x2 (the baseline)', plain: 2 },
  { label: 'ours, description only', tuning: RANK_TUNING, bodies: false },
  { label: CHOSEN, tuning: RANK_TUNING, bodies: true },
];
if (args.includes('--prf'))
  for (const [depth, alpha, withBody] of [
    [3, 0.3, false],
    [3, 0.6, false],
    [5, 0.3, false],
    [2, 0.3, false],
    [3, 0.3, true],
  ])
    candidates.push({
      label: `prf depth ${depth} alpha ${alpha}${withBody ? ' body' : ''}`,
      tuning: RANK_TUNING,
      bodies: true,
      prf: { depth, alpha, withBody },
    });
const tries = args.find((a) => a.startsWith('--try='))?.slice(6);
if (tries) for (const [label, change] of JSON.parse(tries)) candidates.push({ label, tuning: tuned(change), bodies: true });
if (args.includes('--all')) {
  const add = (label, change) => candidates.push({ label, tuning: tuned(change), bodies: true });
  for (const bodyWeight of [0.3, 0.5, 0.7, 1, 1.25, 2]) add(`bodyWeight ${bodyWeight}`, { bodyWeight });
  for (const words of [500, 600, 2000]) add(`words ${words}`, { body: { words } });
  for (const terms of [24, 128, 512]) add(`terms ${terms} (before issue 29: 24, with candidates 96)`, { body: { terms } });
  for (const headingWeight of [1, 5]) add(`headingWeight ${headingWeight}`, { body: { headingWeight } });
  for (const b of [0.5, 0.9]) add(`body b ${b}`, { body: { b } });
  add('code blocks read', { body: { code: true } });
  add('description fields name x2 (2/2/1/1)', { fields: [2, 2, 1, 1] });
  add('the body-only weights before issue 29 (24 terms, 0.3, b 0.5)', { bodyWeight: 0.3, body: { terms: 24, candidates: 96, b: 0.5 } });
}

const pct = (x) => (x === undefined ? '' : x.toFixed(2));
const heads = ['candidate'];
for (const { set, part } of parts) heads.push(`${set} ${part} @1`, '@5', 'MRR', 'catalog');
heads.push('queries.mjs recall@5');
console.log(
  `${skills.length} skills (catalog: ${library.length}); ${parts.map((p) => `${p.set} ${p.part} ${p.list.length}`).join(', ')}; ` +
    `${QUERIES.length} older queries`,
);
console.log(heads.join(' | '));
console.log(heads.map(() => '---').join(' | '));
const dump = args.find((a) => a.startsWith('--dump='))?.slice(7);
for (const candidate of candidates) {
  const { results, relevance } = measure(candidate);
  const row = [candidate.label];
  for (const r of results) row.push(pct(r.at1), pct(r.at5), r.mrr.toFixed(3), pct(r.catalog));
  row.push(pct(relevance));
  console.log(row.join(' | '));
  if (candidate.label !== CHOSEN) continue;
  if (dump) writeFileSync(dump, JSON.stringify(Object.assign({}, ...results.map((r) => r.tops)), null, 1));
  if (args.includes('--misses'))
    results.forEach((r, i) => r.misses.forEach((m) => console.log(`  [${parts[i].set} ${parts[i].part}] ${m}`)));
}

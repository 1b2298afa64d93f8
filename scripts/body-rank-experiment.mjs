// Usage: node scripts/body-rank-experiment.mjs [--held-back] [--all [--only=<label part>]] [--misses] [--dump=<file>] [--mrr]
// Measures the local ranker on the labelled requests of test/relevance/body-set over the
// shared corpus (1,088 distinct skills), for the description-only ranker and for
// body-aware candidates (src/catalog/rank.ts and src/catalog/body-terms.ts bundled from source, so every
// weight can be tried without a build):
// - @1, @5: a request is found when one of the skills it accepts is ranked first / in the top 5;
// - catalog: at the default budget (8,000 characters) over a 2,000-skill library (the corpus
//   and renamed copies of its first 912 skills, as the bench's real-shaped library repeats
//   it), whether the ranked catalog lists an accepted skill (or a copy of one);
// - relevance: recall@5 of the older labelled queries of test/relevance/queries.mjs.
// Without --held-back only the train part is printed: tune there. --held-back adds the
// held-back part, for the final figures. --all prints every candidate, not only the chosen.
// --dump writes the chosen ranker's top 5 for each train request (held-back too with
// --held-back) to <file> as JSON, to compare two versions request by request. --mrr adds the
// train part's mean reciprocal rank of the first accepted skill in the top 10: it moves when
// a change only shifts ranks (within the top 5, or just below it), which @1 and @5 do not show.
import { build } from 'esbuild';
import { readFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadRequests } from '../test/relevance/body-set/set.mjs';
import { QUERIES } from '../test/relevance/queries.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const corpusDir = join(root, '..', 'shared', 'corpus');
const args = process.argv.slice(2);
const showHeld = args.includes('--held-back');

const out = mkdtempSync(join(tmpdir(), 'body-rank-'));
await build({
  entryPoints: {
    rank: join(root, 'src/catalog/rank.ts'),
    catalog: join(root, 'src/catalog/catalog.ts'),
    parse: join(root, 'src/frontmatter/parse.ts'),
  },
  bundle: true,
  format: 'esm',
  platform: 'node',
  outdir: out,
  logLevel: 'error',
});
const { createTunedRanker, RANK_TUNING } = await import(join(out, 'rank.js'));
const { buildCatalog, catalogEntries } = await import(join(out, 'catalog.js'));
const { parseFrontmatter } = await import(join(out, 'parse.js'));
rmSync(out, { recursive: true, force: true });

// The corpus: first of each name wins, as in discovery.
const manifest = readFileSync(join(corpusDir, 'manifest.jsonl'), 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line));
const skills = [];
const seen = new Set();
for (const item of manifest) {
  const text = readFileSync(join(corpusDir, item.file), 'utf8');
  const { metadata, body } = parseFrontmatter(text, { file: item.file });
  const { name, description, tags } = metadata;
  if (typeof name !== 'string' || typeof description !== 'string' || seen.has(name)) continue;
  seen.add(name);
  const tagList = Array.isArray(tags) ? tags.filter((t) => typeof t === 'string') : undefined;
  skills.push({
    entry: { name, description, ...(tagList ? { tags: tagList } : {}) },
    body,
    resources: item.siblings.map((s) => s.path).filter((p) => p !== 'SKILL.md'),
  });
}

// The 2,000-skill library: the corpus, then copies of its first skills under new names.
const LIBRARY = 2000;
const copies = skills.slice(0, LIBRARY - skills.length).map((s) => ({ ...s, entry: { ...s.entry, name: `${s.entry.name}-copy` } }));
const library = [...skills, ...copies];
const accepts = (accept, name) => accept.includes(name) || (name.endsWith('-copy') && accept.includes(name.slice(0, -5)));

const requests = loadRequests();
const parts = { train: requests.filter((r) => !r.heldBack), 'held-back': requests.filter((r) => r.heldBack) };

function measure(tuning, withBodies, rankedListed) {
  const ranker = createTunedRanker(
    skills.map((s) => s.entry),
    tuning,
    withBodies ? skills.map((s) => s.body) : undefined,
    withBodies ? skills.map((s) => s.resources) : undefined,
  );
  const big = createTunedRanker(
    library.map((s) => s.entry),
    tuning,
    withBodies ? library.map((s) => s.body) : undefined,
    withBodies ? library.map((s) => s.resources) : undefined,
  );
  const catalogList = catalogEntries(library.map((s) => ({ metadata: s.entry })));
  const result = {};
  const misses = [];
  const tops = {};
  for (const [part, list] of Object.entries(parts)) {
    let at1 = 0;
    let at5 = 0;
    let listed = 0;
    let reciprocal = 0;
    for (const { request, accept } of list) {
      const ten = ranker.rank(request, 10).map((r) => r.name);
      const found = ten.findIndex((name) => accept.includes(name));
      if (found >= 0) reciprocal += 1 / (found + 1);
      const top = ten.slice(0, 5);
      if (part === 'train' || showHeld) tops[request] = { found: top.findIndex((name) => accept.includes(name)), top };
      if (accept.includes(top[0])) at1++;
      if (top.some((name) => accept.includes(name))) at5++;
      else misses.push(`  [${part}] "${request}" wants ${accept.join('|')}; top 5: ${top.join(', ')}`);
      const { report } = buildCatalog(catalogList, {
        query: request,
        ranker: big,
        ...(rankedListed === undefined ? {} : { rankedListed }),
      });
      if (report.included.some((name) => accepts(accept, name))) listed++;
    }
    result[part] = {
      at1: at1 / list.length,
      at5: at5 / list.length,
      catalog: listed / list.length,
      mrr: reciprocal / list.length,
      n: list.length,
    };
  }
  let found = 0;
  for (const { query, want } of QUERIES) if (ranker.rank(query, 5).some((r) => want.includes(r.name))) found++;
  result.relevance = found / QUERIES.length;
  return { result, misses, tops };
}

const body = RANK_TUNING.body;
const unexpanded = { ...RANK_TUNING, expansionWeight: 0 };
const candidates = [
  ['description only, catalog lists 20 matches (before issue 23)', unexpanded, false, 20],
  ['description only, catalog lists 250 matches', unexpanded, false],
  ['description only, everyday words expanded', RANK_TUNING, false],
  ['body-aware, no expansion (before the lexicon)', unexpanded, true],
  ['body-aware (chosen: RANK_TUNING), catalog lists 250 matches', RANK_TUNING, true],
];
if (args.includes('--all')) {
  const tuned = (label, change) => candidates.push([label, { ...RANK_TUNING, ...change, body: { ...body, ...(change.body ?? {}) } }, true]);
  for (const expansionWeight of [0.3, 0.7, 1]) tuned(`expansionWeight ${expansionWeight}`, { expansionWeight });
  for (const bodyWeight of [0.15, 0.5, 0.7, 1]) tuned(`bodyWeight ${bodyWeight}`, { bodyWeight });
  for (const words of [200, 500, 2000, 5000]) tuned(`words ${words}`, { body: { words } });
  for (const terms of [16, 32, 64, 96])
    tuned(`terms ${terms} (candidates ${Math.max(terms, body.candidates)})`, {
      body: { terms, candidates: Math.max(terms, body.candidates) },
    });
  tuned('terms: all (no rare-term cut)', { body: { terms: 100000, candidates: 100000 } });
  for (const headingWeight of [1, 2, 5]) tuned(`headingWeight ${headingWeight}`, { body: { headingWeight } });
  for (const triggerWeight of [2, 4]) tuned(`"when to use" sections x${triggerWeight}`, { body: { triggerWeight } });
  tuned('code blocks read', { body: { code: true } });
  for (const resourceWeight of [1, 3]) tuned(`resource names, weight ${resourceWeight}`, { body: { resourceWeight } });
  for (const b of [0.25, 0.75, 1]) tuned(`body b ${b}`, { body: { b } });
  tuned('description fields 3/2/1/1 -> 3/2/2/1 (when x2)', { fields: [3, 2, 2, 1] });
  tuned('description fields -> 2/2/1/1 (name x2)', { fields: [2, 2, 1, 1] });
}

const pct = (x) => x.toFixed(2);
const heads = ['candidate', 'train @1', 'train @5', 'train catalog'];
if (showHeld) heads.push('held-back @1', 'held-back @5', 'held-back catalog');
heads.push('queries.mjs recall@5');
console.log(
  `${skills.length} skills (catalog: ${library.length}); ${parts.train.length} train + ${parts['held-back'].length} held-back requests; ${QUERIES.length} older queries`,
);
console.log(heads.join(' | '));
console.log(heads.map(() => '---').join(' | '));
const only = args.find((a) => a.startsWith('--only='))?.slice(7);
for (const [label, tuning, withBodies, rankedListed] of candidates) {
  if (only && !label.includes(only) && !label.startsWith('description only') && !label.startsWith('body-aware')) continue;
  const { result, misses, tops } = measure(tuning, withBodies, rankedListed);
  const dump = args.find((a) => a.startsWith('--dump='))?.slice(7);
  if (dump && label.startsWith('body-aware (chosen')) writeFileSync(dump, JSON.stringify(tops, null, 1));
  const row = [label, pct(result.train.at1), pct(result.train.at5), pct(result.train.catalog)];
  if (showHeld) row.push(pct(result['held-back'].at1), pct(result['held-back'].at5), pct(result['held-back'].catalog));
  row.push(pct(result.relevance));
  if (args.includes('--mrr')) row.push(`train MRR@10 ${result.train.mrr.toFixed(3)}`);
  console.log(row.join(' | '));
  if (args.includes('--misses') && label.startsWith('body-aware (chosen')) {
    console.log(misses.filter((m) => showHeld || m.startsWith('  [train]')).join('\n'));
  }
}

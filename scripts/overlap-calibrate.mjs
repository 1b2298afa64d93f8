// node scripts/overlap-calibrate.mjs [corpus-skills-dir] [--sample | --compare]
// How `sisu-skills overlap`'s threshold was chosen (see scripts/overlap-labels.md).
// Runs the built CLI (npm run build first) over the corpus at a low threshold,
// then either prints a fresh stratified sample of pairs to label (--sample), or
// reads scripts/overlap-labels.json and prints the precision of the labelled
// pairs at each candidate threshold, with the pairs each band holds. --compare
// sets the local ranker's scores beside overlap's on the labelled pairs.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createRandom } from '../bench/prng.mjs';

const run = promisify(execFile);
const root = fileURLToPath(new URL('..', import.meta.url));
const corpus = resolve(process.argv.slice(2).find((a) => !a.startsWith('--')) ?? resolve(root, '../shared/corpus/skills'));
const FLOOR = 0.2;
/** Bands and how many pairs of each are labelled. */
const BANDS = [
  { from: 0.5, to: 1.01, take: 30 },
  { from: 0.4, to: 0.5, take: 30 },
  { from: 0.3, to: 0.4, take: 30 },
  { from: 0.2, to: 0.3, take: 30 },
];
const SEED = 21;

const cli = resolve(root, 'dist/cli.js');
const overlap = JSON.parse(
  (await run(process.execPath, [cli, 'overlap', corpus, '--json', '--threshold', String(FLOOR)], { maxBuffer: 64 << 20 }).catch((e) => e))
    .stdout,
);
const listed = JSON.parse((await run(process.execPath, [cli, 'list', corpus, '--json'], { maxBuffer: 64 << 20 }).catch((e) => e)).stdout);
const description = new Map(listed.map((s) => [s.name, s.description]));
const key = (p) => `${p.a}|${p.b}`;

if (process.argv.includes('--sample')) {
  const random = createRandom(SEED);
  const sample = [];
  for (const band of BANDS) {
    const pool = overlap.pairs.filter((p) => p.score >= band.from && p.score < band.to);
    for (let i = pool.length - 1; i > 0; i--) {
      const j = Math.floor(random.next() * (i + 1));
      [pool[i], pool[j]] = [pool[j], pool[i]];
    }
    sample.push(...pool.slice(0, band.take));
  }
  for (const p of sample) {
    console.log(`${p.score} ${p.a} | ${p.b}\n  A: ${description.get(p.a)?.slice(0, 220)}\n  B: ${description.get(p.b)?.slice(0, 220)}`);
  }
} else if (process.argv.includes('--compare')) {
  // The local ranker (BM25F, what find_skills and auto-activation use) as the alternative:
  // a pair's score is the mean of each skill's score when the other's name and description
  // are the query. Compared with overlap's score by ROC AUC on the labelled pairs.
  const { createRanker } = await import('../dist/internals.js');
  const ranker = createRanker(listed.filter((s) => s.modelInvocable).map((s) => ({ name: s.name, description: s.description })));
  const rankScore = (from, to) => ranker.rank(`${from} ${description.get(from) ?? ''}`, 100000).find((r) => r.name === to)?.score ?? 0;
  const labels = JSON.parse(await readFile(resolve(root, 'scripts/overlap-labels.json'), 'utf8'));
  const byKey = new Map(overlap.pairs.map((p) => [key(p), p]));
  const rows = labels.pairs.map((l) => ({
    confusable: l.confusable,
    cosine: byKey.get(key(l))?.score ?? 0,
    ranker: (rankScore(l.a, l.b) + rankScore(l.b, l.a)) / 2,
  }));
  const auc = (field) => {
    const yes = rows.filter((r) => r.confusable);
    const no = rows.filter((r) => !r.confusable);
    let wins = 0;
    for (const y of yes) for (const n of no) wins += y[field] > n[field] ? 1 : y[field] === n[field] ? 0.5 : 0;
    return wins / (yes.length * no.length);
  };
  console.log(
    `ROC AUC on ${rows.length} labelled pairs: overlap (TF-IDF cosine) ${auc('cosine').toFixed(3)}, local ranker (BM25F) ${auc('ranker').toFixed(3)}`,
  );
} else {
  const labels = JSON.parse(await readFile(resolve(root, 'scripts/overlap-labels.json'), 'utf8'));
  const byKey = new Map(overlap.pairs.map((p) => [key(p), p]));
  const scored = labels.pairs.map((l) => ({ ...l, score: byKey.get(key(l))?.score ?? 0 }));
  console.log(`${overlap.skills} skills in the catalog, ${overlap.pairs.length} pairs at or above ${FLOOR}; ${scored.length} labelled`);
  for (const t of [0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6]) {
    const above = scored.filter((l) => l.score >= t);
    const yes = above.filter((l) => l.confusable).length;
    const all = overlap.pairs.filter((p) => p.score >= t).length;
    const missed = scored.filter((l) => l.score < t && l.confusable).length;
    console.log(
      `threshold ${t.toFixed(2)}: precision ${yes}/${above.length} = ${(yes / above.length).toFixed(3)} ` +
        `on labelled pairs; ${all} pairs in the corpus; ${missed} labelled-confusable pairs below`,
    );
  }
}

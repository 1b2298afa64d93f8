// The overlap rows (issue 21): `sisu-skills overlap` on 2,000 real-shaped
// skills (bench/realshape.mjs: the corpus's SKILL.md files, replicated, so
// 871 of them repeat another's description: a harder case than a real library,
// with far more near-identical pairs), each run a whole process, paired in
// rotated order with `sisu-skills list --json` on the same folder, which
// loads the same skills and prints them: the difference is what finding the
// pairs costs. Target: seconds at most ("it must run in seconds on 2,000 skills").
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { loadCorpus, writeRealWorkload } from './realshape.mjs';
import { median } from './stats.mjs';

const run = promisify(execFile);
const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const SIZE = 2000;
const TARGET_MS = 5000;

async function timed(args) {
  const start = performance.now();
  const { stdout } = await run(process.execPath, [CLI, ...args], { maxBuffer: 256 << 20 }).catch((error) => error);
  return { ms: performance.now() - start, stdout };
}

export async function benchOverlap({ temp, quick, row, results, log }) {
  const corpus = await loadCorpus();
  if (!corpus) {
    log('[bench] overlap rows skipped: ../shared/corpus not found');
    row('overlap', 'skipped: ../shared/corpus not found', 0, '', '(skipped)');
    return;
  }
  const root = join(temp, 'overlap-2000');
  log(`[bench] overlap: writing ${SIZE} real-shaped skills...`);
  await writeRealWorkload(root, SIZE, corpus);
  const runs = quick ? 3 : 5;
  const samples = { overlap: [], list: [] };
  let pairs = 0;
  let skills = 0;
  for (let rep = 0; rep < runs; rep++) {
    for (const kind of rep % 2 === 0 ? ['overlap', 'list'] : ['list', 'overlap']) {
      const args = kind === 'overlap' ? ['overlap', root, '--json'] : ['list', root, '--json'];
      const { ms, stdout } = await timed(args);
      samples[kind].push(ms);
      if (kind === 'overlap') ({ pairs, skills } = (({ pairs: p, skills: s }) => ({ pairs: p.length, skills: s }))(JSON.parse(stdout)));
    }
  }
  const overlapMs = median(samples.overlap);
  const listMs = median(samples.list);
  results.overlap_2000 = { runs, skills, pairs, medianOverlapMs: overlapMs, medianListMs: listMs, samples };
  row(
    'overlap',
    `sisu-skills overlap, ${skills} skills, whole process (median of ${runs}); ${pairs} pairs at the default threshold`,
    overlapMs,
    'ms',
    `<= ${TARGET_MS}`,
    overlapMs <= TARGET_MS,
  );
  row('overlap', `finding the pairs: overlap minus list --json on the same folder (paired runs)`, overlapMs - listMs, 'ms');
}

// The scaling rows of `npm run bench` (issue 20): time per skill of the first
// request that matches skills ("convert a pdf to markdown"), from a scan and
// from a prebuilt index, at 2,000, 20,000 and 50,000 skills, with 10 and with
// 500 configured folders. No step of start-up may grow faster than the skills
// and folders it touches: time per skill at the largest size may be at most
// 1.5x that at the smallest.
//
// Each library holds the corpus's SKILL.md files (renamed per copy, no
// resources) under <root>/p-<0..9>/g-<0..49>/<skill>: configured as the 10
// folders p-*, or as the 500 folders p-*/g-*, the same files. Each run is a
// fresh process (bench/contender.mjs); time per skill is its in-process run
// (after node start and import, which do not grow with skills) over the
// skills loaded; medians of `runs` processes. Standalone:
//   npx tsup --silent && node bench/scaling.mjs [--quick]
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ioFloor } from './floor.mjs';
import { bundlePrebuilt } from './prebuilt-bundle.mjs';
import { runContender } from './real.mjs';
import { loadCorpus, withName } from './realshape.mjs';
import { median, pool } from './stats.mjs';

const PARENTS = 10;
const GROUPS = 50;
/** Time per skill at the largest size over the smallest: the most it may grow. */
const MAX_GROWTH = 1.5;

/** Write `count` skills under `root`; resolves with the folders to configure, 10 and 500 of them. */
async function writeLibrary(root, count, corpus) {
  const usable = corpus.filter((c) => /^\uFEFF?---/.test(c.text));
  const folderOf = (i) => join(root, `p-${i % PARENTS}`, `g-${Math.floor(i / PARENTS) % GROUPS}`);
  const made = new Set();
  await pool(
    Array.from({ length: count }, (_, i) => i),
    64,
    async (i) => {
      const source = usable[i % usable.length];
      const name = `s${i}-${
        source.folder
          .toLowerCase()
          .replace(/[^a-z0-9]+/g, '-')
          .replace(/^-+|-+$/g, '')
          .slice(0, 40) || 'skill'
      }`;
      const dir = join(folderOf(i), name);
      if (!made.has(dir)) {
        made.add(dir);
        await mkdir(dir, { recursive: true });
      }
      await writeFile(join(dir, 'SKILL.md'), withName(source.text, name));
    },
  );
  const ten = Array.from({ length: PARENTS }, (_, p) => join(root, `p-${p}`));
  const fiveHundred = ten.flatMap((parent) => Array.from({ length: GROUPS }, (_, g) => join(parent, `g-${g}`)));
  return { 10: ten, 500: fiveHundred };
}

/** The index for `directories` and the meta file a contender reads. */
async function prepare(root, label, directories, bundle) {
  const lib = await import(bundle);
  const indexFile = join(root, `${label}.index`);
  await writeFile(indexFile, lib.serializePrebuiltIndex(await lib.buildPrebuiltIndex({ directories }, indexFile)));
  const metaFile = join(root, `${label}.meta.json`);
  await writeFile(metaFile, JSON.stringify({ directories, indexFile }));
  return metaFile;
}

export async function benchScaling({ temp, quick, row, results, log }) {
  const corpus = await loadCorpus();
  if (!corpus) {
    log('[bench] scaling rows skipped: ../shared/corpus not found');
    row('scaling', 'skipped: ../shared/corpus not found', 0, '', '(skipped)');
    return;
  }
  const sizes = quick ? [1000, 5000] : [2000, 20000, 50000];
  const runs = quick ? 3 : 5;
  const bundle = await bundlePrebuilt();
  // perSkill[mode][folders][size] = median µs per skill
  const perSkill = { scan: { 10: {}, 500: {} }, index: { 10: {}, 500: {} } };
  const detail = {};
  for (const size of sizes) {
    const root = join(temp, `scaling-${size}`);
    log(`[bench] scaling: writing ${size} skills...`);
    const folders = await writeLibrary(root, size, corpus);
    await ioFloor(root, { maxDepth: Infinity }); // warm the page cache
    for (const count of [10, 500]) {
      const metaFile = await prepare(root, `folders-${count}`, folders[count], bundle);
      const samples = { scan: [], index: [] };
      for (let rep = 0; rep < runs; rep++) {
        // Alternate which runs first.
        const order = rep % 2 === 0 ? ['scan', 'index'] : ['index', 'scan'];
        for (const mode of order) {
          const result = await runContender(mode === 'scan' ? 'ours-task' : 'prebuilt-task', root, metaFile);
          samples[mode].push(result);
        }
      }
      for (const mode of ['scan', 'index']) {
        const skills = samples[mode][0].count;
        const runMs = median(samples[mode].map((s) => s.runMs));
        perSkill[mode][count][size] = (runMs * 1000) / skills;
        detail[`${mode}_${count}_${size}`] = { skills, runMs, wallMs: median(samples[mode].map((s) => s.wallMs)) };
      }
      log(
        `[bench]   ${size} skills, ${count} folders: scan ${perSkill.scan[count][size].toFixed(1)} ` +
          `µs/skill, index ${perSkill.index[count][size].toFixed(1)} µs/skill`,
      );
    }
    await rm(root, { recursive: true, force: true });
  }
  results.scaling = { sizes, runs, perSkillMicros: perSkill, detail };
  const smallest = sizes[0];
  const largest = sizes.at(-1);
  for (const mode of ['scan', 'index']) {
    for (const count of [10, 500]) {
      const figures = sizes.map((size) => `${size}: ${perSkill[mode][count][size].toFixed(1)}`).join(', ');
      const growth = perSkill[mode][count][largest] / perSkill[mode][count][smallest];
      row(
        'scaling',
        `first request "convert a pdf to markdown" from ${mode === 'scan' ? 'a scan' : 'the index'}, ` +
          `${count} folders: µs per skill ${figures}; ${largest} / ${smallest}`,
        growth,
        'x',
        `<= ${MAX_GROWTH}`,
        growth <= MAX_GROWTH,
      );
    }
  }
}

// Standalone: node bench/scaling.mjs [--quick]
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const temp = await mkdtemp(join(tmpdir(), 'mw-skills-scaling-'));
  const rows = [];
  try {
    await benchScaling({
      temp,
      quick: process.argv.includes('--quick'),
      row: (section, metric, value, unit, target, pass) =>
        rows.push(`${metric}  ${value.toFixed(2)}${unit}  ${target}  ${pass === undefined ? '' : pass ? 'pass' : 'FAIL'}`),
      results: {},
      log: (...args) => process.stderr.write(`${args.join(' ')}\n`),
    });
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
  console.log(rows.join('\n'));
}

// The real-shaped rows of `npm run bench` (issue 13): libraries built from
// ../shared/corpus at two sizes; each contender runs in a fresh process per
// run (node start-up, import, run, exit), in rotated order, after the page
// cache is warm; the headline is the median whole-process time as a ratio to
// the floor's. Skipped, saying why, when ../shared is absent.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { ioFloor } from './floor.mjs';
import { bundlePrebuilt } from './prebuilt-bundle.mjs';
import { loadCorpus, writeRealWorkload } from './realshape.mjs';
import { median, timeAsync } from './stats.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const CONTENDER = join(here, 'contender.mjs');
const MEMORY = join(here, 'memory.mjs');
const RANKER = join(here, 'ranker.mjs');
const run = promisify(execFile);
const OFFICIAL = join(here, '..', '..', 'shared', 'sisu', 'node_modules', '@sisu-ai', 'mw-skills', 'dist', 'index.js');

/**
 * `runs` rounds of every contender in `kinds`, each in its own process, the order rotated each round so
 * no contender always runs right after another; each one's samples, and the load average at each round.
 */
export async function byTurns(kinds, runs, root, metaFile) {
  const samples = Object.fromEntries(kinds.map((k) => [k, []]));
  const load = [];
  for (let rep = 0; rep < runs; rep++) {
    load.push(loadavg()[0]);
    for (let i = 0; i < kinds.length; i++) {
      const kind = kinds[(i + rep) % kinds.length];
      samples[kind].push(await runContender(kind, root, metaFile));
    }
  }
  return { samples, load };
}

/** One contender in its own process: resolves with the whole process's wall time and what it printed. */
export function runContender(kind, root, metaFile, nodeArgs = [], bundle = undefined) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    execFile(
      process.execPath,
      [...nodeArgs, CONTENDER, kind, root, metaFile, ...(bundle ? [bundle] : [])],
      { maxBuffer: 1 << 20 },
      (error, stdout, stderr) => {
        const wallMs = performance.now() - started;
        if (error) return reject(new Error(`${kind} failed: ${stderr || error.message}`));
        resolve({ wallMs, ...JSON.parse(stdout) });
      },
    );
  });
}

/** Write a real-shaped library of `count` skills, its prebuilt indexes and the meta file contenders read. */
export async function prepareReal(temp, count, corpus, bundle, baseline = undefined) {
  const root = join(temp, `real-${count}`);
  const { ms, value: workload } = await timeAsync(() => writeRealWorkload(root, count, corpus));
  const lib = await import(bundle);
  const indexFile = `${root}.index`;
  const built = await timeAsync(() => lib.buildPrebuiltIndex({ directories: [root] }, indexFile));
  const bytes = lib.serializePrebuiltIndex(built.value);
  await writeFile(indexFile, bytes);
  // The same with the instructions' terms (`sisu-skills index --instructions`).
  const instructionsIndexFile = `${root}.instructions.index`;
  const withInstructions = await lib.buildPrebuiltIndex({ directories: [root] }, instructionsIndexFile, undefined, { instructions: true });
  const instructionsBytes = lib.serializePrebuiltIndex(withInstructions);
  await writeFile(instructionsIndexFile, instructionsBytes);
  const metaFile = `${root}.meta.json`;
  const json = baseline ? await writeJsonBaseline(root, baseline) : undefined;
  await writeFile(
    metaFile,
    JSON.stringify({ parents: workload.parents, indexFile, instructionsIndexFile, ...(json ? { baseline: json.meta } : {}) }),
  );
  // Skills that do not load anywhere (no frontmatter, no description): what "every skill found" excludes.
  const skillErrors = new Set(built.value.errors.filter((d) => d.file.endsWith('SKILL.md')).map((d) => d.file)).size;
  return {
    ...workload,
    metaFile,
    indexFile,
    instructionsIndexFile,
    writeMs: ms,
    indexBuildMs: built.ms,
    indexBytes: bytes.length,
    instructionsIndexBytes: instructionsBytes.length,
    json: json?.sizes,
    baseline: json?.meta,
    indexedSkills: built.value.skills.length,
    skillErrors,
  };
}

/**
 * The plain baseline's indexes of the library at `root` (bench/json-baseline.mjs: the package when its index was
 * JSON), written by its own `sisu-skills index` without and with the instructions, each also gzip'd at level 6
 * (what `gzip -6` writes, header aside).
 */
async function writeJsonBaseline(root, baseline) {
  const meta = { bundle: baseline.index, json: `${root}.index.json`, jsonInstructions: `${root}.instructions.index.json` };
  const sizes = {};
  for (const [key, file, instructions] of [
    ['json', meta.json, false],
    ['jsonInstructions', meta.jsonInstructions, true],
  ]) {
    await run(process.execPath, [baseline.cli, 'index', root, '-o', file, ...(instructions ? ['--instructions'] : [])], {
      maxBuffer: 64 << 20,
    }).catch((error) => {
      // Exit 1 only when nothing was written; skills with errors still exit 0.
      throw new Error(`the JSON baseline's sisu-skills index failed: ${error.stderr || error.message}`);
    });
    const text = await readFile(file);
    const zipped = gzipSync(text, { level: 6 });
    await writeFile(`${file}.gz`, zipped);
    sizes[key] = { bytes: text.length, gzipBytes: zipped.length };
  }
  return { meta, sizes };
}

const LABELS = {
  floor: 'floor: walk every folder + read SKILL.md',
  'floor-skills': 'floor, not descending into skill folders',
  ours: 'ours: first request (discovery, index, catalog, tools)',
  'ours-task': 'ours: first request "convert a pdf to markdown" (matches skills: the ranked catalog ranks)',
  official: '@sisu-ai/mw-skills 3.0.0 discoverSkills',
  yaml: 'yaml-package loader (walks each skill)',
  import: 'node start + importing the package alone',
  prebuilt: 'ours: first request from a prebuilt index',
  'prebuilt-task': 'ours: first request "convert a pdf to markdown" from a prebuilt index',
  'prebuilt-instructions-task': 'ours: the same from an index built with --instructions',
  'json-task': 'baseline: the same from the JSON index (the package before issue 44)',
  'gzip-task': "baseline: the same from that JSON index gzip'd (unzipped as it is read)",
  'json-instructions-task': 'baseline: the same from the JSON index built with --instructions',
  'gzip-instructions-task': "baseline: the same from that JSON index gzip'd",
};

/** Issue 20's targets for a first request that matches skills, as ratios to the floor, by library size. */
const MATCHING_TARGETS = { scan: { 2000: 1.2, 20000: 1.1 } };
/** Issue 44's targets for a first request from a prebuilt index ("hello" and one that matches skills), by library size. */
const INDEX_TARGETS = { 2000: 0.25, 20000: 0.05 };
/** The contenders of issue 44's baseline (bench/json-baseline.mjs), measured when it could be built. */
const BASELINE_KINDS = ['json-task', 'gzip-task', 'json-instructions-task', 'gzip-instructions-task'];

/**
 * Every contender `runs` times at `workload`, rows as ratios to the floor.
 * `row(section, metric, value, unit, target, pass)` is run.mjs's.
 */
export async function benchRealSize(workload, runs, row, results, only = undefined) {
  // floor-skills is information (what not descending into skills would save): measured at 2,000 only, to keep the run short.
  const kinds = [
    'floor',
    'ours',
    'ours-task',
    'official',
    'yaml',
    'prebuilt',
    'prebuilt-task',
    'prebuilt-instructions-task',
    ...(workload.json ? BASELINE_KINDS : []),
    'import',
    'floor-skills',
  ]
    .filter((k) => (k !== 'official' || existsSync(OFFICIAL)) && (k !== 'floor-skills' || workload.count <= 2000))
    // --index-only: the floor, the index's contenders and the import alone.
    .filter((k) => only !== 'index' || k === 'floor' || k === 'import' || k.startsWith('prebuilt') || BASELINE_KINDS.includes(k));
  await ioFloor(workload.root, { maxDepth: Infinity }); // warm the page cache
  const { samples, load } = await byTurns(kinds, runs, workload.root, workload.metaFile);
  const m = (kind, field) => median(samples[kind].map((s) => s[field]));
  const counts = Object.fromEntries(kinds.map((k) => [k, samples[k][0].count]));
  const floor = m('floor', 'wallMs');
  const section = `real-shaped ${workload.count}`;
  results[`real_${workload.count}`] = {
    runs,
    loadAverage: load,
    skills: workload.count,
    resourceFiles: workload.resourceFiles,
    folders: workload.folders,
    skillErrors: workload.skillErrors,
    indexBytes: workload.indexBytes,
    instructionsIndexBytes: workload.instructionsIndexBytes,
    json: workload.json,
    indexBuildMs: workload.indexBuildMs,
    counts,
    medianWallMs: Object.fromEntries(kinds.map((k) => [k, m(k, 'wallMs')])),
    medianRunMs: Object.fromEntries(kinds.map((k) => [k, m(k, 'runMs')])),
    medianImportMs: Object.fromEntries(kinds.map((k) => [k, m(k, 'importMs')])),
    samples,
  };
  row(
    section,
    `${workload.count} skills, ${workload.resourceFiles} resource files (sparse), ${workload.folders} folders; medians of ${runs} processes each`,
    floor,
    'ms',
    '(floor)',
  );
  const matching = (kind, target) => {
    const ratio = m(kind, 'wallMs') / floor;
    row(
      section,
      `${LABELS[kind]} / floor`,
      ratio,
      'x',
      target === undefined ? '(info)' : `<= ${target}`,
      target === undefined ? undefined : ratio <= target,
    );
  };
  if (samples.ours) scanRows({ workload, section, counts, floor, m, matching, row });
  else row(section, `found: floor ${counts.floor} SKILL.md, ${counts.prebuilt} from the index`, counts.prebuilt, 'skills', '(info)');
  matching('prebuilt', INDEX_TARGETS[workload.count]);
  matching('prebuilt-task', INDEX_TARGETS[workload.count]);
  matching('prebuilt-instructions-task');
  for (const kind of BASELINE_KINDS) if (samples[kind]) matching(kind);
  if (samples['json-task']) {
    // CPU time (all threads, user + system) moves far less with the machine's load than wall time: the two formats side by side.
    const cpu = (kind) => m(kind, 'cpuMs');
    row(
      section,
      `CPU time of the whole process, median: from the index ${Math.round(cpu('prebuilt-task'))} ms, from the JSON index ` +
        `${Math.round(cpu('json-task'))} ms, Node start + import ${Math.round(cpu('import'))} ms; ours / JSON`,
      cpu('prebuilt-task') / cpu('json-task'),
      'x',
      '(info)',
    );
  }
  indexSizeRows(workload, section, row);
  row(section, `${LABELS.import} / floor`, m('import', 'wallMs') / floor, 'x', '(info)');
  if (samples['floor-skills'])
    row(section, `${LABELS['floor-skills']} / floor (what that trade would save)`, m('floor-skills', 'wallMs') / floor, 'x', '(info)');
  const inner = kinds.map((k) => `${k} ${Math.round(m(k, 'runMs'))}+${Math.round(m(k, 'importMs'))}`).join(', ');
  const contender = samples.ours ? 'ours' : 'prebuilt-task';
  row(
    section,
    `in-process run+import ms: ${inner}`,
    m(contender, 'runMs') / m('floor', 'runMs'),
    'x',
    `(info: ${contender}/floor in-process)`,
  );
  row(section, `prebuilt index built in (ms, in process)`, workload.indexBuildMs, 'ms', '(info)');
}

/** The rows of a scan and its peers (left out by --index-only). */
function scanRows({ workload, section, counts, floor, m, matching, row }) {
  const found =
    `found: floor ${counts.floor} SKILL.md, ours ${counts.ours}, ${counts.official ?? '-'} official, ` +
    `${counts.yaml} yaml, ${counts.prebuilt} prebuilt; ${workload.skillErrors} fail to load`;
  row(
    section,
    found,
    counts.ours,
    'skills',
    `= ${counts.floor - workload.skillErrors}`,
    counts.ours === counts.floor - workload.skillErrors && counts.prebuilt === counts.ours,
  );
  row(section, `${LABELS.ours} / floor`, m('ours', 'wallMs') / floor, 'x', '<= 1.3', m('ours', 'wallMs') / floor <= 1.3);
  matching('ours-task', MATCHING_TARGETS.scan[workload.count]);
  if (counts.official !== undefined) {
    row(section, `${LABELS.official} / floor`, m('official', 'wallMs') / floor, 'x', '(peer)');
    row(
      section,
      'official / ours (ours ahead when > 1)',
      m('official', 'wallMs') / m('ours', 'wallMs'),
      'x',
      '> 1',
      m('official', 'wallMs') > m('ours', 'wallMs'),
    );
  }
  row(section, `${LABELS.yaml} / floor`, m('yaml', 'wallMs') / floor, 'x', '(peer)');
  row(
    section,
    'yaml loader / ours (ours ahead when > 1)',
    m('yaml', 'wallMs') / m('ours', 'wallMs'),
    'x',
    '> 1',
    m('yaml', 'wallMs') > m('ours', 'wallMs'),
  );
}

/** The index files' sizes at `workload`: ours, and the JSON baseline plain and gzip'd, without and with the instructions. */
function indexSizeRows(workload, section, row) {
  const mb = (bytes) => `${(bytes / 1e6).toFixed(2)} MB`;
  for (const [label, ours, json] of [
    ['', workload.indexBytes, workload.json?.json],
    [' with --instructions', workload.instructionsIndexBytes, workload.json?.jsonInstructions],
  ]) {
    if (!json) {
      row(section, `index file${label} (MB)`, ours / 1e6, 'MB', '(info)');
      continue;
    }
    row(
      section,
      `index file${label}: ours ${mb(ours)}; JSON ${mb(json.bytes)}, gzip'd ${mb(json.gzipBytes)}; ours / JSON`,
      ours / json.bytes,
      'x',
      '(info)',
    );
  }
}

/**
 * Heap kept after the first request that matches skills at 20,000 real-shaped
 * skills, before issue 20 (commit 3f95335, measured with bench/memory.mjs
 * first-request --bundle on a copy of that build, after a warm-up on the
 * 2,000-skill library; the index one written by that build): issue 20 allows
 * at most 10% more. First taken as 15.9 and 43.8 MB, while bench/memory.mjs
 * still held the warm-up's middleware (2.4 MB) in its module frame at
 * `before` and let it go by `after`; measured again with the warm-up inside a
 * function, that build keeps 17.8 and 45.8 MB (two runs each: 17.77-17.87,
 * 45.76-45.83), which is what the rows compare with.
 */
const HEAP_BEFORE_ISSUE_20 = { scan: 17.8, index: 45.8 };

/** Heap rows at `workload` (20,000 skills): after one first request that matches skills, from a scan and from the index. */
export async function benchFirstRequestHeap(workload, warmRoot, row, results, only = undefined) {
  const section = `real-shaped ${workload.count}`;
  const figures = {};
  const modes = [
    ...(only === 'index' ? [] : [['scan', []]]),
    // The baseline first: the index's row compares with it.
    ...(workload.baseline ? [['json', ['--index', workload.baseline.json, '--bundle', workload.baseline.bundle]]] : []),
    ['index', ['--index', workload.indexFile]],
  ];
  for (const [mode, extra] of modes) {
    const args = ['--expose-gc', MEMORY, workload.root, 'first-request', ...(warmRoot ? ['--warm', warmRoot] : []), ...extra];
    const { stdout } = await run(process.execPath, args, { maxBuffer: 1 << 20 });
    figures[mode] = JSON.parse(stdout);
    const mb = figures[mode].heapDelta / 1e6;
    const before = HEAP_BEFORE_ISSUE_20[mode];
    const from = { scan: 'a scan', index: 'the index', json: 'the JSON index (baseline)' }[mode];
    const label =
      `heap kept after the first request "convert a pdf to markdown" from ${from} ` +
      `(MB; typed arrays outside the heap: ${(figures[mode].arrayBuffersDelta / 1e6).toFixed(1)} MB)`;
    if (mode === 'index' && workload.baseline) {
      // Issue 44: no larger than from the JSON index it replaces (measured just before, same library).
      const json = figures.json?.heapDelta / 1e6;
      row(section, `${label}; from the JSON index: ${json?.toFixed(1)} MB`, mb, 'MB', `<= ${json?.toFixed(1)}`, mb <= json);
    } else if (before === undefined || workload.count !== 20000) row(section, label, mb, 'MB', '(info)');
    else row(section, `${label}; before issue 20: ${before} MB`, mb, 'MB', `<= ${(before * 1.1).toFixed(1)}`, mb <= before * 1.1);
  }
  results[`real_${workload.count}`].firstRequestHeap = figures;
  if (only === 'index') return;
  // A second request with other words: their postings join the ranker's.
  const { stdout } = await run(
    process.execPath,
    ['--expose-gc', MEMORY, workload.root, 'first-request', '--second', ...(warmRoot ? ['--warm', warmRoot] : [])],
    { maxBuffer: 1 << 20 },
  );
  figures.scanRanked = JSON.parse(stdout);
  row(
    section,
    'same from a scan, after a second request with other words (their postings kept; MB)',
    figures.scanRanked.heapDelta / 1e6,
    'MB',
    '(info)',
  );
  results[`real_${workload.count}`].firstRequestHeap = figures;
  if (workload.count === 20000) results[`real_${workload.count}`].instructionsHeap = await benchInstructionsHeap(workload, warmRoot, row);
}

/** Issue 29: what ranking by the instructions keeps per skill at `workload`, heap + typed arrays, with them less without. */
async function benchInstructionsHeap(workload, warmRoot, row) {
  const section = `real-shaped ${workload.count}`;
  const figures = {};
  for (const what of ['middleware', 'middleware-instructions']) {
    const args = ['--expose-gc', MEMORY, workload.root, what, ...(warmRoot ? ['--warm', warmRoot] : [])];
    figures[what] = JSON.parse((await run(process.execPath, args, { maxBuffer: 1 << 20 })).stdout);
  }
  const total = (m) => m.heapDelta + (m.arrayBuffersDelta ?? 0);
  const [without, withThem] = [total(figures.middleware), total(figures['middleware-instructions'])];
  const perSkill = (withThem - without) / workload.count;
  const label = `the instructions ranked, per skill (heap + typed arrays: ${(without / 1e6).toFixed(1)} MB without, ${(withThem / 1e6).toFixed(1)} MB with; B)`;
  row(section, label, perSkill, 'B', '<= 3000', perSkill <= 3000);
  return figures;
}

/** Issue 20's aim for building the ranker from a scan, per 2,000 skills. */
const RANKER_BUILD_TARGET_MS = 15;

/**
 * What ranking costs at `workload` (bench/ranker.mjs), each figure the median of
 * `runs` fresh processes: building the ranker (field lengths; no word tokenised up
 * front), its first query (what a first request pays), later queries with new words,
 * a query whose words are known, and the request that builds the whole index; the
 * build warm too.
 */
export async function benchRankerCost(workload, runs, row, results) {
  const section = `real-shaped ${workload.count}`;
  const sample = async (mode) => JSON.parse((await run(process.execPath, [RANKER, workload.root, mode], { maxBuffer: 1 << 20 })).stdout).ms;
  const modes = ['build', 'first', 'later', 'known', 'whole'];
  const figures = Object.fromEntries(modes.map((mode) => [mode, []]));
  // Interleaved, each run in another order: load that comes and goes falls on every mode alike.
  for (let i = 0; i < runs; i++)
    for (let m = 0; m < modes.length; m++) {
      const mode = modes[(m + i) % modes.length];
      figures[mode].push(await sample(mode));
    }
  const warm = await sample('warm');
  const [build, first, later, known, whole] = modes.map((mode) => median(figures[mode]));
  const perTwoThousand = (ms) => (ms * 2000) / workload.count;
  row(
    section,
    `building the ranker from a scan (field lengths; terms found as queries ask), fresh process / warm ${warm.toFixed(1)} ms; per 2,000 skills (ms)`,
    perTwoThousand(build),
    'ms',
    `<= ${RANKER_BUILD_TARGET_MS}`,
    perTwoThousand(build) <= RANKER_BUILD_TARGET_MS,
  );
  row(section, 'ranking in a first request, "convert a pdf to markdown", fresh process (ms)', first, 'ms', '(info)');
  row(section, 'ranking a later request with words not met before, median of 5 (ms)', later, 'ms', '(info)');
  row(section, 'ranking a request whose words are known (ms)', known, 'ms', '(info)');
  row(section, 'the request that builds the whole index, after 8 that scanned for new words, fresh process (ms)', whole, 'ms', '(info)');
  results[`real_${workload.count}`].ranker = {
    runs,
    buildMs: figures.build,
    firstMs: figures.first,
    laterMs: figures.later,
    knownMs: figures.known,
    wholeMs: figures.whole,
    warmBuildMs: warm,
  };
}

/** Both sizes; `perRequest(workload, section)` runs the cached per-request rows on the 2,000-skill library. */
export async function benchReal({ temp, quick, row, results, log, perRequest, baseline, only }) {
  const corpus = await loadCorpus();
  if (!corpus) {
    log('[bench] real-shaped rows skipped: ../shared/corpus not found (it holds the real SKILL.md files they are built from)');
    row('real-shaped', 'skipped: ../shared/corpus not found', 0, '', '(skipped)');
    return;
  }
  if (!existsSync(OFFICIAL)) log('[bench] the official @sisu-ai/mw-skills is not in ../shared/sisu: its rows are left out');
  const sizes = quick ? [500, 2000] : [2000, 20000];
  // Issue 20: medians of 7 processes.
  const runs = quick ? [3, 3] : [7, 7];
  const bundle = await bundlePrebuilt();
  for (const [i, size] of sizes.entries()) {
    log(`[bench] writing ${size} real-shaped skills...`);
    const workload = await prepareReal(temp, size, corpus, bundle, baseline);
    log(
      `[bench]   ${workload.resourceFiles} sparse resource files in ${workload.folders} folders, ` +
        `${(workload.writeMs / 1000).toFixed(1)} s; index ${(workload.indexBytes / 1e6).toFixed(1)} MB`,
    );
    log(`[bench] real-shaped ${size}: ${runs[i]} runs of each contender, each in its own process...`);
    await benchRealSize(workload, runs[i], row, results, only);
    await benchFirstRequestHeap(workload, i > 0 ? join(temp, `real-${sizes[0]}`) : undefined, row, results, only);
    if (only === 'index') continue;
    // The build's target is at 2,000 skills; at 20,000, what a later query with new words costs (3 runs: a scan each).
    if (size === 2000) await benchRankerCost(workload, runs[i], row, results);
    else if (size === 20000) await benchRankerCost(workload, 3, row, results);
    if (size === 2000) {
      log('[bench] per-request cost at 2000 real-shaped skills...');
      await perRequest(workload, 'real-shaped 2000 per request');
    }
  }
}

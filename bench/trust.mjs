// Issue 41's rows of `npm run bench` (`-- --trust-only` runs them alone): what `trust`
// costs the first request. Real-shaped libraries of 2,000 and 20,000 skills (resources
// included, sparse), signed with `sisu-skills sign`; each first request ("hello", and
// one that matches skills) runs in a fresh process with and without `trust`, by turns,
// 15 times; the figures are medians and their ratio (target: at most 1.1x from a scan).
// 15, not 7: with 7 the ratio moved by +-4% between runs of the same code, twice the
// margin it is judged by; the spread of the turns' own ratios is printed beside it.
//   npx tsup --silent && node bench/trust.mjs [--quick]
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ioFloor } from './floor.mjs';
import { byTurns } from './real.mjs';
import { loadCorpus, writeRealWorkload } from './realshape.mjs';
import { median } from './stats.mjs';

const run = promisify(execFile);
const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
/** First request with trust over the same without: the most it may cost from a scan, and from an index. */
const MAX_SCAN_RATIO = 1.1;
const MAX_INDEX_RATIO = 1.05;

/** A signed library of `count` real-shaped skills, and the meta file the contenders read. */
async function signedLibrary(temp, count, corpus, log) {
  const root = join(temp, `trust-${count}`);
  const workload = await writeRealWorkload(root, count, corpus);
  await run(process.execPath, [CLI, 'keygen', join(temp, `key-${count}`)]);
  const started = performance.now();
  await run(process.execPath, [CLI, 'sign', root, '--key', join(temp, `key-${count}.key`)], { maxBuffer: 1 << 24 });
  const signMs = performance.now() - started;
  const manifestBytes = (await readFile(join(root, 'skills.manifest.json'))).length;
  const took = `${(signMs / 1000).toFixed(1)} s; manifest ${(manifestBytes / 1e6).toFixed(1)} MB`;
  log(`[bench]   signed ${count} skills (${workload.resourceFiles} resources) in ${took}`);
  // The same library's index, plain and sealed (`--key`): the rows from an index compare the two.
  const indexFile = join(temp, `trust-${count}.index`);
  const sealedIndexFile = join(temp, `trust-${count}.sealed.index`);
  await run(process.execPath, [CLI, 'index', root, '-o', indexFile], { maxBuffer: 1 << 26 });
  await run(process.execPath, [CLI, 'index', root, '-o', sealedIndexFile, '--key', join(temp, `key-${count}.key`)], { maxBuffer: 1 << 26 });
  const metaFile = join(temp, `trust-${count}.meta.json`);
  const trustKeys = [await readFile(join(temp, `key-${count}.pub`), 'utf8')];
  await writeFile(metaFile, JSON.stringify({ directories: [root], trustKeys, indexFile, sealedIndexFile }));
  const indexBytes = [(await readFile(indexFile)).length, (await readFile(sealedIndexFile)).length];
  return { ...workload, metaFile, signMs, manifestBytes, indexBytes };
}

/** The first and third quartiles of each turn's own ratio, `kind` over `base`: how far one turn's ratio strays. */
function spread(samples, kind, base) {
  const ratios = samples[kind].map((s, i) => s.wallMs / samples[base][i].wallMs).sort((a, b) => a - b);
  const at = (q) => ratios[Math.min(ratios.length - 1, Math.floor(q * ratios.length))].toFixed(3);
  return `${at(0.25)}-${at(0.75)}`;
}

export async function benchTrust({ temp, quick, row, results, log }) {
  const corpus = await loadCorpus();
  if (!corpus) {
    log('[bench] trust rows skipped: ../shared/corpus not found');
    row('trust', 'skipped: ../shared/corpus not found', 0, '', '(skipped)');
    return;
  }
  const sizes = quick ? [500, 2000] : [2000, 20000];
  const runs = quick ? 3 : 15;
  const kinds = ['ours', 'ours-trust', 'ours-task', 'ours-task-trust', 'prebuilt', 'prebuilt-trust'];
  results.trust = {};
  for (const size of sizes) {
    log(`[bench] trust: writing and signing ${size} real-shaped skills...`);
    const library = await signedLibrary(temp, size, corpus, log);
    await ioFloor(library.root, { maxDepth: Infinity });
    const { samples, load } = await byTurns(kinds, runs, library.root, library.metaFile);
    const ms = (kind) => median(samples[kind].map((s) => s.wallMs));
    // CPU time of the whole process (every thread): steadier than wall time on a machine others share.
    const cpu = (kind) => median(samples[kind].map((s) => s.cpuMs));
    const section = `trust ${size}`;
    const hello = ms('ours-trust') / ms('ours');
    const task = ms('ours-task-trust') / ms('ours-task');
    const index = ms('prebuilt-trust') / ms('prebuilt');
    row(section, 'first request ("hello"), whole process, without trust', ms('ours'), 'ms');
    row(section, 'first request ("hello"), whole process, with trust', ms('ours-trust'), 'ms');
    row(section, 'with trust / without, from a scan ("hello")', hello, 'x', `<= ${MAX_SCAN_RATIO}`, hello <= MAX_SCAN_RATIO);
    row(section, 'first request matching skills, with trust / without', task, 'x', `<= ${MAX_SCAN_RATIO}`, task <= MAX_SCAN_RATIO);
    row(section, `the same by turn: with / without, quartiles ${spread(samples, 'ours-trust', 'ours')}`, hello, 'x', '(info)');
    row(section, `matching, by turn: quartiles ${spread(samples, 'ours-task-trust', 'ours-task')}`, task, 'x', '(info)');
    row(section, 'first request from an index ("hello"), without trust', ms('prebuilt'), 'ms');
    row(section, 'first request from a sealed index, with trust', ms('prebuilt-trust'), 'ms');
    row(section, 'with trust / without, from an index', index, 'x', `<= ${MAX_INDEX_RATIO}`, index <= MAX_INDEX_RATIO);
    row(
      section,
      'CPU time of the whole process, with trust / without, from a scan ("hello")',
      cpu('ours-trust') / cpu('ours'),
      'x',
      '(info)',
    );
    row(
      section,
      'CPU time of the whole process, with trust / without, from an index',
      cpu('prebuilt-trust') / cpu('prebuilt'),
      'x',
      '(info)',
    );
    row(section, 'index size, plain / sealed', library.indexBytes[1] / library.indexBytes[0], 'x');
    row(section, 'sisu-skills sign (whole process)', library.signMs, 'ms');
    row(section, 'manifest size', library.manifestBytes / 1e6, 'MB');
    results.trust[size] = {
      runs,
      loadAverage: load,
      resourceFiles: library.resourceFiles,
      signMs: library.signMs,
      manifestBytes: library.manifestBytes,
      medians: Object.fromEntries(kinds.map((k) => [k, ms(k)])),
      cpuMedians: Object.fromEntries(kinds.map((k) => [k, cpu(k)])),
      indexBytes: library.indexBytes,
      ratios: { hello, task, index },
    };
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { mkdtemp, rm } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const temp = await mkdtemp(join(tmpdir(), 'mw-skills-bench-trust-'));
  const rows = [];
  try {
    await benchTrust({
      temp,
      quick: process.argv.includes('--quick'),
      row: (...args) => rows.push(args),
      results: {},
      log: (line) => process.stderr.write(`${line}\n`),
    });
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
  for (const r of rows) console.log(r.join(' | '));
}

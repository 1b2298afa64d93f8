// Issue 44's index rows on its own library: 21,110 real-shaped skills (the
// issue's "ten renamed copies of a 2,111-skill collection of published
// skills, with resources"; here the corpus's 1,129 files written over and over
// by bench/realshape.mjs, about 18.7 copies each), and the corpus written once
// (1,129 skills, no copies: what the bytes of a library of distinct skills
// look like). Each `sisu-skills index` runs in its own process, this build's
// and the JSON baseline's (bench/json-baseline.mjs), without and with
// --instructions: the file's size (and the JSON's gzip'd at level 6), the
// whole process's time and its peak memory (bench/cli-peak.mjs).
import { execFile } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { loadCorpus, writeRealWorkload } from './realshape.mjs';
import { timeAsync } from './stats.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const PEAK = join(here, 'cli-peak.mjs');
const OURS_CLI = join(here, '..', 'dist', 'cli.js');

/** The issue's library size. */
export const ISSUE_LIBRARY_SIZE = 21110;

/** Issue 44's targets for the 21,110-skill library's index, in bytes, and against the JSON index. */
const SIZE_TARGETS = { plain: 5e6, instructions: 11e6, ofJson: 1 / 3 };

/** One `sisu-skills index` in its own process: { wallMs, maxRssBytes, cpuMs, bytes }. */
function indexRun(cli, root, output, instructions, temp) {
  const peakFile = join(temp, `peak-${process.pid}-${Date.now()}.json`);
  const args = [PEAK, cli, 'index', root, '-o', output, ...(instructions ? ['--instructions'] : [])];
  return new Promise((resolve, reject) => {
    const started = performance.now();
    execFile(process.execPath, args, { env: { ...process.env, PEAK_FILE: peakFile }, maxBuffer: 16 << 20 }, async (error, _out, stderr) => {
      const wallMs = performance.now() - started;
      if (error && error.code !== 0) return reject(new Error(`sisu-skills index failed: ${stderr || error.message}`));
      try {
        const peak = JSON.parse(await readFile(peakFile, 'utf8'));
        resolve({ wallMs, ...peak, bytes: (await stat(output)).size });
      } catch (failure) {
        reject(failure);
      }
    });
  });
}

/** The four builds of `root`'s index (this build's and the baseline's, without and with the instructions), by turns. */
async function buildAll(root, baseline, temp) {
  const builds = [['ours', OURS_CLI, `${root}.index`], ...(baseline ? [['json', baseline.cli, `${root}.index.json`]] : [])];
  const figures = {};
  for (const instructions of [false, true]) {
    for (const [name, cli, output] of builds) {
      const file = instructions ? output.replace(/\.index/, '.instructions.index') : output;
      const run = await indexRun(cli, root, file, instructions, temp);
      if (name === 'json') run.gzipBytes = gzipSync(await readFile(file), { level: 6 }).length;
      figures[`${name}${instructions ? 'Instructions' : ''}`] = run;
    }
  }
  return figures;
}

export async function benchIndexBuild({ temp, row, results, log, baseline }) {
  const corpus = await loadCorpus();
  if (!corpus) {
    row('index 21110', 'skipped: ../shared/corpus not found', 0, '', '(skipped)');
    return;
  }
  const section = `index ${ISSUE_LIBRARY_SIZE}`;
  log(`[bench] writing ${ISSUE_LIBRARY_SIZE} real-shaped skills (issue 44's library)...`);
  const root = join(temp, `real-${ISSUE_LIBRARY_SIZE}`);
  const written = await timeAsync(() => writeRealWorkload(root, ISSUE_LIBRARY_SIZE, corpus));
  log(`[bench]   ${(written.ms / 1000).toFixed(1)} s; sisu-skills index, this build${baseline ? ' and the JSON baseline' : ''}...`);
  const large = await buildAll(root, baseline, temp);
  log(`[bench] the corpus written once (${corpus.length} skills, no copies)...`);
  const distinctRoot = join(temp, `distinct-${corpus.length}`);
  await writeRealWorkload(distinctRoot, corpus.length, corpus);
  const distinct = await buildAll(distinctRoot, baseline, temp);
  results.indexBuild = { skills: ISSUE_LIBRARY_SIZE, large, distinctSkills: corpus.length, distinct };
  sizeRows(section, large, row);
  buildRows(section, large, row);
  const perSkill = (bytes, skills) => `${Math.round(bytes / skills)} B`;
  for (const [key, label] of [
    ['', ''],
    ['Instructions', ' with --instructions'],
  ]) {
    const ours = distinct[`ours${key}`];
    const json = distinct[`json${key}`];
    row(
      `index, ${corpus.length} distinct skills`,
      `index file${label} per skill: ours ${perSkill(ours.bytes, corpus.length)} (${perSkill(large[`ours${key}`].bytes, ISSUE_LIBRARY_SIZE)} in the ` +
        `${ISSUE_LIBRARY_SIZE}-skill copies)` +
        (json ? `; JSON ${perSkill(json.bytes, corpus.length)}, gzip'd ${perSkill(json.gzipBytes, corpus.length)}; ours / JSON` : ''),
      json ? ours.bytes / json.bytes : ours.bytes / 1e6,
      json ? 'x' : 'MB',
      '(info)',
    );
  }
}

function sizeRows(section, figures, row) {
  const mb = (bytes) => bytes / 1e6;
  for (const [key, label, target] of [
    ['', 'without the instructions', SIZE_TARGETS.plain],
    ['Instructions', 'with --instructions', SIZE_TARGETS.instructions],
  ]) {
    const ours = figures[`ours${key}`];
    const json = figures[`json${key}`];
    row(section, `index file ${label}: ours (MB)`, mb(ours.bytes), 'MB', `<= ${mb(target)}`, ours.bytes <= target);
    if (!json) continue;
    row(section, `  the JSON baseline (MB)`, mb(json.bytes), 'MB', '(baseline)');
    row(
      section,
      `  the JSON gzip'd at level 6 (MB): the obvious baseline; meets the size target: ${json.gzipBytes <= target ? 'yes' : 'no'}`,
      mb(json.gzipBytes),
      'MB',
      '(baseline)',
    );
    row(section, `  ours / JSON`, ours.bytes / json.bytes, 'x', '<= 0.333', ours.bytes / json.bytes <= SIZE_TARGETS.ofJson);
  }
}

function buildRows(section, figures, row) {
  for (const key of ['', 'Instructions']) {
    const ours = figures[`ours${key}`];
    const json = figures[`json${key}`];
    const label = key ? 'with --instructions' : 'without the instructions';
    row(
      section,
      `sisu-skills index ${label}: whole process, ours (ms)`,
      ours.wallMs,
      'ms',
      json ? `JSON ${Math.round(json.wallMs)} ms` : '(info)',
    );
    const peak = `sisu-skills index ${label}: peak memory (RSS), ours (MB)`;
    if (!json) row(section, peak, ours.maxRssBytes / 1e6, 'MB', '(info)');
    else if (!key) row(section, peak, ours.maxRssBytes / 1e6, 'MB', `JSON ${(json.maxRssBytes / 1e6).toFixed(0)} MB`);
    else {
      // Issue 44: at most half the JSON build's peak, with the instructions.
      const ratio = ours.maxRssBytes / json.maxRssBytes;
      row(section, `${peak}; JSON ${(json.maxRssBytes / 1e6).toFixed(0)} MB; ours / JSON`, ratio, 'x', '<= 0.5', ratio <= 0.5);
    }
  }
}

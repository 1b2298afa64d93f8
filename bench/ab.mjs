// A/B of builds on the real-shaped first request, interleaved in one session
// (the machine is shared and noisy: only runs side by side compare):
//   npx tsup --silent && node bench/ab.mjs [--size 2000] [--runs 9] [--keep dir] [--kind ours-task] name=path/to/index.js ...
// Each run starts the floor and every build named, each in its own process,
// in rotated order; prints medians of whole-process time and their ratio to
// the floor's, with the load average. A build is a copy of dist/index.js
// kept inside the repository (so `zod` resolves), e.g. bench-results/ab/base/.
// --keep reuses the library written there by an earlier run (it takes
// minutes to write at 20,000).
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ioFloor } from './floor.mjs';
import { bundlePrebuilt } from './prebuilt-bundle.mjs';
import { prepareReal, runContender } from './real.mjs';
import { loadCorpus } from './realshape.mjs';
import { median } from './stats.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at === -1 ? fallback : args.splice(at, 2)[1];
};
const size = Number(option('size', '2000'));
const runs = Number(option('runs', '9'));
const keep = option('keep', join(tmpdir(), 'mw-skills-ab'));
// ours | ours-task | prebuilt | prebuilt-task (bench/contender.mjs); an index must be readable by every build named.
const kind = option('kind', 'ours');
const builds = args.map((arg) => {
  const [name, path] = arg.split('=');
  return { name, path };
});
if (builds.length === 0) {
  process.stderr.write('usage: node bench/ab.mjs [--size N] [--runs N] [--keep dir] name=bundle.js ...\n');
  process.exit(2);
}

const root = join(keep, `real-${size}`);
const metaFile = `${root}.meta.json`;
if (!existsSync(metaFile)) {
  const corpus = await loadCorpus();
  if (!corpus) throw new Error('../shared/corpus not found');
  await mkdir(keep, { recursive: true });
  process.stderr.write(`writing ${size} real-shaped skills under ${keep}...\n`);
  await prepareReal(keep, size, corpus, await bundlePrebuilt());
}
await ioFloor(root, { maxDepth: Infinity }); // warm the page cache

const kinds = [{ name: 'floor', kind: 'floor' }, ...builds.map((b) => ({ name: b.name, kind, bundle: b.path }))];
const samples = Object.fromEntries(kinds.map((k) => [k.name, []]));
const load = [];
for (let rep = 0; rep < runs; rep++) {
  load.push(loadavg()[0]);
  for (let i = 0; i < kinds.length; i++) {
    const k = kinds[(i + rep) % kinds.length];
    samples[k.name].push(await runContender(k.kind, root, metaFile, [], k.bundle));
  }
}
const floor = median(samples.floor.map((s) => s.wallMs));
console.log(`${size} real-shaped skills, ${runs} runs each, load average ${Math.min(...load).toFixed(2)}-${Math.max(...load).toFixed(2)}`);
for (const k of kinds) {
  const wall = median(samples[k.name].map((s) => s.wallMs));
  const run = median(samples[k.name].map((s) => s.runMs));
  const imported = median(samples[k.name].map((s) => s.importMs));
  const counts = [...new Set(samples[k.name].map((s) => s.count))].join('/');
  console.log(
    `${k.name.padEnd(12)} wall ${wall.toFixed(0).padStart(6)} ms  ${(wall / floor).toFixed(3)}x  ` +
      `run ${run.toFixed(0).padStart(6)}  import ${imported.toFixed(1).padStart(5)}  found ${counts}`,
  );
}

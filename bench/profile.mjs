// CPU profile of one contender at a real-shaped size, to see what costs what:
//   npx tsup --silent && node bench/profile.mjs [size=2000] [kind=ours] [runs=3] [top=25]
// Writes the library to a temporary folder, warms the page cache, runs the
// contender (bench/contender.mjs) under `node --cpu-prof` `runs` times and
// prints the self time of the top functions and of each file, summed over the
// runs (shares of the total sampled time; "(garbage collector)", "(program)"
// and "(idle)" are V8's own). The .cpuprofile files are kept for DevTools.
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ioFloor } from './floor.mjs';
import { fileKey, functionKey, printTotals as print, selfTimes } from './profile-summary.mjs';
import { bundlePrebuilt } from './prebuilt-bundle.mjs';
import { prepareReal, runContender } from './real.mjs';
import { loadCorpus } from './realshape.mjs';

const [size = '2000', kind = 'ours', runs = '3', top = '25'] = process.argv.slice(2);
const here = fileURLToPath(new URL('.', import.meta.url));

const corpus = await loadCorpus();
if (!corpus) {
  console.log('skipped: ../shared/corpus not found');
  process.exit(0);
}
const temp = await mkdtemp(join(tmpdir(), 'mw-skills-profile-'));
const profiles = join(here, '..', 'bench-results', 'profiles');
await rm(profiles, { recursive: true, force: true });
await mkdir(profiles, { recursive: true });
try {
  const workload = await prepareReal(temp, Number(size), corpus, await bundlePrebuilt());
  await ioFloor(workload.root, { maxDepth: Infinity });
  const walls = [];
  for (let i = 0; i < Number(runs); i++) {
    const result = await runContender(kind, workload.root, workload.metaFile, ['--cpu-prof', '--cpu-prof-dir', profiles]);
    walls.push(`${result.wallMs.toFixed(0)} ms (run ${result.runMs.toFixed(0)}, ${result.count} skills)`);
  }
  console.log(`${kind} at ${size} real-shaped skills: ${walls.join('; ')}`);
  const byFunction = new Map();
  const byFile = new Map();
  for (const file of await readdir(profiles)) {
    const profile = JSON.parse(await readFile(join(profiles, file), 'utf8'));
    selfTimes(profile, functionKey, byFunction);
    selfTimes(profile, fileKey, byFile);
  }
  print('self time by function', byFunction, Number(top));
  print('self time by module (src/ through the source map; node internals by name)', byFile, 20);
  console.log(`\nprofiles: bench-results/profiles/ (open in Chrome DevTools > Performance)`);
} finally {
  await rm(temp, { recursive: true, force: true });
}

// What ranking by the instructions costs at one real-shaped library size (issue 29), alone:
//   npm run build && node bench/instructions-cost.mjs [count = 20000]
// Writes a real-shaped library from ../shared/corpus (bench/realshape.mjs) in a temporary folder and
// prints, as JSON: the index memory kept without and with the instructions ranked (bench/memory.mjs
// middleware / middleware-instructions, heap + typed arrays, after a warm-up on 2,000 other skills) and
// their difference per skill (issue 29's bound: 3,000 B); and the prebuilt index written with and
// without `--instructions` (bytes, and the median of 5 parses of each by parsePrebuiltIndex, ms).
// `npm run bench` prints the memory row too; this measures it without the rest of the run.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile, readFile } from 'node:fs/promises';
import { tmpdir, loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { bundlePrebuilt } from './prebuilt-bundle.mjs';
import { loadCorpus, writeRealWorkload } from './realshape.mjs';
import { median } from './stats.mjs';

const count = Number(process.argv[2] ?? 20000);
const here = fileURLToPath(new URL('.', import.meta.url));
const run = promisify(execFile);
const corpus = await loadCorpus();
if (!corpus) throw new Error('../shared/corpus not found: the real-shaped library is built from it');
const temp = await mkdtemp(join(tmpdir(), 'instructions-cost-'));
try {
  const root = join(temp, `real-${count}`);
  const warm = join(temp, 'warm-2000');
  await writeRealWorkload(root, count, corpus);
  await writeRealWorkload(warm, 2000, corpus);
  const memory = {};
  for (const what of ['middleware', 'middleware-instructions']) {
    const args = ['--expose-gc', join(here, 'memory.mjs'), root, what, '--warm', warm];
    memory[what] = JSON.parse((await run(process.execPath, args, { maxBuffer: 1 << 20 })).stdout);
  }
  const total = (m) => m.heapDelta + (m.arrayBuffersDelta ?? 0);
  const without = total(memory.middleware);
  const withThem = total(memory['middleware-instructions']);
  const lib = await import(await bundlePrebuilt());
  const indexes = {};
  for (const instructions of [false, true]) {
    const file = join(temp, `index-${instructions}.json`);
    const built = await lib.buildPrebuiltIndex({ directories: [root] }, file, undefined, { instructions });
    await writeFile(file, lib.serializePrebuiltIndex(built));
    const text = await readFile(file, 'utf8');
    const parses = [];
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      const read = lib.parsePrebuiltIndex(text, file, { directories: [root], packages: [], include: [], exclude: [], strict: false });
      parses.push(performance.now() - started);
      if (!read.ok) throw new Error(`the index was not usable: ${JSON.stringify(read).slice(0, 300)}`);
    }
    indexes[instructions ? 'withInstructions' : 'without'] = { bytes: text.length, parseMs: median(parses) };
  }
  const out = {
    count,
    loadAverage: loadavg(),
    heapAndTypedArraysMB: { without: without / 1e6, withInstructions: withThem / 1e6 },
    instructionsBytesPerSkill: (withThem - without) / count,
    indexes,
  };
  process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
} finally {
  await rm(temp, { recursive: true, force: true });
}

// One contender in a fresh process: node bench/contender.mjs <kind> <root> [meta.json] [bundle]
// Imports what it needs, runs once, prints { count, importMs, runMs, sinceStartMs }
// as JSON and exits. The parent times the whole process (start, import, run,
// exit): the headline; the figures printed here are for information.
//   floor          walk every folder, read every SKILL.md, nothing else
//   floor-skills   the same, not descending into a folder holding a SKILL.md
//   ours           skillsMiddleware({ directories }) and one request, "hello" (dist/,
//                  or the build given as `bundle`: bench/ab.mjs compares two builds)
//   ours-task      the same with a request that matches skills ("convert a pdf to
//                  markdown"), so the ranked catalog builds the ranker ("hello"
//                  matches none: it does not)
//   official       @sisu-ai/mw-skills 3.0.0's discoverSkills (../shared/sisu)
//   yaml           bench/yaml-loader.mjs (the `yaml` package, resources walked)
//   ours-trust, ours-task-trust: ours and ours-task with `trust` (meta.trustKeys), the library signed (issue 41)
//   prebuilt-trust the first request with `trust` from the index sealed with `sisu-skills index --key` (meta.sealedIndexFile)
//   import         node start and importing the package, nothing else
//   prebuilt       the first request with the `index` option (meta.indexFile)
//   prebuilt-task  the same with the request that matches skills
//   prebuilt-instructions-task  the same from the index built with --instructions (meta.instructionsIndexFile)
//   json-task, json-instructions-task, gzip-task, gzip-instructions-task: the plain baseline (issue 44): the
//                  package when its index was JSON (meta.baseline.bundle, bench/json-baseline.mjs) from its
//                  JSON index (meta.baseline.json / .jsonInstructions), or from that JSON gzip'd (.gz
//                  files), unzipped by the `fs` it is given: what a gzip'd JSON index would cost
// meta.directories, when given, is the `directories` option (the scaling rows
// configure 10 or 500 folders); else [root].
import { readFileSync } from 'node:fs';
import { lstat, open, readdir, readFile, realpath, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { userContext } from './plain-ctx.mjs';

const [kind, root, metaFile, bundle] = process.argv.slice(2);
const here = fileURLToPath(new URL('.', import.meta.url));
const meta = metaFile ? JSON.parse(readFileSync(metaFile, 'utf8')) : {};
const OFFICIAL = resolve(here, '..', '..', 'shared', 'sisu', 'node_modules', '@sisu-ai', 'mw-skills', 'dist', 'index.js');

/** A request that matches skills of the real corpus, the kind a real first request carries (issue 20). */
const TASK = 'convert a pdf to markdown';
const directories = meta.directories ?? [root];

const loadOurs = () => (bundle ? import(pathToFileURL(resolve(bundle)).href) : import('../dist/index.js'));

/**
 * The middleware's first request with one user message; resolves with the
 * number of skills it loaded. What it logs as warnings goes into `warnings`.
 */
async function firstRequest(api, content, options = {}, warnings = []) {
  const middleware = api.skillsMiddleware({ directories, ...options });
  const ctx = userContext(content);
  ctx.log.warn = (...args) => warnings.push(args);
  await middleware(ctx, async () => {});
  return api.getSkills(ctx)?.skills.length ?? 0;
}

/** The first request from the prebuilt index `file`; throws if the index was not used. */
async function fromIndex(api, content, file = meta.indexFile, options = {}) {
  const warnings = [];
  const count = await firstRequest(api, content, { index: file, ...options }, warnings);
  // An unusable index falls back to a scan with a warning: that would not be this row's figure.
  const unusable = warnings.find((args) => JSON.stringify(args).includes('INDEX_UNUSABLE'));
  if (unusable) throw new Error(`the prebuilt index was not used: ${JSON.stringify(unusable)}`);
  return count;
}

/** The first request under `trust`; throws if anything was refused (the row would not be a verified library's). */
async function trusted(api, content, options = {}) {
  const warnings = [];
  const count = await firstRequest(api, content, { trust: { keys: meta.trustKeys }, ...options }, warnings);
  const refused = warnings.find((args) => /MANIFEST_|UNTRUSTED_SKILL|INDEX_UNUSABLE/.test(JSON.stringify(args)));
  if (refused) throw new Error(`trust refused part of the library: ${JSON.stringify(refused)}`);
  return count;
}

/** A file system that reads `.gz` files unzipped: the baseline's JSON index, gzip'd. */
const gunzippingFs = {
  readdir: (path, options) => readdir(path, options),
  readFile: async (path, encoding) =>
    path.endsWith('.gz') ? gunzipSync(await readFile(path)).toString(encoding) : readFile(path, encoding),
  stat: (path) => stat(path),
  lstat: (path) => lstat(path),
  realpath: (path) => realpath(path),
  open: (path, flags) => open(path, flags),
};
const loadBaseline = () => import(pathToFileURL(resolve(meta.baseline.bundle)).href);

const CONTENDERS = {
  floor: {
    load: () => import('./floor.mjs'),
    run: async (m) => (await m.ioFloor(root, { maxDepth: Infinity })).files,
  },
  'floor-skills': {
    load: () => import('./floor.mjs'),
    run: async (m) => (await m.ioFloor(root, { maxDepth: Infinity, descendIntoSkills: false })).files,
  },
  ours: { load: loadOurs, run: (api) => firstRequest(api, 'hello') },
  // Issue 41: the same first requests under `trust` (meta.trustKeys: the public keys the library is signed with).
  'ours-trust': { load: loadOurs, run: (api) => trusted(api, 'hello') },
  'ours-task-trust': { load: loadOurs, run: (api) => trusted(api, TASK) },
  'prebuilt-trust': { load: loadOurs, run: (api) => trusted(api, 'hello', { index: meta.sealedIndexFile }) },
  'ours-task': { load: loadOurs, run: (api) => firstRequest(api, TASK) },
  official: {
    load: () => import(pathToFileURL(OFFICIAL).href),
    // It looks one level deep: a host points it at every folder that holds skills.
    run: async (m) => (await m.discoverSkills({ directories: meta.parents })).skills.length,
  },
  yaml: {
    load: () => import('./yaml-loader.mjs'),
    run: async (m) => (await m.loadWithYaml(root)).skills.length,
  },
  // Node start and importing the package, nothing run: what no start-up can go below.
  import: { load: loadOurs, run: async () => 0 },
  prebuilt: { load: loadOurs, run: (api) => fromIndex(api, 'hello') },
  'prebuilt-task': { load: loadOurs, run: (api) => fromIndex(api, TASK) },
  'prebuilt-instructions-task': { load: loadOurs, run: (api) => fromIndex(api, TASK, meta.instructionsIndexFile) },
  'json-task': { load: loadBaseline, run: (api) => fromIndex(api, TASK, meta.baseline.json) },
  'json-instructions-task': { load: loadBaseline, run: (api) => fromIndex(api, TASK, meta.baseline.jsonInstructions) },
  'gzip-task': { load: loadBaseline, run: (api) => fromIndex(api, TASK, `${meta.baseline.json}.gz`, { fs: gunzippingFs }) },
  'gzip-instructions-task': {
    load: loadBaseline,
    run: (api) => fromIndex(api, TASK, `${meta.baseline.jsonInstructions}.gz`, { fs: gunzippingFs }),
  },
};

const contender = CONTENDERS[kind];
if (!contender || !root) {
  process.stderr.write(`usage: node bench/contender.mjs <${Object.keys(CONTENDERS).join('|')}> <root> [meta.json]\n`);
  process.exit(2);
}
const started = performance.now();
const module = await contender.load();
const imported = performance.now();
const count = await contender.run(module);
const finished = performance.now();
process.stdout.write(
  JSON.stringify({
    kind,
    count,
    importMs: imported - started,
    runMs: finished - imported,
    // performance.now() counts from the process's start: node's own start-up included.
    sinceStartMs: finished,
    // CPU time of the whole process so far (all threads, the garbage collector's included): steadier than wall time on a busy machine.
    cpuMs: (process.cpuUsage().user + process.cpuUsage().system) / 1000,
  }),
);

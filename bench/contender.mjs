// One contender in a fresh process: node bench/contender.mjs <kind> <root> [meta.json]
// Imports what it needs, runs once, prints { count, importMs, runMs, sinceStartMs }
// as JSON and exits. The parent times the whole process (start, import, run,
// exit): the headline; the figures printed here are for information.
//   floor          walk every folder, read every SKILL.md, nothing else
//   floor-skills   the same, not descending into a folder holding a SKILL.md
//   ours           skillsMiddleware({ directories }) and one request (dist/)
//   official       @sisu-ai/mw-skills 3.0.0's discoverSkills (../shared/sisu)
//   yaml           bench/yaml-loader.mjs (the `yaml` package, resources walked)
//   prebuilt       the first request from a prebuilt index (meta.indexFile)
/* global AbortController */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';

const [kind, root, metaFile] = process.argv.slice(2);
const here = fileURLToPath(new URL('.', import.meta.url));
const meta = metaFile ? JSON.parse(readFileSync(metaFile, 'utf8')) : {};
const OFFICIAL = resolve(here, '..', '..', 'shared', 'sisu', 'node_modules', '@sisu-ai', 'mw-skills', 'dist', 'index.js');

/** A plain request ctx with the fields the middleware touches. */
function requestContext() {
  const tools = new Map();
  const noop = () => {};
  return {
    messages: [{ role: 'user', content: 'hello' }],
    tools: { list: () => [...tools.values()], get: (name) => tools.get(name), register: (tool) => tools.set(tool.name, tool) },
    state: {},
    log: { debug: noop, info: noop, warn: noop, error: noop },
    signal: new AbortController().signal,
  };
}

/** The middleware's first request from a prebuilt index, as src/middleware.ts would make it once the `index` option is wired. */
async function prebuiltFirstRequest(lib) {
  const resolved = lib.resolveOptions({ directories: [root] });
  const read = await lib.readPrebuiltIndex(meta.indexFile, resolved);
  if (!read.ok) throw new Error(read.message);
  const index = lib.createLazySkillIndex(read.result, (entry) => lib.loadSkillContent(entry, resolved));
  const modelIndex = lib.narrowIndex(index, (entry) => lib.isModelInvocable(entry.metadata));
  const catalog = lib.createCatalog(lib.catalogEntries(modelIndex.skills), {
    budget: resolved.catalogBudget,
    ranker: () => lib.rankerForSkills(modelIndex.skills),
    toolName: 'use_skill',
    findToolName: 'find_skills',
  });
  catalog.render('hello');
  return index.skills.length;
}

/** How the prebuilt contender ran: through the `index` option, or emulated. */
let prebuiltPath;

const CONTENDERS = {
  floor: {
    load: () => import('./floor.mjs'),
    run: async (m) => (await m.ioFloor(root, { maxDepth: Infinity })).files,
  },
  'floor-skills': {
    load: () => import('./floor.mjs'),
    run: async (m) => (await m.ioFloor(root, { maxDepth: Infinity, descendIntoSkills: false })).files,
  },
  ours: {
    load: () => import('../dist/index.js'),
    run: async (api) => {
      const middleware = api.skillsMiddleware({ directories: [root] });
      const ctx = requestContext();
      await middleware(ctx, async () => {});
      return api.getSkills(ctx)?.skills.length ?? 0;
    },
  },
  official: {
    load: () => import(pathToFileURL(OFFICIAL).href),
    // It looks one level deep: a host points it at every folder that holds skills.
    run: async (m) => (await m.discoverSkills({ directories: meta.parents })).skills.length,
  },
  yaml: {
    load: () => import('./yaml-loader.mjs'),
    run: async (m) => (await m.loadWithYaml(root)).skills.length,
  },
  prebuilt: {
    load: () => import(pathToFileURL(meta.bundle).href),
    run: async (lib) => {
      // The real option once the lead has wired it; until then the same steps, by hand.
      try {
        const middleware = lib.skillsMiddleware({ directories: [root], index: meta.indexFile });
        const ctx = requestContext();
        await middleware(ctx, async () => {});
        prebuiltPath = 'option';
        return lib.getSkills(ctx)?.skills.length ?? 0;
      } catch (error) {
        if (!(error instanceof lib.SkillsConfigError) || !/unknown option `index`/.test(error.message)) throw error;
        prebuiltPath = 'emulated';
        return prebuiltFirstRequest(lib);
      }
    },
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
    ...(prebuiltPath ? { path: prebuiltPath } : {}),
  }),
);

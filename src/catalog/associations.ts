/**
 * Term associations learned from the library itself: which terms the skills
 * that use a word also use. Pure: the ranker's own postings in
 * (src/catalog/rank.ts, src/catalog/body-terms.ts), a table out.
 */
import type { Postings } from '../base/compact.js';

export interface AssociationTuning {
  /** What an associated term counts next to the word, times its strength (0: none learned). */
  weight: number;
  /** Associations kept per term. */
  perTerm: number;
  /** Skills a term must share with the word. */
  minShared: number;
  /** A word in more than this share of skills is not expanded. */
  maxShare: number;
  /** How candidates are ordered: 'pmi', 'confidence' (share x idf) or 'llr'. */
  measure: 'pmi' | 'confidence' | 'llr';
  /** Least confidence (shared / the word's skills) an association needs. */
  minConfidence: number;
  /** An associated term in more than this share of skills is not offered. */
  maxTargetShare: number;
  /** Experiment: expand a word's lexicon expansions too (their associations at expansionWeight x weight). */
  chain?: boolean;
  /** Experiment: false leaves the query's words unexpanded (document expansion alone). */
  queryTerms?: boolean;
  /** Experiment: document expansion, terms added per skill (0: none), votes each needs, and its weight. */
  docTerms?: number;
  minVotes?: number;
  docWeight?: number;
  /** Experiment: learn from these postings instead of the ranker's own (per library size), or from passages. */
  extra?: Readonly<Record<number, TermPostings>>;
  passages?: { source: TermPostings; size: number };
}

export const ASSOCIATION_DEFAULTS: Readonly<AssociationTuning> = Object.freeze({
  weight: 0,
  perTerm: 3,
  minShared: 2,
  maxShare: 0.05,
  measure: 'confidence',
  minConfidence: 0.3,
  maxTargetShare: 1,
});

/** One index's terms (sorted, id = position) and postings. */
export interface TermPostings {
  readonly terms: readonly string[];
  readonly postings: Postings;
}

export interface Association {
  term: string;
  /** In (0, 1]: the share of the word's skills that use the term. */
  strength: number;
}

export interface Associations {
  of(term: string): readonly Association[] | undefined;
  /** Experiment: per doc, terms it lacks that its own terms point to (term -> doc -> weight in (0,1]). */
  docs?: Map<string, Map<number, number>>;
}

/** Associations over `size` skills, whose terms are those of `sources` (a skill uses a term when one source lists it for it). */
export function learnAssociations(sources: readonly TermPostings[], size: number, tuning: Readonly<AssociationTuning>): Associations {
  // One vocabulary over all sources.
  const uidOf = new Map<string, number>();
  const names: string[] = [];
  const uids = sources.map(({ terms }) =>
    Int32Array.from(terms, (term) => {
      let uid = uidOf.get(term);
      if (uid === undefined) {
        uid = names.length;
        uidOf.set(term, uid);
        names.push(term);
      }
      return uid;
    }),
  );
  const vocabulary = names.length;
  // Forward index (doc -> uids, distinct), by counting then filling.
  const perDoc = new Int32Array(size + 1);
  for (const { terms, postings } of sources) {
    for (let t = 0; t < terms.length; t++)
      for (let p = postings.start(t); p < postings.end(t); p++) {
        const d = postings.doc(p) + 1;
        perDoc[d] = (perDoc[d] ?? 0) + 1;
      }
  }
  for (let d = 0; d < size; d++) perDoc[d + 1] = (perDoc[d + 1] ?? 0) + (perDoc[d] ?? 0);
  const fill = perDoc.slice(0, size);
  const forward = new Int32Array(perDoc[size] ?? 0);
  sources.forEach(({ terms, postings }, s) => {
    const ids = uids[s] as Int32Array;
    for (let t = 0; t < terms.length; t++) {
      for (let p = postings.start(t); p < postings.end(t); p++) {
        const d = postings.doc(p);
        forward[fill[d] ?? 0] = ids[t] ?? 0;
        fill[d] = (fill[d] ?? 0) + 1;
      }
    }
  });
  // Distinct per doc; df.
  const df = new Int32Array(vocabulary);
  const seen = new Int32Array(vocabulary).fill(-1);
  const docStart = new Int32Array(size + 1);
  let at = 0;
  for (let d = 0; d < size; d++) {
    docStart[d] = at;
    for (let i = perDoc[d] ?? 0; i < (fill[d] ?? 0); i++) {
      const uid = forward[i] ?? 0;
      if (seen[uid] === d) continue;
      seen[uid] = d;
      forward[at++] = uid;
      df[uid] = (df[uid] ?? 0) + 1;
    }
  }
  docStart[size] = at;
  // Inverted (uid -> docs).
  const invStart = new Int32Array(vocabulary + 1);
  for (let u = 0; u < vocabulary; u++) invStart[u + 1] = (invStart[u] ?? 0) + (df[u] ?? 0);
  const invFill = invStart.slice(0, vocabulary);
  const inverted = new Int32Array(at);
  for (let d = 0; d < size; d++) {
    for (let i = docStart[d] ?? 0; i < (docStart[d + 1] ?? 0); i++) {
      const uid = forward[i] ?? 0;
      inverted[invFill[uid] ?? 0] = d;
      invFill[uid] = (invFill[uid] ?? 0) + 1;
    }
  }
  const table = new Map<string, Association[]>();
  const counts = new Int32Array(vocabulary);
  const touched = new Int32Array(vocabulary);
  const maxDf = Math.max(tuning.minShared, tuning.maxShare * size);
  const n = size;
  const maxTargetDf = tuning.maxTargetShare * size;
  for (let w = 0; w < vocabulary; w++) {
    const dfw = df[w] ?? 0;
    if (dfw < tuning.minShared || dfw > maxDf) continue;
    let used = 0;
    for (let i = invStart[w] ?? 0; i < (invStart[w + 1] ?? 0); i++) {
      const d = inverted[i] ?? 0;
      for (let j = docStart[d] ?? 0; j < (docStart[d + 1] ?? 0); j++) {
        const t = forward[j] ?? 0;
        if (t === w) continue;
        if (counts[t] === 0) touched[used++] = t;
        counts[t] = (counts[t] ?? 0) + 1;
      }
    }
    const picked: Array<{ t: number; score: number; confidence: number }> = [];
    for (let k = 0; k < used; k++) {
      const t = touched[k] ?? 0;
      const c = counts[t] ?? 0;
      counts[t] = 0;
      const dft = df[t] ?? 0;
      const confidence = c / dfw;
      if (c < tuning.minShared || confidence < tuning.minConfidence || dft > maxTargetDf) continue;
      let score: number;
      if (tuning.measure === 'pmi') score = Math.log((c * n) / (dfw * dft));
      else if (tuning.measure === 'llr') score = llr(c, dfw, dft, n);
      else score = confidence * Math.log(1 + (n - dft + 0.5) / (dft + 0.5));
      picked.push({ t, score, confidence });
    }
    if (picked.length === 0) continue;
    picked.sort((a, b) => b.score - a.score || a.t - b.t);
    table.set(
      names[w] as string,
      picked.slice(0, tuning.perTerm).map(({ t, confidence }) => ({ term: names[t] as string, strength: confidence })),
    );
  }
  const docTerms = tuning.docTerms ?? 0;
  const minVotes = tuning.minVotes ?? 2;
  let docs: Map<string, Map<number, number>> | undefined;
  if (docTerms > 0) {
    docs = new Map();
    const votes = new Map<string, number>();
    const inDoc = new Set<string>();
    for (let d = 0; d < size; d++) {
      votes.clear();
      inDoc.clear();
      for (let i = docStart[d] ?? 0; i < (docStart[d + 1] ?? 0); i++) inDoc.add(names[forward[i] ?? 0] as string);
      const count = new Map<string, number>();
      for (const w of inDoc) {
        for (const a of table.get(w) ?? []) {
          if (inDoc.has(a.term)) continue;
          votes.set(a.term, (votes.get(a.term) ?? 0) + a.strength);
          count.set(a.term, (count.get(a.term) ?? 0) + 1);
        }
      }
      const ranked = [...votes]
        .filter(([t]) => (count.get(t) ?? 0) >= minVotes)
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
        .slice(0, docTerms);
      for (const [t, v] of ranked) {
        let m = docs.get(t);
        if (!m) docs.set(t, (m = new Map()));
        m.set(d, Math.min(1, v / minVotes));
      }
    }
  }
  return { of: (term) => table.get(term), ...(docs ? { docs } : {}) };
}

function xlogx(x: number): number {
  return x <= 0 ? 0 : x * Math.log(x);
}

/** Dunning's log-likelihood ratio of a 2x2 table. */
function llr(c: number, a: number, b: number, n: number): number {
  const k11 = c;
  const k12 = a - c;
  const k21 = b - c;
  const k22 = n - a - b + c;
  const row = xlogx(k11 + k12) + xlogx(k21 + k22);
  const col = xlogx(k11 + k21) + xlogx(k12 + k22);
  const cells = xlogx(k11) + xlogx(k12) + xlogx(k21) + xlogx(k22);
  return 2 * (cells - row - col + xlogx(n));
}

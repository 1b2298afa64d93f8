// What the ranking experiments share (scripts/body-rank-experiment.mjs, scripts/assoc-rank-experiment.mjs): the
// ranker bundled from source (src/catalog/rank/, so every weight can be tried without a build), the 2,000-skill
// library the catalog column ranks, and the labelled sets' parts. The corpus comes from test/relevance/corpus.mjs.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { importSource, root } from './import-source.mjs';
import { loadRequests as loadBodySet } from '../test/relevance/body-set/set.mjs';

/** The ranker's (its modules as one: score, tokenize, data), the catalog's and the parser's modules, bundled from source. */
export async function bundleSources() {
  const { score, tokenize, data, catalog, parse } = await importSource({
    score: 'src/catalog/rank/score.ts',
    tokenize: 'src/catalog/rank/tokenize.ts',
    data: 'src/catalog/rank/data.ts',
    catalog: 'src/catalog/catalog.ts',
    parse: 'src/frontmatter/parse.ts',
  });
  return { rank: { ...score, ...tokenize, ...data }, catalog, parse };
}

/** The 2,000-skill library: the corpus, then copies of its first skills under new names. */
export function libraryOf(skills, size = 2000) {
  const copies = skills.slice(0, size - skills.length).map((s) => ({ ...s, entry: { ...s.entry, name: `${s.entry.name}-copy` } }));
  return [...skills, ...copies];
}

/** The labelled sets present, each split into its parts (the held-back parts only when `showHeld`). */
export async function loadParts(showHeld) {
  const sets = { 'body-set': loadBodySet() };
  const second = join(root, 'test/relevance/instructions-set/set.mjs');
  if (existsSync(second)) sets['instructions-set'] = (await import(second)).loadRequests();
  const parts = [];
  for (const [set, requests] of Object.entries(sets)) {
    parts.push({ set, part: 'train', list: requests.filter((r) => !r.heldBack) });
    if (showHeld) parts.push({ set, part: 'held-back', list: requests.filter((r) => r.heldBack) });
  }
  return parts;
}

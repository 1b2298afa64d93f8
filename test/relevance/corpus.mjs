// The shared corpus as ranker entries, and auto-activation measured on it.
// Plain JS with its parser and ranker passed in, so the vitest test (src) and
// scripts/auto-activate-threshold.mjs (dist) measure the same way.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { findSkillFiles } from '../../scripts/conformance-core.mjs';

/** Where the shared corpus sits beside the project. */
export const CORPUS_DIR = fileURLToPath(new URL('../../../shared/corpus/skills', import.meta.url));

export function corpusPresent() {
  return existsSync(CORPUS_DIR);
}

/** Every skill with a string name and description; on a duplicate name the first wins, as in discovery. */
export function loadEntries(parseFrontmatter, dir = CORPUS_DIR) {
  return loadSkills(parseFrontmatter, dir).map((skill) => skill.entry);
}

/**
 * Skills read, by folder, with the parser that read them: test files in one worker share them (vitest runs files
 * without isolation), and several read the corpus twice. Frozen, so no caller can change what another reads.
 */
const loaded = new Map();

/** loadEntries with each skill's instructions: [{ entry, body }]. Read once per folder and parser. */
export function loadSkills(parseFrontmatter, dir = CORPUS_DIR) {
  const kept = loaded.get(dir);
  if (kept?.parseFrontmatter === parseFrontmatter) return kept.skills;
  const skills = readSkills(parseFrontmatter, dir);
  loaded.set(dir, { parseFrontmatter, skills });
  return skills;
}

function readSkills(parseFrontmatter, dir) {
  const skills = [];
  const seen = new Set();
  for (const file of findSkillFiles(dir)) {
    const { metadata, body } = parseFrontmatter(readFileSync(file, 'utf8'), { file });
    const { name, description, tags } = metadata;
    if (typeof name !== 'string' || typeof description !== 'string' || seen.has(name)) continue;
    seen.add(name);
    const tagList = Array.isArray(tags) ? tags.filter((t) => typeof t === 'string') : undefined;
    const entry = Object.freeze({ name, description, ...(tagList ? { tags: Object.freeze(tagList) } : {}) });
    skills.push(Object.freeze({ entry, body }));
  }
  return Object.freeze(skills);
}

/**
 * What auto-activation with `threshold` and `maxSkills` (as selectActivations
 * picks: the best `maxSkills` at or above the threshold) does on the labeled
 * queries and the negatives:
 * - recall: labeled queries that activated one of their wanted skills / labeled queries;
 * - precision: wanted activations / all activations (labeled and negative requests);
 * - falseOnNegatives: negatives that activated anything;
 * - wrongOnLabeled: activations of an unwanted skill on labeled queries.
 */
export function measureAutoActivation(ranker, { queries, negatives, threshold, maxSkills = 1 }) {
  const pick = (text) =>
    ranker
      .rank(text, Math.max(maxSkills, 5))
      .filter((r) => r.score >= threshold)
      .slice(0, maxSkills);
  let activations = 0;
  let wanted = 0;
  let found = 0;
  let wrongOnLabeled = 0;
  for (const { query, want } of queries) {
    const picked = pick(query);
    activations += picked.length;
    const good = picked.filter((r) => want.includes(r.name)).length;
    wanted += good;
    wrongOnLabeled += picked.length - good;
    if (good > 0) found++;
  }
  const falseHits = [];
  for (const text of negatives) {
    const picked = pick(text);
    activations += picked.length;
    if (picked.length > 0) falseHits.push({ text, skill: picked[0].name, score: picked[0].score });
  }
  return {
    threshold,
    recall: found / queries.length,
    precision: activations === 0 ? 1 : wanted / activations,
    falseOnNegatives: falseHits.length,
    negatives: negatives.length,
    wrongOnLabeled,
    falseHits,
  };
}

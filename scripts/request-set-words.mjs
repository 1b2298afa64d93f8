// Usage: node scripts/request-set-words.mjs
// How far the labelled requests' words are from the skills they accept, for both sets
// (test/relevance/body-set, test/relevance/instructions-set), over the shared corpus:
// how many requests share no term, one, or two or more (after the ranker's tokenizer:
// stopwords dropped, suffixes stemmed) with the name, tags and description of any skill
// they accept, and for the instructions set also with the target's first 1,000 words of
// instructions. The same again counting only rare terms (in the name, tags or
// description of at most RARE skills of the corpus): shared everyday words ("app",
// "build", "data") say little. It ranks nothing: these figures describe the sets, not a ranker.
import { importSource } from './import-source.mjs';
import { CORPUS_DIR, corpusPresent, loadSkills } from '../test/relevance/corpus.mjs';
import { loadRequests as loadBodySet } from '../test/relevance/body-set/set.mjs';
import { loadRequests as loadInstructionsSet } from '../test/relevance/instructions-set/set.mjs';

if (!corpusPresent()) {
  console.log(`corpus not found at ${CORPUS_DIR}: nothing to count`);
  process.exit(0);
}
const { tokens, parse } = await importSource({ tokens: 'src/catalog/rank/tokenize.ts', parse: 'src/frontmatter/parse.ts' });
const { tokenize } = tokens;
const { parseFrontmatter } = parse;

const RARE = 10;
const skills = new Map(loadSkills(parseFrontmatter).map((s) => [s.entry.name, s]));
const metadataTerms = (name) => {
  const { entry } = skills.get(name);
  return new Set(tokenize([entry.name.replaceAll('-', ' '), ...(entry.tags ?? []), entry.description].join(' ')));
};
const instructionTerms = (name) => new Set(tokenize(skills.get(name).body.split(/\s+/).slice(0, 1000).join(' ')));
const skillsWith = new Map();
for (const name of skills.keys()) for (const term of metadataTerms(name)) skillsWith.set(term, (skillsWith.get(term) ?? 0) + 1);
const isRare = (term) => (skillsWith.get(term) ?? 0) <= RARE;

/** "n share none, n one, n two or more" over `requests`, with `termsOf(request)` the terms to meet. */
function spread(requests, termsOf, keep = () => true) {
  const counts = [0, 0, 0];
  for (const r of requests) {
    const terms = termsOf(r);
    counts[Math.min(2, new Set(tokenize(r.request).filter((t) => terms.has(t) && keep(t))).size)]++;
  }
  return `${counts[0]} share no term, ${counts[1]} one, ${counts[2]} two or more`;
}
const union = (names, termsOf) => new Set(names.flatMap((name) => [...termsOf(name)]));

for (const [label, requests] of [
  ['body-set', loadBodySet()],
  ['instructions-set', loadInstructionsSet()],
]) {
  const held = requests.filter((r) => r.heldBack).length;
  const sizes = [1, 2, 3].map((n) => requests.filter((r) => (n < 3 ? r.accept.length === n : r.accept.length >= 3)).length);
  console.log(`${label}: ${requests.length} requests (${requests.length - held} train, ${held} held back)`);
  console.log(`  accepted skills per request: ${sizes[0]} one, ${sizes[1]} two, ${sizes[2]} three or more`);
  console.log(`  with any accepted skill's name, tags, description: ${spread(requests, (r) => union(r.accept, metadataTerms))}`);
  console.log(
    `    rare terms only (in at most ${RARE} skills' metadata): ${spread(requests, (r) => union(r.accept, metadataTerms), isRare)}`,
  );
  if (requests[0]?.target === undefined) continue;
  console.log(`  with the target's name, tags, description: ${spread(requests, (r) => metadataTerms(r.target))}`);
  console.log(`  with the target's first 1,000 words of instructions: ${spread(requests, (r) => instructionTerms(r.target))}`);
}

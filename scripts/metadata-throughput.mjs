// Usage: node scripts/metadata-throughput.mjs [rounds]
// Metadata validation's throughput over every SKILL.md of ../shared/corpus: the frontmatter is parsed once, then
// validateMetadata (and the fast path alone, fastParse) runs over every file, `rounds` times (default 41), in one
// process, both bundled from source (src/metadata/schema.ts). Prints the median of the rounds for each, in
// microseconds a file and files a second, and how many files took the fast path. Compare two commits by running
// this script from each checkout, one after the other, a few times each (run-to-run noise is some percent).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { importSource, root } from './import-source.mjs';

const CORPUS = join(root, '..', 'shared', 'corpus', 'skills');
const rounds = Number(process.argv[2] ?? 41);
// The fast path is src/metadata/fields.ts's since issue 40 (schema.ts's before): either checkout measures.
const withFields = existsSync(join(root, 'src', 'metadata', 'fields.ts'));
const { schema, parse, fields } = await importSource({
  schema: 'src/metadata/schema.ts',
  parse: 'src/frontmatter/parse.ts',
  ...(withFields ? { fields: 'src/metadata/fields.ts' } : {}),
});
const { fastParse } = fields ?? schema;

let files;
try {
  files = readdirSync(CORPUS, { recursive: true, encoding: 'utf8' }).filter((path) => path.endsWith('SKILL.md'));
} catch {
  console.log(`corpus not found at ${CORPUS}: nothing to measure`);
  process.exit(0);
}
const parsed = files.map((file) => ({ file, result: parse.parseFrontmatter(readFileSync(join(CORPUS, file), 'utf8'), { file }) }));

/** Each round's total milliseconds for `run` over every file. */
function timeRounds(run) {
  const times = [];
  for (let round = 0; round < rounds; round++) {
    const start = performance.now();
    for (const item of parsed) run(item);
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b);
}

const median = (sorted) => sorted[Math.floor(sorted.length / 2)];
const fast = parsed.filter(({ result }) => fastParse({ ...result.metadata }) !== undefined).length;
const validate = ({ file, result }) =>
  schema.validateMetadata(result, { file: join(CORPUS, file), folderName: basename(dirname(file)), strict: false });
const fastOnly = ({ result }) => fastParse({ ...result.metadata });
// Warm both paths up first: the first rounds measure the JIT.
timeRounds(validate);
timeRounds(fastOnly);
for (const [label, run] of [
  ['validateMetadata', validate],
  ['fastParse', fastOnly],
]) {
  const ms = median(timeRounds(run));
  const perFile = (ms * 1000) / parsed.length;
  console.log(`${label}: ${perFile.toFixed(2)} µs a file, ${Math.round(parsed.length / (ms / 1000))} files/s (median of ${rounds})`);
}
console.log(`${parsed.length} files, ${fast} on the fast path`);

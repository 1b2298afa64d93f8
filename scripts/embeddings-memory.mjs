/* global performance */
// What the `embeddings` option costs at 20,000 skills, for 384-, 768- and 1,536-dimension vectors:
// the memory the skill vectors hold (as the middleware keeps them: Float32 up to 768 dimensions,
// Int8 above), what Float32 would hold, the vectors block of a prebuilt index (characters, and
// decoding it), and one request's comparison with every skill (nearest, median of 15).
// Random unit vectors: memory and time do not depend on what the vectors say.
//
//   node --expose-gc scripts/embeddings-memory.mjs [skills]
import { loadavg } from 'node:os';
import { importSource } from './import-source.mjs';

const SKILLS = Number(process.argv[2] ?? 20_000);
const { vectors, meaning, file, unit, text } = await importSource({
  vectors: 'src/meaning/skill-vectors.ts',
  meaning: 'src/meaning/skill-meaning.ts',
  file: 'src/meaning/vector-file.ts',
  unit: 'src/meaning/vectors.ts',
  text: 'src/meaning/skill-text.ts',
});
const { SkillVectors } = vectors;
const { SkillMeaning } = meaning;
const { encodeVectors, decodeVectors } = file;
const { encodingFor, stored, unitVector } = unit;
const { contentKey, skillText } = text;

const gc = globalThis.gc ?? (() => undefined);
const heldBytes = () => {
  gc();
  gc();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
};
const mb = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;
let seed = 1;
const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1;
const skills = Array.from({ length: SKILLS }, (_, i) => ({ metadata: { name: `skill-${i}`, description: `Does task ${i} for a team.` } }));
const keys = skills.map((entry) => contentKey(skillText(entry)));
/** A store that never embeds: the vectors are seeded. */
const emptyStore = () =>
  new SkillVectors({ provider: { embed: async () => [] }, model: 'm', batchSize: 64, concurrency: 1, retries: 0, backoffMs: 0 });
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

console.log(
  `${SKILLS} skills; load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
console.log('dims  kept as   held (measured)  Float32 would be  index block  decode   nearest (one request)');
for (const dimensions of [384, 768, 1536]) {
  const encoding = encodingFor(dimensions);
  const before = heldBytes();
  const store = emptyStore();
  const vectors = keys.map((key) => [key, stored(unitVector(Array.from({ length: dimensions }, random)), encoding)]);
  store.seed({ model: 'm', dimensions, vectors });
  vectors.length = 0;
  const held = heldBytes() - before;
  // As `sisu-skills index --embeddings` writes them (src/meaning/prebuilt-vectors.ts): Int8.
  const block = encodeVectors('m', dimensions, 'int8', [...store.entries()]);
  const text = JSON.stringify(block);
  const startDecode = performance.now();
  const decoded = decodeVectors(JSON.parse(text));
  const seeded = emptyStore();
  seeded.seed(decoded.seed);
  const decodeMs = performance.now() - startDecode;
  const meaning = new SkillMeaning(skills, store);
  const query = unitVector(Array.from({ length: dimensions }, random));
  meaning.nearest(query, 10);
  const times = Array.from({ length: 15 }, () => {
    const start = performance.now();
    meaning.nearest(query, 10);
    return performance.now() - start;
  });
  console.log(
    `${String(dimensions).padStart(4)}  ${encoding.padEnd(8)}  ${mb(held).padStart(15)}  ${mb(SKILLS * dimensions * 4).padStart(16)}  ` +
      `${mb(text.length).padStart(11)}  ${decodeMs.toFixed(0).padStart(4)} ms  ${median(times).toFixed(1)} ms`,
  );
}

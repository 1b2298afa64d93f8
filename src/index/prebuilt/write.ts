/**
 * The index file's bytes (format 3) from the document `build.ts` made: the
 * header (what the build knew), then the sections (format.ts's SECTIONS),
 * each compressed by codec-container.ts, and any section another feature
 * hands in with the document (`sections`: issue 41's manifests). The CLI
 * writes them at once (a temporary file, then a rename) or puts them in a
 * bucket with one request. Not on the middleware's path.
 */
import { Buffer } from 'node:buffer';
import { asciiJson, ByteWriter } from './codec-bytes.js';
import { writeContainer } from './codec-container.js';
import { writeBody, writeRanker } from './codec-ranker.js';
import { writeSkills } from './codec-skills.js';
import { OWN_SECTIONS, PREBUILT_INDEX_VERSION, SECTIONS, type IndexHeader, type PrebuiltIndexDocument } from './format.js';

/**
 * zlib's level for the sections. Level 9 made the 21,110-skill library's
 * index 0.3% smaller than 6, in 1.6 times the time; 1 made it 40% larger.
 */
const COMPRESSION_LEVEL = 6;

export function serializePrebuiltIndex(document: PrebuiltIndexDocument): Uint8Array {
  const { packageVersion, createdAt, options, scannedDirectories, skills } = document;
  const header: IndexHeader = { packageVersion, createdAt, options, scannedDirectories, skillCount: skills.length };
  return writeContainer({
    version: PREBUILT_INDEX_VERSION,
    header: { ...header },
    sections: sectionsOf(document),
    level: COMPRESSION_LEVEL,
  });
}

/** The document's sections in the file's order, each made when the container asks for it (and compressed before the next). */
function* sectionsOf(document: PrebuiltIndexDocument): Generator<readonly [string, Uint8Array]> {
  const { skills, errors, warnings, ranker, vectors } = document;
  for (const [name] of document.sections ?? []) {
    if (OWN_SECTIONS.has(name)) throw new Error(`index section "${name}" is the index's own: give another feature's data another name`);
  }
  const skillBytes = new ByteWriter();
  writeSkills(skills, skillBytes);
  yield [SECTIONS.skills, skillBytes.result()];
  yield [SECTIONS.diagnostics, jsonBytes({ errors, warnings })];
  const { body, ...postings } = ranker;
  yield [SECTIONS.ranker, writeRanker(postings)];
  if (body) yield [SECTIONS.body, writeBody(body)];
  if (vectors !== undefined) yield [SECTIONS.vectors, jsonBytes(vectors)];
  yield* document.sections ?? [];
}

/** A JSON section's bytes: ASCII only, as the reader decodes them (codec-bytes.ts's asciiJson). */
function jsonBytes(value: unknown): Uint8Array {
  return Buffer.from(asciiJson(JSON.stringify(value)), 'latin1');
}

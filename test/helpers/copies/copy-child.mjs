/**
 * One process of local-copies-processes.test.ts: copies one skill version
 * into a shared copy root with the bundled LocalCopies, reading the
 * "objects" from a folder, and prints one JSON line ({ folder, reused }).
 * With `crashAfter`, it exits at once (no cleanup, as a killed process would)
 * when that many objects have been read: a copy cut short.
 * Run as `node copy-child.mjs <config.json>`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';

const config = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const { LocalCopies, planCopy } = await import(pathToFileURL(config.module).href);

let reads = 0;
const read = async (object) => {
  if (config.crashAfter !== undefined && reads >= config.crashAfter) process.exit(3);
  reads++;
  const relative = object.slice(config.source.length + 1);
  // A little wait per object, so processes started together overlap.
  await sleep(5);
  return { bytes: readFileSync(join(config.objects, relative)), etag: config.etag };
};
const copies = new LocalCopies({ read, root: config.root, maxBytes: 1 << 26, limits: { maxFileSize: 1 << 20, maxSkillSize: 1 << 22 } });
const listed = config.files.map((path) => ({
  path,
  object: `${config.source}/${path}`,
  size: readFileSync(join(config.objects, path)).length,
  etag: config.etag,
}));
const copy = await copies.copy(planCopy('deploy', config.source, listed, { maxFileSize: 1 << 20, maxSkillSize: 1 << 22 }));
console.log(JSON.stringify({ folder: copy.folder, reused: copy.reused, reads }));

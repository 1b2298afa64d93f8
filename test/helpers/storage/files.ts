/** What the storage test helpers share: names for new buckets and containers, and the files of a local tree. */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

let made = 0;

/** A name for a new bucket or container, from `label`, unique in this worker: lowercase letters, digits and single hyphens (S3 and Azure both take it). */
export function uniqueName(label: string): string {
  return `${label}-${process.pid}-${++made}`
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-')
    .replace(/-+/g, '-')
    .slice(0, 63);
}

/** Every file under `dir`, relative to it, joined with `/`. */
export async function filesUnder(dir: string, base = ''): Promise<string[]> {
  const entries = await readdir(join(dir, base), { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) => {
      const rel = base === '' ? entry.name : `${base}/${entry.name}`;
      return entry.isDirectory() ? filesUnder(dir, rel) : Promise.resolve(entry.isFile() ? [rel] : []);
    }),
  );
  return nested.flat();
}

/** A bucket or a container a test fills and empties, through `client` (straight to the server, no proxy). */
export interface TestPlace<Client> {
  name: string;
  client: Client;
  /** The server's own address. */
  endpoint: string;
  put(key: string, body: string | Uint8Array): Promise<void>;
  remove(key: string): Promise<void>;
  /** Upload every file under `dir` to `prefix` (keys joined with `/`). */
  upload(dir: string, prefix: string): Promise<number>;
}

/** `place` with `upload`, made from its `put`: the same for every engine. */
export function withUpload<Client>(place: Omit<TestPlace<Client>, 'upload'>): TestPlace<Client> {
  return {
    ...place,
    upload: async (dir, prefix) => {
      const files = await filesUnder(dir);
      await Promise.all(files.map(async (file) => place.put(prefix + file, await readFile(join(dir, file)))));
      return files.length;
    },
  };
}

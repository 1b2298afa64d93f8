/**
 * The skills of an index published to a bucket (`index: 's3://bucket/key'`):
 * the text the refresh loop holds, parsed on each load. A republished index
 * that cannot be used leaves the last good one serving, with its warning; an
 * index storage cannot deliver yet leaves the s3:// places out of this
 * request (the other sources answer) until the GET succeeds.
 */
import type { Diagnostic } from '../base/diagnostics.js';
import type { StoredOptions } from '../source/storage.js';
import { discover } from '../discover/discover.js';
import type { ResourceLimits } from '../discover/resources.js';
import { SkillsUsageError } from '../config/errors.js';
import { ObjectStores } from '../storage/engines.js';
import { containerOf, isObjectUrl, parseObjectUrl } from '../base/object-url.js';
import { isTransient } from '../storage/storage-error.js';
import type { IndexPoll } from '../source/index-poll.js';
import { INDEX_CONTENT_TYPE } from './prebuilt/format.js';
import { publishedIndexUnreadable } from './prebuilt/problems.js';
import type { PrebuiltDiscovery, PrebuiltIndexRead, PrebuiltReader } from './prebuilt/read.js';
import type { SkillsLoad } from './skills-load.js';

/** What loading an index gave: the skills, or why it cannot be used at all (the caller lists the places from then on). */
export type IndexLoad = { ok: true; load: SkillsLoad } | { ok: false; unusable: Diagnostic };

export function publishedIndexLoader(
  options: StoredOptions,
  url: string,
  poll: IndexPoll,
  limits: ResourceLimits,
  reader: PrebuiltReader,
): () => Promise<IndexLoad> {
  const store = options.store;
  // The last bytes that parsed, and their ETag: a damaged republish keeps serving them.
  let good: { bytes: Uint8Array; etag: string | undefined } | undefined;

  const parsed = (bytes: Uint8Array, etag: string | undefined): PrebuiltIndexRead => {
    const read = reader.parse(bytes, url, options);
    if (!read.ok) return read;
    good = { bytes, etag };
    // The skill folders are listed when first used (an activation); a new version forgets the old listings.
    store?.useSkillFolders(
      read.result.skills.flatMap((skill) => (isObjectUrl(skill.directory) ? [skill.directory] : [])),
      etag,
    );
    return read;
  };
  const published = (discovery: PrebuiltDiscovery): IndexLoad => ({
    ok: true,
    load: { from: 'published', read: 'frontmatter', discovery },
  });

  return async () => {
    const held = await poll.beforeIndex();
    if ('bytes' in held) {
      const read = parsed(held.bytes, held.etag);
      if (read.ok) return published(read.result);
      if (good === undefined) return { ok: false, unusable: read.diagnostic };
      const last = parsed(good.bytes, good.etag);
      return last.ok
        ? published({ ...last.result, warnings: [read.diagnostic, ...last.result.warnings] })
        : { ok: false, unusable: read.diagnostic };
    }
    if (held.problem && !isTransient(held.problem)) return { ok: false, unusable: publishedIndexUnreadable(url, held.problem) };
    // Storage does not answer yet: the other sources now, the index's skills when its GET succeeds.
    const local = options.directories.filter((directory) => !isObjectUrl(directory));
    const scanned = await discover({ ...options, directories: local }, { frontmatterOnly: true }, limits);
    const discovery = {
      ...scanned,
      scannedDirectories: [...options.directories],
      warnings: [poll.unavailable(), ...scanned.warnings],
    };
    return { ok: true, load: { from: 'scan', read: 'frontmatter', discovery } };
  };
}

/**
 * `-o s3://bucket/key` of `sisu-skills index`: the object to publish to
 * (throws SkillsConfigError when the URL names no object), or undefined for
 * a file on disk.
 */
export function publishTarget(output: string): string | undefined {
  if (!isObjectUrl(output.trim())) return undefined;
  const place = parseObjectUrl(output.trim());
  const fail = (problem: string): never => {
    throw new SkillsUsageError(
      `index: -o ${output} cannot be published to: ${problem}. Give the key, e.g. -o ${containerOf(output.trim()).example}skills.index.`,
    );
  };
  if ('problem' in place) return fail(place.problem);
  if (place.prefix === '' || output.trim().endsWith('/')) return fail('it names a folder, not an object');
  return place.root;
}

/**
 * Put the index at `url` with one write, with a client from the SDK's
 * environment (s3://: AWS_REGION, AWS_ENDPOINT_URL_S3, the credential chain;
 * az://: AZURE_STORAGE_CONNECTION_STRING). S3 and Azure replace an object
 * whole: a reader gets the old index or the new one.
 * The index is bytes (format 3); text is JSON (`sign` puts a manifest so).
 */
export async function publishIndex(url: string, body: string | Uint8Array): Promise<void> {
  const { store, container, key } = new ObjectStores().locate(url);
  await store.write(container, key, body, typeof body === 'string' ? 'application/json' : INDEX_CONTENT_TYPE);
}

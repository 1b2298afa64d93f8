/**
 * Why an index file cannot be used, as one INDEX_UNUSABLE diagnostic whose
 * message says how to fix it (scanning takes over until then), and the
 * INDEX_RANKER_OUTDATED warning for ranking data another version wrote.
 */
import { version as packageVersion } from '../../../package.json';
import { createDiagnostic, type Diagnostic } from '../../base/diagnostics.js';
import { errorCode, errorReason } from '../../base/fs.js';

export type PrebuiltIndexReason = 'missing' | 'unreadable' | 'wrong-format' | 'incompatible-version' | 'other-options' | 'malformed';

/** An index that cannot be used, and why. */
export interface UnusableIndex {
  ok: false;
  reason: PrebuiltIndexReason;
  /** For the operator: what is wrong and how to fix it. */
  message: string;
  /** The same, as the one warning to log (code INDEX_UNUSABLE). */
  diagnostic: Diagnostic;
}

export const REBUILD =
  'Rebuild it with `sisu-skills index <directory...> -o <file>` using the same directories, packages, include, exclude and strict as the middleware.';

/** The warning for a published index that cannot be read for a reason storage will not mend by itself (missing, access denied). */
export function publishedIndexUnreadable(url: string, error: unknown): Diagnostic {
  const missing = errorCode(error) === 'ENOENT';
  const fix = missing
    ? 'Publish it with `sisu-skills index <sources> -o ' + url + '`, or leave the `index` option out.'
    : 'Fix the access named, or leave the `index` option out.';
  return unusable(url, missing ? 'missing' : 'unreadable', missing ? 'does not exist' : `cannot be read (${errorReason(error)})`, fix)
    .diagnostic;
}

export function malformed(path: string, detail: string): UnusableIndex {
  return unusable(path, 'malformed', `is damaged: ${detail}`, REBUILD);
}

export function unusable(path: string, reason: PrebuiltIndexReason, what: string, fix: string): UnusableIndex {
  const message = `skills index ${path} ${what}. ${fix} Until then skills are found by scanning the directories.`;
  return { ok: false, reason, message, diagnostic: createDiagnostic('INDEX_UNUSABLE', path, message) };
}

/**
 * The warning for a term whose postings a first use found damaged (they are
 * decoded as ranking first asks for each term: read.ts): the index still
 * serves, and ranking leaves that word out, until it is rebuilt.
 */
export function damagedTerm(path: string, detail: string): Diagnostic {
  return createDiagnostic(
    'INDEX_UNUSABLE',
    path,
    `skills index ${path} is damaged: ${detail}. Ranking leaves that word out until the index is rebuilt. ${REBUILD}`,
  );
}

/**
 * The warning for an index whose ranking data another version wrote: the
 * index still serves, but ranking reads the skills' texts for each new word
 * on every start, as after a scan (what a prebuilt index spares a large
 * library), until it is rebuilt.
 */
export function rankerOutdated(path: string, scheme: string, ours: string): Diagnostic {
  return createDiagnostic(
    'INDEX_RANKER_OUTDATED',
    path,
    `The skills index holds ranking data of another version (scheme ${scheme}; ` +
      `this version ${packageVersion} ranks with ${JSON.stringify(ours)}): ` +
      `the index is used, but ranking reads the skills' texts for each new word on every start, as after a scan. ${REBUILD}`,
  );
}

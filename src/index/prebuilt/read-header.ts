/**
 * The checks of what an index's header and diagnostics say (read.ts's): the
 * options the index was built with, as against the middleware's, and
 * discovery's diagnostics, their files decoded. A file is not trusted: each
 * field is checked before it is used.
 */
import type { Diagnostic } from '../../base/diagnostics.js';
import type { DiscoveryShape } from './format.js';
import { isCount, isRecord, isStringList } from './json-checks.js';

/** Checks each diagnostic in `list` and decodes its file in place; false when one is not a diagnostic. */
export function decodeDiagnostics(list: unknown, severity: Diagnostic['severity'], decode: (path: string) => string): list is Diagnostic[] {
  if (!Array.isArray(list)) return false;
  for (const item of list) {
    if (!isRecord(item)) return false;
    const { code, file, line, column, message } = item;
    if (typeof code !== 'string' || item.severity !== severity || typeof file !== 'string' || typeof message !== 'string') return false;
    if (!isCount(line) || !isCount(column)) return false;
    item.file = decode(file);
  }
  return true;
}

export function decodeShape(value: unknown, decode: (path: string) => string): DiscoveryShape | undefined {
  if (!isRecord(value)) return undefined;
  const { directories, packages, include, exclude, strict } = value;
  if (
    !isStringList(directories) ||
    !isStringList(packages) ||
    !isStringList(include) ||
    !isStringList(exclude) ||
    typeof strict !== 'boolean'
  )
    return undefined;
  return { directories: directories.map(decode), packages, include, exclude, strict };
}

/** What differs between the options an index was built with and the middleware's, for the message; undefined when nothing does. */
export function shapeDifference(built: DiscoveryShape, wanted: DiscoveryShape): string | undefined {
  const list = (items: readonly string[]) => JSON.stringify(items);
  // Order is precedence (the first wins a name clash), so it must match too.
  if (list(built.directories) !== list(wanted.directories))
    return `directories ${list(built.directories)}, the middleware has ${list(wanted.directories)}`;
  if (list(built.packages) !== list(wanted.packages))
    return `packages ${list(built.packages)}, the middleware has ${list(wanted.packages)}`;
  for (const key of ['include', 'exclude'] as const) {
    // Pattern order changes nothing.
    const a = [...new Set(built[key])].sort();
    const b = [...new Set(wanted[key])].sort();
    if (list(a) !== list(b)) return `${key} ${list(a)}, the middleware has ${list(b)}`;
  }
  if (built.strict !== wanted.strict) return `strict ${built.strict}, the middleware has ${wanted.strict}`;
  return undefined;
}

/**
 * Discovery for the command line: the public discoverSkills, plus one rule of
 * its own. A folder named on the command line that cannot be read is an
 * error here; the middleware only warns, since its folders may appear later.
 */
import { isAbsolute, relative, sep } from 'node:path';
import { discoverSkills } from '../discover/discover.js';
import type { Diagnostic } from '../diagnostics.js';
import { formatDiagnostic } from '../diagnostics.js';
import type { Skill } from '../types.js';

export interface Loaded {
  skills: Skill[];
  /** Absolute paths of the folders read. */
  directories: string[];
  /** Every problem, errors and warnings, sorted by file and position. */
  diagnostics: Diagnostic[];
  errors: number;
  warnings: number;
}

const DIRECTORY_CODES = new Set(['DIRECTORY_NOT_FOUND', 'DIRECTORY_UNREADABLE']);

export async function load(directories: readonly string[], cwd: string, strict: boolean): Promise<Loaded> {
  const result = await discoverSkills({ directories, cwd, strict });
  const given = new Set(result.scannedDirectories);
  const promote = (d: Diagnostic): Diagnostic =>
    d.severity === 'warning' && DIRECTORY_CODES.has(d.code) && given.has(d.file) ? { ...d, severity: 'error' } : d;
  const diagnostics = [...result.errors, ...result.warnings].map(promote).sort(byPosition);
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  return { skills: result.skills, directories: result.scannedDirectories, diagnostics, errors, warnings: diagnostics.length - errors };
}

function byPosition(a: Diagnostic, b: Diagnostic): number {
  return (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) || a.line - b.line || a.column - b.column;
}

/** `path` relative to `cwd` when it is inside it, for shorter lines editors still open. */
export function displayPath(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  if (rel === '') return '.';
  const outside = rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel);
  return outside ? path : rel;
}

/** `file:line:column code message`, with the file shown relative to `cwd`. */
export function formatForCli(diagnostic: Diagnostic, cwd: string): string {
  return formatDiagnostic({ ...diagnostic, file: displayPath(diagnostic.file, cwd) });
}

/** "1 error", "2 warnings", "3 directories". */
export function count(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}

/**
 * Discovery for the command line: the public discoverSkills, plus one rule of
 * its own. A folder named on the command line that cannot be read is an
 * error here; the middleware only warns, since its folders may appear later.
 */
import { isAbsolute, relative, sep } from 'node:path';
import { discoverSkills } from '../discover/discover.js';
import type { Diagnostic } from '../diagnostics.js';
import type { Skill } from '../types.js';
import type { LoadArgs } from './args.js';

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

/** Discovery over the command's folders, with its --strict and filters; any other option at the middleware's default. */
export async function load(args: LoadArgs, cwd: string): Promise<Loaded> {
  const { directories, strict, include, exclude } = args;
  const result = await discoverSkills({ directories, cwd, strict, include, exclude });
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

/**
 * `file:line:column severity code message`, severity being `error` or
 * `warning`, with the file shown relative to `cwd`. formatDiagnostic's layout
 * (which the middleware's logs keep) plus the severity, so every line says
 * whether it fails a run.
 */
export function formatForCli(diagnostic: Diagnostic, cwd: string): string {
  const file = displayPath(diagnostic.file, cwd);
  const where = diagnostic.line > 0 ? `${file}:${diagnostic.line}:${diagnostic.column}` : file;
  return `${where} ${diagnostic.severity} ${diagnostic.code} ${diagnostic.message}`;
}

/** "1 error", "2 warnings", "3 directories". */
export function count(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}

/**
 * How every command writes: the streams it is given, its exit codes, and the
 * few text helpers its lines share. A leaf of the CLI: it imports no other
 * CLI module, so any of them may import it.
 */
import { isAbsolute, relative, sep } from 'node:path';
import type { Diagnostic } from '../base/diagnostics.js';
import { isObjectUrl } from '../base/object-url.js';

export interface CliIO {
  /** Write a line (a newline is added) to standard output. */
  out(line: string): void;
  /** Write a line (a newline is added) to standard error. */
  err(line: string): void;
  cwd: string;
  /** A progress line for a person watching (stderr on a terminal); absent in CI logs and tests, where nothing is shown. */
  progress?(line: string): void;
}

export const EXIT = { ok: 0, problems: 1, usage: 2 } as const;

/** `path` relative to `cwd` when it is inside it, for shorter lines editors still open. */
export function displayPath(path: string, cwd: string): string {
  // An object in storage is shown as its URL (s3://, az://).
  if (isObjectUrl(path)) return path;
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

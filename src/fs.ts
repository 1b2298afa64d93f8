/**
 * The filesystem edge. Everything that touches the disk goes through a
 * `SkillsFileSystem`, so tests can inject faults (memfs) and the rest of the
 * package stays pure.
 */
import * as fsp from 'node:fs/promises';

export interface DirEntry {
  name: string;
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}

export interface FileStats {
  size: number;
  mtimeMs: number;
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}

/** An open file, for reading part of it (a first block, a line range). */
export interface FileHandle {
  read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  close(): Promise<void>;
}

/** The subset of `node:fs/promises` the package uses. memfs's `fs.promises` fits it. */
export interface SkillsFileSystem {
  readdir(path: string, options: { withFileTypes: true }): Promise<DirEntry[]>;
  readFile(path: string, encoding: 'utf8'): Promise<string>;
  stat(path: string): Promise<FileStats>;
  lstat(path: string): Promise<FileStats>;
  realpath(path: string): Promise<string>;
  open(path: string, flags: 'r'): Promise<FileHandle>;
  /** Change events under `path`; ends when `signal` aborts. Optional: only the `watch` option needs it. */
  watch?(path: string, options: { recursive: boolean; signal: AbortSignal }): AsyncIterable<{ eventType: string; filename: string | null }>;
}

export const nodeFileSystem: SkillsFileSystem = {
  readdir: (path, options) => fsp.readdir(path, options),
  readFile: (path, encoding) => fsp.readFile(path, encoding),
  stat: (path) => fsp.stat(path),
  lstat: (path) => fsp.lstat(path),
  realpath: (path) => fsp.realpath(path),
  open: (path, flags) => fsp.open(path, flags),
  watch: (path, options) => fsp.watch(path, options),
};

/** The `code` of a Node system error (`ENOENT`, `EACCES`...), if it has one. */
export function errorCode(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error) {
    const code = (error as { code: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  }
  return undefined;
}

/** A short human reason for a filesystem error, never a stack. */
export function errorReason(error: unknown): string {
  const code = errorCode(error);
  if (code === 'ENOENT') return 'it does not exist';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'ENOTDIR') return 'it is not a directory';
  if (code === 'ELOOP') return 'too many levels of symbolic links';
  if (code === 'EISDIR') return 'it is a directory';
  if (code) return code;
  return error instanceof Error ? error.message : String(error);
}

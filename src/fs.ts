/**
 * The filesystem edge. Everything that touches the disk goes through a
 * `SkillsFileSystem`, so tests can inject faults (memfs) and the rest of the
 * package stays pure.
 */
import { close, constants, open, read } from 'node:fs';
import * as fsp from 'node:fs/promises';
import { Buffer } from 'node:buffer';

export interface DirEntry {
  name: string;
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}

export interface FileStats {
  size: number;
  mtimeMs: number;
  /** Which file this is (with `dev`), where the filesystem says; node's does. */
  ino?: number;
  dev?: number;
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}

/** An open file, for reading part of it (a first block, a line range). */
export interface FileHandle {
  read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  close(): Promise<void>;
  /** Stats of the open file itself (not of whatever its path names by now), where available. */
  stat?(): Promise<FileStats>;
}

/** The subset of `node:fs/promises` the package uses. memfs's `fs.promises` fits it. */
export interface SkillsFileSystem {
  readdir(path: string, options: { withFileTypes: true }): Promise<DirEntry[]>;
  readFile(path: string, encoding: 'utf8'): Promise<string>;
  stat(path: string): Promise<FileStats>;
  lstat(path: string): Promise<FileStats>;
  realpath(path: string): Promise<string>;
  open(path: string, flags: 'r'): Promise<FileHandle>;
  /**
   * The start of a file, read `firstChunk` bytes at a time (the buffer grows
   * as needed) until `end(bytes, length)` returns where to stop (-1: read on),
   * or to the end of the file; decoded as UTF-8. Optional: discovery falls back
   * to `open()` without it. Rejects as `readFile` would.
   */
  readUntil?(path: string, end: (bytes: Uint8Array, length: number) => number, firstChunk: number): Promise<string>;
  /** Change events under `path`; ends when `signal` aborts. Optional: only the `watch` option needs it. */
  watch?(path: string, options: { recursive: boolean; signal: AbortSignal }): AsyncIterable<{ eventType: string; filename: string | null }>;
}

export const nodeFileSystem: SkillsFileSystem = {
  readdir: (path, options) => fsp.readdir(path, options),
  readFile: (path, encoding) => fsp.readFile(path, encoding),
  stat: (path) => fsp.stat(path),
  lstat: (path) => fsp.lstat(path),
  realpath: (path) => fsp.realpath(path),
  // Non-blocking: a pipe swapped in after a check must not hang the read (no effect on regular files).
  open: (path) => fsp.open(path, constants.O_RDONLY | constants.O_NONBLOCK),
  readUntil: readUntilOnDisk,
  watch: (path, options) => fsp.watch(path, options),
};

/**
 * readUntil through node:fs callbacks and a plain descriptor: one promise per
 * file instead of a FileHandle and a promise per call. Profiled at 2,000
 * skills, FileHandle open/read/close took more of the main thread than the
 * parser. It settles once the file is closed, so no more files are open than
 * the caller's concurrency limit allows.
 */
function readUntilOnDisk(path: string, end: (bytes: Uint8Array, length: number) => number, firstChunk: number): Promise<string> {
  return new Promise((resolve, reject) => {
    open(path, 'r', (openError, fd) => {
      if (openError) {
        reject(openError);
        return;
      }
      // A failed close must not hide the text already read, nor turn into a rejection.
      const settle = (outcome: { text: string } | { error: Error }): void =>
        close(fd, () => ('text' in outcome ? resolve(outcome.text) : reject(outcome.error)));
      let bytes = Buffer.allocUnsafe(Math.max(1, firstChunk));
      let length = 0;
      const next = (): void => {
        if (length === bytes.length) {
          const grown = Buffer.allocUnsafe(bytes.length * 4);
          bytes.copy(grown, 0, 0, length);
          bytes = grown;
        }
        read(fd, bytes, length, bytes.length - length, length, (readError, bytesRead) => {
          if (readError) return settle({ error: readError });
          if (bytesRead === 0) return settle({ text: bytes.toString('utf8', 0, length) });
          length += bytesRead;
          const stop = end(bytes, length);
          if (stop >= 0) return settle({ text: bytes.toString('utf8', 0, stop) });
          next();
        });
      };
      next();
    });
  });
}

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

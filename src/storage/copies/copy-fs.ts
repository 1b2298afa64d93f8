/**
 * The disk as local copies see it: the few calls that make, fill, rename and
 * remove a copy's folders, and whether a process is still running. One seam,
 * so tests inject ENOSPC, EACCES or a crash between two calls without filling
 * a disk or killing a process.
 */
import { hostname } from 'node:os';
import * as fsp from 'node:fs/promises';

export interface CopyEntryStats {
  size: number;
  mtimeMs: number;
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}

export interface CopyFileSystem {
  /** Make one folder; rejects with EEXIST when it exists. With `parents`, make the missing folders above it too, and never reject for EEXIST. */
  mkdir(path: string, mode: number, parents?: boolean): Promise<void>;
  /** Write a new file (rejects with EEXIST when one is there): the bytes, then `mode`. */
  writeNew(path: string, bytes: Uint8Array, mode: number): Promise<void>;
  /** Rename in one step (a folder onto an empty one replaces it; onto a full one rejects). */
  rename(from: string, to: string): Promise<void>;
  /** Remove a folder and everything in it; nothing there is no error. */
  removeTree(path: string): Promise<void>;
  /** Remove one file; nothing there is no error. */
  removeFile(path: string): Promise<void>;
  /** Remove a folder if it is empty; resolves whether it was removed (a folder with something in it, or none, is no error). */
  removeEmpty(path: string): Promise<boolean>;
  /** The names in a folder. */
  list(path: string): Promise<string[]>;
  /** Without following a final symbolic link. */
  lstat(path: string): Promise<CopyEntryStats>;
  /** A file's bytes (`trust`: another process's copy is hashed before it is used). */
  read(path: string): Promise<Uint8Array>;
  /** Set a file's times to now (a lease's "still in use"). */
  touch(path: string): Promise<void>;
  /** Whether the process `pid` of this machine runs. */
  alive(pid: number): boolean;
  /** This machine's name: a lease of another machine is never judged by its process id. */
  readonly host: string;
}

/** The real disk. */
export const nodeCopyFileSystem: CopyFileSystem = {
  mkdir: async (path, mode, parents) => {
    await fsp.mkdir(path, { mode, recursive: parents === true });
  },
  writeNew: async (path, bytes, mode) => {
    // 0o600 while it is written: nothing runs or reads a half-written file through its mode.
    await fsp.writeFile(path, bytes, { flag: 'wx', mode: 0o600 });
    await fsp.chmod(path, mode);
  },
  rename: (from, to) => fsp.rename(from, to),
  removeTree: (path) => fsp.rm(path, { recursive: true, force: true, maxRetries: 2 }),
  removeFile: (path) => fsp.rm(path, { force: true }),
  removeEmpty: async (path) => {
    try {
      await fsp.rmdir(path);
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'ENOENT') return false;
      throw error;
    }
  },
  list: (path) => fsp.readdir(path),
  lstat: (path) => fsp.lstat(path),
  read: (path) => fsp.readFile(path),
  touch: async (path) => {
    const now = new Date();
    await fsp.utimes(path, now, now);
  },
  alive: (pid) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch (error) {
      // EPERM: it runs, as another user.
      return (error as NodeJS.ErrnoException).code === 'EPERM';
    }
  },
  host: hostname(),
};

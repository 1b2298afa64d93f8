/**
 * The filesystem edge. Everything that touches the disk goes through a
 * `SkillsFileSystem`, so tests can inject faults (memfs) and the rest of the
 * package stays pure.
 */
import { close, constants, fstat, open, read, watch, type Stats } from 'node:fs';
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
  /**
   * The whole file as UTF-8. `nodeFileSystem`'s opens without blocking and
   * reads regular files only: a pipe, socket or device rejects with code
   * NOT_A_FILE instead of hanging (a FIFO named SKILL.md must not stall discovery).
   */
  readFile(path: string, encoding: 'utf8'): Promise<string>;
  stat(path: string): Promise<FileStats>;
  lstat(path: string): Promise<FileStats>;
  realpath(path: string): Promise<string>;
  open(path: string, flags: 'r'): Promise<FileHandle>;
  /**
   * The start of a file, read `firstChunk` bytes at a time (the buffer grows
   * as needed) until `end(bytes, length)` returns where to stop (-1: read on),
   * or to the end of the file; decoded as UTF-8. Optional: discovery falls back
   * to `open()` without it. Rejects as `readFile` would. With `checkType`,
   * rejects with NOT_A_FILE unless the file opened is a regular file (one more
   * call: callers whose directory listing already said "regular file" leave it out).
   */
  readUntil?(
    path: string,
    end: (bytes: Uint8Array, length: number) => number,
    firstChunk: number,
    options?: ReadUntilOptions,
  ): Promise<string>;
  /** The target of a symbolic link, as stored. Optional: only used to explain a link that cannot be followed (ELOOP). */
  readlink?(path: string): Promise<string>;
  /** Change events under `path`; ends when `signal` aborts. Optional: only the `watch` option needs it. */
  watch?(path: string, options: { recursive: boolean; signal: AbortSignal }): AsyncIterable<{ eventType: string; filename: string | null }>;
  /**
   * The callback form of a watch on one folder, as node:fs `watch` gives it;
   * the watcher prefers it to `watch` when both are there. Lighter than the
   * async iterable (measured on node 20: 0.6 KB of heap per folder instead of
   * 2.7 KB, which an AbortController per folder mostly makes). Throws when the
   * folder cannot be watched at all; a watch that fails later calls `onError`
   * and must never throw or emit an unhandled error. Optional, like `watch`.
   */
  watchFolder?(
    path: string,
    onEvent: (eventType: string, filename: string | null) => void,
    onError: (error: unknown) => void,
  ): FolderWatchHandle;
}

/** A running folder watch, as `watchFolder` returns it. */
export interface FolderWatchHandle {
  close(): void;
}

export interface ReadUntilOptions {
  /** Check that the file opened is a regular file before reading it. */
  checkType?: boolean;
}

/** The `code` of the rejection for a pipe, socket or device: reading one could block or never end. */
export const NOT_A_FILE = 'NOT_A_FILE';
/**
 * No text file is read past this many bytes, whatever it claims: a device or
 * a pipe swapped in after the checks must not fill memory.
 */
export const MAX_TEXT_FILE_BYTES = 64 * 1024 * 1024;

// Non-blocking: opening a FIFO must not wait for a writer (no effect on regular files).
// O_NONBLOCK is undefined on Windows, where `| undefined` adds nothing.
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;

export const nodeFileSystem: SkillsFileSystem = {
  readdir: (path, options) => fsp.readdir(path, options),
  readFile: (path) => readRegularFile(path),
  stat: (path) => fsp.stat(path),
  lstat: (path) => fsp.lstat(path),
  realpath: (path) => fsp.realpath(path),
  // Non-blocking: a pipe swapped in after a check must not hang the read (no effect on regular files).
  open: (path) => fsp.open(path, OPEN_FLAGS),
  readUntil: readUntilOnDisk,
  readlink: (path) => fsp.readlink(path),
  watch: (path, options) => fsp.watch(path, options),
  watchFolder: watchFolderOnDisk,
};

/**
 * node:fs `watch` on one folder. The 'error' listener is what keeps the
 * process alive: an FSWatcher's error with no listener is thrown from the
 * event loop (a folder turned unreadable, a link loop), where no caller can
 * catch it.
 */
function watchFolderOnDisk(
  path: string,
  onEvent: (eventType: string, filename: string | null) => void,
  onError: (error: unknown) => void,
): FolderWatchHandle {
  const watcher = watch(path, (eventType, filename) => onEvent(eventType, filename));
  watcher.on('error', onError);
  return watcher;
}

function fileError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

function kindOf(stats: Stats): string {
  if (stats.isFIFO()) return 'a named pipe (FIFO)';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  if (stats.isDirectory()) return 'a directory';
  return 'not a regular file';
}

function notAFile(path: string, stats: Stats): Error {
  // A directory rejects as fsp.readFile's does.
  return fileError(stats.isDirectory() ? 'EISDIR' : NOT_A_FILE, `${path} is ${kindOf(stats)}, not a regular file`);
}

function tooLarge(path: string): Error {
  return fileError('EFBIG', `${path} is larger than ${MAX_TEXT_FILE_BYTES} bytes`);
}

/** Where a read loop stops (-1: read on); undefined: at the end of the file. */
type Stop = ((bytes: Uint8Array, length: number) => number) | undefined;

/** Reads up to `length` bytes into `buffer` at `offset` from file position `position`, then calls `done`. */
type ReadInto = (
  buffer: Buffer,
  offset: number,
  length: number,
  position: number,
  done: (error: unknown, bytesRead: number) => void,
) => void;

type Outcome = { text: string } | { error: unknown };

/**
 * The one read loop: reads the file at `path` through `readInto` into a buffer
 * that starts at `firstSize` bytes and grows fourfold (to `maxBytes` at most,
 * past which it fails with EFBIG) until `stop` says where to end or the file
 * ends; then calls `settle` once with the text decoded as UTF-8.
 */
function readGrowing(
  readInto: ReadInto,
  path: string,
  firstSize: number,
  maxBytes: number,
  stop: Stop,
  settle: (outcome: Outcome) => void,
): void {
  let bytes = Buffer.allocUnsafe(Math.max(1, firstSize));
  let length = 0;
  const next = (): void => {
    try {
      if (length === bytes.length) {
        if (length >= maxBytes) return settle({ error: tooLarge(path) });
        const grown = Buffer.allocUnsafe(Math.min(bytes.length * 4, maxBytes));
        bytes.copy(grown, 0, 0, length);
        bytes = grown;
      }
      readInto(bytes, length, bytes.length - length, length, (readError, bytesRead) => {
        if (readError) return settle({ error: readError });
        if (bytesRead === 0) return settle({ text: bytes.toString('utf8', 0, length) });
        length += bytesRead;
        const end = stop ? stop(bytes, length) : -1;
        if (end >= 0) return settle({ text: bytes.toString('utf8', 0, end) });
        next();
      });
    } catch (error) {
      // A buffer too large to allocate, or a read that throws: a rejection, never a hang.
      settle({ error });
    }
  };
  next();
}

/**
 * Reads from `fd` (see readGrowing), then closes it; settles only once it is
 * closed, so no more files are open than the caller's concurrency limit allows.
 */
function readOpen(
  fd: number,
  path: string,
  firstSize: number,
  stop: Stop,
  resolve: (text: string) => void,
  reject: (error: unknown) => void,
): void {
  const readInto: ReadInto = (buffer, offset, length, position, done) => read(fd, buffer, offset, length, position, done);
  // A failed close must not hide the text already read, nor turn into a rejection.
  readGrowing(readInto, path, firstSize, MAX_TEXT_FILE_BYTES, stop, (outcome) => close(fd, settleOnce({ outcome, resolve, reject })));
}

/**
 * A close callback that settles once, then lets go of the text and the
 * promise: node keeps the last fs callback until its next fs call, and a
 * closure over the text would keep the whole file (a prebuilt index: 23 MB
 * of heap at 20,000 skills) alive as long as the process makes no other call.
 */
function settleOnce(pending: { outcome?: Outcome; resolve?: (text: string) => void; reject?: (error: unknown) => void }): () => void {
  return () => {
    const { outcome, resolve, reject } = pending;
    pending.outcome = pending.resolve = pending.reject = undefined;
    if (outcome && 'text' in outcome) resolve?.(outcome.text);
    else reject?.(outcome?.error);
  };
}

/**
 * The start of an open file, read through its `FileHandle` until `stop` says
 * where to end or the file ends (see readGrowing), for filesystems without
 * `readUntil`. The caller closes the handle.
 */
export function readHandleUntil(
  handle: FileHandle,
  path: string,
  firstChunk: number,
  stop: (bytes: Uint8Array, length: number) => number,
): Promise<string> {
  const readInto: ReadInto = (buffer, offset, length, position, done) => {
    handle.read(buffer, offset, length, position).then(
      ({ bytesRead }) => done(null, bytesRead),
      (error: unknown) => done(error, 0),
    );
  };
  return new Promise((resolve, reject) => {
    // No size cap here, as before this loop was shared: the filesystem given decides what a read returns.
    readGrowing(readInto, path, firstChunk, Number.MAX_SAFE_INTEGER, stop, (outcome) =>
      'text' in outcome ? resolve(outcome.text) : reject(outcome.error),
    );
  });
}

/**
 * `readUntil` for a filesystem that has none (memfs in tests): through
 * `open` and the handle's reads. With `checkType`, the opened file must be a
 * regular file (NOT_A_FILE, EISDIR otherwise), where the handle can say.
 */
export async function readUntilThroughOpen(
  fs: SkillsFileSystem,
  path: string,
  end: (bytes: Uint8Array, length: number) => number,
  firstChunk: number,
  options: ReadUntilOptions = {},
): Promise<string> {
  const handle = await fs.open(path, 'r');
  try {
    const opened = options.checkType === true && handle.stat ? await handle.stat() : undefined;
    if (opened && !opened.isFile()) {
      throw fileError(opened.isDirectory() ? 'EISDIR' : NOT_A_FILE, `${path} is not a regular file`);
    }
    // End of file without a stop: the whole text, so the caller sees all there is.
    return await readHandleUntil(handle, path, firstChunk, end);
  } finally {
    // A failed close must not hide the text already read, nor turn into a rejection.
    await handle.close().catch(() => undefined);
  }
}

/**
 * The whole file's bytes through one handle (`open`, which every file system
 * has): its size from the handle, then reads until it is filled (a file that
 * shrank meanwhile reads short). Rejects a directory (EISDIR), anything but a
 * regular file (NOT_A_FILE), and a file over `maxBytes` (`what`: what the
 * bound is for, in the message). For bytes used as read: an index, a signed
 * manifest (no text decoded, then encoded again to check its signature).
 */
export async function readFileBytes(fs: SkillsFileSystem, path: string, maxBytes: number, what: string): Promise<Uint8Array> {
  const handle = await fs.open(path, 'r');
  try {
    const stats = handle.stat ? await handle.stat() : await fs.stat(path);
    if (stats.isDirectory()) throw fileError('EISDIR', `${path} is a directory`);
    if (!stats.isFile()) throw fileError(NOT_A_FILE, `${path} is not a regular file`);
    if (stats.size > maxBytes) throw new Error(`it is ${stats.size} bytes, past the ${maxBytes} ${what}`);
    const bytes = Buffer.allocUnsafe(stats.size);
    let filled = 0;
    while (filled < bytes.length) {
      const { bytesRead } = await handle.read(bytes, filled, bytes.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return bytes.subarray(0, filled);
  } finally {
    // A failed close must not hide the bytes already read, nor turn into a rejection.
    await handle.close().catch(() => undefined);
  }
}

/**
 * readFile for regular files only, through node:fs callbacks and a plain
 * descriptor (like `fsp.readFile`: open, fstat, read, close). The fstat that
 * sizes the buffer also refuses a pipe, socket or device.
 */
function readRegularFile(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    open(path, OPEN_FLAGS, (openError, fd) => {
      if (openError) return reject(openError);
      fstat(fd, (statError, stats) => {
        const problem =
          statError ?? (!stats.isFile() ? notAFile(path, stats) : stats.size > MAX_TEXT_FILE_BYTES ? tooLarge(path) : undefined);
        if (problem) return close(fd, () => reject(problem));
        // One byte of room past the size: the read that returns 0 needs no second buffer.
        readOpen(fd, path, stats.size + 1, undefined, resolve, reject);
      });
    });
  });
}

/**
 * readUntil through node:fs callbacks and a plain descriptor: one promise per
 * file instead of a FileHandle and a promise per call. Profiled at 2,000
 * skills, FileHandle open/read/close took more of the main thread than the
 * parser.
 */
function readUntilOnDisk(
  path: string,
  end: (bytes: Uint8Array, length: number) => number,
  firstChunk: number,
  options?: ReadUntilOptions,
): Promise<string> {
  return new Promise((resolve, reject) => {
    open(path, OPEN_FLAGS, (openError, fd) => {
      if (openError) return reject(openError);
      if (options?.checkType !== true) return readOpen(fd, path, firstChunk, end, resolve, reject);
      fstat(fd, (statError, stats) => {
        const problem = statError ?? (stats.isFile() ? undefined : notAFile(path, stats));
        if (problem) return close(fd, () => reject(problem));
        readOpen(fd, path, firstChunk, end, resolve, reject);
      });
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
  // Errors of the storage edge carry a reason that says what to fix (a bucket, a missing IAM permission).
  const own = typeof error === 'object' && error !== null && 'reason' in error ? (error as { reason: unknown }).reason : undefined;
  if (typeof own === 'string') return own;
  const code = errorCode(error);
  if (code === 'ENOENT') return 'it does not exist';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'ENOTDIR') return 'it is not a directory';
  if (code === 'ELOOP') return 'too many levels of symbolic links';
  if (code === 'EISDIR') return 'it is a directory';
  if (code === NOT_A_FILE) return 'it is not a regular file (a pipe, socket or device)';
  // Opening a socket, or a device with nothing behind it, fails this way.
  if (code === 'ENXIO') return 'it is not a regular file (a socket or device)';
  // Reading a pipe at a position (a FIFO swapped in after the listing) fails this way.
  if (code === 'ESPIPE') return 'it is not a regular file (a pipe)';
  if (code === 'EFBIG') return `it is larger than ${MAX_TEXT_FILE_BYTES / 1024 / 1024} MB`;
  if (code === 'ENAMETOOLONG') return 'its path is too long';
  if (code) return code;
  return error instanceof Error ? error.message : String(error);
}

/**
 * The copy root: the folder every version folder of this process lies in,
 * and what lets several processes share one. Its layout:
 *
 *   <root>/<skill>-<version>/           a whole version, never written again
 *   <root>/.partial-<owner>-<n>/        a version being written (never used)
 *   <root>/.trash-<owner>-<n>/          a version being removed
 *   <root>/.leases/<version>/<owner>    "this process uses <version>"
 *
 * `<owner>` is `<host>~<pid>~<random>`: one per middleware instance. A
 * version folder is removed only when no live lease of another owner names
 * it; a lease is live while its process runs (same machine) or for
 * LEASE_LIFETIME_MS after its last use (another machine sharing the folder).
 * Folders of owners that died (a crash mid-copy) are swept on first use.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { diskFailure, errnoOf } from './copy-error.js';
import type { CopyFileSystem } from './copy-fs.js';

/** How long a lease of another machine counts as live after its last use: a day. */
export const LEASE_LIFETIME_MS = 24 * 60 * 60 * 1000;
/** Prefix of the default root's name in the OS temp folder. */
export const DEFAULT_ROOT_PREFIX = 'sisu-skills-';

const LEASES = '.leases';
/** Times a lease is written before a lease folder that keeps vanishing is a disk fault. */
const LEASE_ATTEMPTS = 5;
const PARTIAL = '.partial-';
const TRASH = '.trash-';

/** A machine's name as it stands in an owner's name. */
function hostTag(host: string): string {
  return host.replace(/[^A-Za-z0-9.-]/gu, '_');
}

/** A folder name for this process and this instance: `<host>~<pid>~<random>`. */
function ownerName(host: string): string {
  return `${hostTag(host)}~${process.pid}~${randomBytes(4).toString('hex')}`;
}

interface Owner {
  host: string;
  pid: number;
}

function ownerOf(name: string): Owner | undefined {
  const match = /^(.*)~(\d+)~[0-9a-f]+$/u.exec(name);
  return match ? { host: match[1] as string, pid: Number(match[2]) } : undefined;
}

export class CopyRoot {
  /** The root's absolute path, known before it exists. */
  readonly path: string;
  /** Whether this process made the root (the default): `close()` then removes it whole. */
  readonly own: boolean;
  readonly owner: string;
  private ready: Promise<void> | undefined;
  private serial = 0;

  constructor(
    private readonly fs: CopyFileSystem,
    /** A configured root; undefined for a new folder of this process in the OS temp folder. */
    configured: string | undefined,
    private readonly now: () => number = Date.now,
  ) {
    this.owner = ownerName(fs.host);
    this.own = configured === undefined;
    this.path = configured ?? join(tmpdir(), `${DEFAULT_ROOT_PREFIX}${process.pid}-${randomBytes(6).toString('hex')}`);
  }

  /** Made (mode 700) and swept once; a failure is tried again on the next call. */
  prepare(): Promise<void> {
    this.ready ??= this.make().catch((error: unknown) => {
      this.ready = undefined;
      throw diskFailure(error, this.path, undefined, 'making the copy root');
    });
    return this.ready;
  }

  private async make(): Promise<void> {
    // Our own root's name is random: a folder already there is one localRoots() made.
    await this.fs.mkdir(this.path, 0o700, true);
    const stats = await this.fs.lstat(this.path);
    // A configured root may be a link to a folder; our own is a real one.
    if (!stats.isDirectory() && (this.own || !stats.isSymbolicLink())) {
      throw Object.assign(new Error(`${this.path} is not a folder`), { code: 'ENOTDIR' });
    }
    await this.fs.mkdir(join(this.path, LEASES), 0o700, true);
    if (!this.own) await this.sweep();
  }

  /**
   * Made now, synchronously, when missing (mode 700): for an app that hands
   * the root to a tool which needs it to exist (SISU's terminal tool resolves
   * every root it is given on each command). Throws as `prepare` rejects.
   */
  makeNow(): void {
    try {
      mkdirSync(this.path, { recursive: true, mode: 0o700 });
    } catch (error) {
      throw diskFailure(error, this.path, undefined, 'making the copy root');
    }
  }

  /** A new folder name for a version being written or removed. */
  scratch(kind: 'partial' | 'trash'): string {
    return join(this.path, `${kind === 'partial' ? PARTIAL : TRASH}${this.owner}-${++this.serial}`);
  }

  folder(version: string): string {
    return join(this.path, version);
  }

  private leaseFolder(version: string): string {
    return join(this.path, LEASES, version);
  }

  /**
   * Says this owner uses `version` (before it is looked for, so a remover
   * sees it). Another owner's `remove` takes the lease folder away whenever
   * it is empty, so between making it and writing the lease it may go: it is
   * made again, a few times at most.
   */
  async lease(version: string): Promise<void> {
    const folder = this.leaseFolder(version);
    const file = join(folder, this.owner);
    for (let attempt = 1; ; attempt++) {
      await this.fs.mkdir(folder, 0o700, true);
      try {
        await this.fs.writeNew(file, new Uint8Array(0), 0o600);
        return;
      } catch (error) {
        const errno = errnoOf(error);
        if (errno === 'EEXIST') return this.fs.touch(file);
        if (errno !== 'ENOENT' || attempt === LEASE_ATTEMPTS) throw error;
      }
    }
  }

  async release(version: string): Promise<void> {
    await this.fs.removeFile(join(this.leaseFolder(version), this.owner));
  }

  /** Whether an owner other than this one, still running, leases `version`. Leases of dead owners are removed on the way. */
  async othersUse(version: string): Promise<boolean> {
    let names: string[];
    try {
      names = await this.fs.list(this.leaseFolder(version));
    } catch (error) {
      if (errnoOf(error) === 'ENOENT') return false;
      throw error;
    }
    let used = false;
    for (const name of names) {
      if (name === this.owner) continue;
      const file = join(this.leaseFolder(version), name);
      if (await this.isLive(name, file)) used = true;
      else await this.fs.removeFile(file);
    }
    return used;
  }

  /** Whether the owner `name` of `path` (its lease or scratch folder) may still use it. */
  private async isLive(name: string, path: string): Promise<boolean> {
    const owner = ownerOf(name);
    if (!owner) return false;
    if (owner.host === hostTag(this.fs.host)) return this.fs.alive(owner.pid);
    try {
      return this.now() - (await this.fs.lstat(path)).mtimeMs < LEASE_LIFETIME_MS;
    } catch {
      return false;
    }
  }

  /**
   * Remove `version` unless another owner uses it: moved aside in one rename
   * (a reader sees the whole folder or none), then deleted. A lease taken
   * meanwhile puts it back. Resolves whether it was removed.
   */
  async remove(version: string): Promise<boolean> {
    await this.release(version);
    if (await this.othersUse(version)) return false;
    const trash = this.scratch('trash');
    let moved = true;
    try {
      await this.fs.rename(this.folder(version), trash);
    } catch (error) {
      if (errnoOf(error) !== 'ENOENT') throw error;
      moved = false;
    }
    if (moved && (await this.othersUse(version))) {
      await this.putBack(trash, version);
      return false;
    }
    if (moved) await this.fs.removeTree(trash);
    // Only when empty: a lease written meanwhile is another owner's, and stays.
    await this.fs.removeEmpty(this.leaseFolder(version));
    return true;
  }

  /** A version taken between the check and the rename goes back where it was, unless a new copy of it is there already. */
  private async putBack(trash: string, version: string): Promise<void> {
    try {
      await this.fs.rename(trash, this.folder(version));
    } catch (error) {
      const errno = errnoOf(error);
      if (errno !== 'ENOTEMPTY' && errno !== 'EEXIST') throw error;
      await this.fs.removeTree(trash);
    }
  }

  /** Folders of owners that no longer run: partial and trash folders, version folders no live lease names. */
  private async sweep(): Promise<void> {
    for (const name of await this.fs.list(this.path)) {
      const scratch = name.startsWith(PARTIAL) ? PARTIAL : name.startsWith(TRASH) ? TRASH : undefined;
      if (scratch !== undefined) {
        const path = join(this.path, name);
        if (!(await this.isLive(name.slice(scratch.length).replace(/-\d+$/u, ''), path))) await this.fs.removeTree(path);
      } else if (!name.startsWith('.') && !(await this.othersUse(name))) {
        await this.remove(name);
      }
    }
  }

  /** Remove the whole root (this process's own): every folder in it is this process's. */
  async removeAll(): Promise<void> {
    await this.fs.removeTree(this.path);
  }
}

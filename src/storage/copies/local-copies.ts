/**
 * Local copies of bucket skills, so their scripts can run: each skill folder
 * in storage (`s3://`, `az://`) gets a version folder on the local disk, made
 * when the skill is activated and found again, with no request, while the
 * skill is unchanged. A skill points to one version; a version no skill
 * points to any more is removed (an edited skill's old one, a removed
 * skill's), the least recently used go first once the copies pass
 * `maxBytes`, and `close()` removes every one of this instance's (and the
 * root itself when it made it). Several instances and processes may share a
 * root (copy-root.ts says how).
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { CopyCodes, CopyError, diskFailure, errnoOf } from './copy-error.js';
import type { UntrustedFile } from '../../base/skill-folder.js';
import { nodeCopyFileSystem, type CopyFileSystem } from './copy-fs.js';
import type { CopyLimits, CopyPlan, SkippedFile } from './copy-plan.js';
import { CopyRoot } from './copy-root.js';
import { writeVersion, type ReadObject } from './copy-write.js';

export interface LocalCopiesSettings {
  /** Reads one object whole (the storage edge, or a cache in front of it). */
  read: ReadObject;
  /** The copy root; undefined: a new folder of this process in the OS temp folder (mode 700). */
  root?: string | undefined;
  /** Most bytes of copies this instance keeps; past it, the least recently used versions are removed. */
  maxBytes: number;
  limits: CopyLimits;
  fs?: CopyFileSystem;
  now?: () => number;
}

/** A skill's local folder, as `copy` gives it. */
export interface LocalCopy {
  /** The version folder: what `${CLAUDE_SKILL_DIR}` and the use_skill answer name. */
  folder: string;
  /** Its name under the root. */
  version: string;
  /** Files of the skill not copied, with why (the resource listing says so). */
  skipped: SkippedFile[];
  /** `trust`, report mode: files copied that are not as signed. */
  untrusted: UntrustedFile[];
  /** Whether the version was on disk already (no object was read). */
  reused: boolean;
}

interface Version {
  bytes: number;
  skipped: SkippedFile[];
  untrusted: UntrustedFile[];
}

export class LocalCopies {
  readonly root: CopyRoot;
  private readonly fs: CopyFileSystem;
  /** The versions this instance holds a lease on, least recently used first. */
  private readonly versions = new Map<string, Version>();
  /** Which version each skill folder points to. */
  private readonly pointers = new Map<string, string>();
  private readonly inFlight = new Map<string, Promise<LocalCopy>>();
  private closed = false;

  constructor(private readonly settings: LocalCopiesSettings) {
    this.fs = settings.fs ?? nodeCopyFileSystem;
    this.root = new CopyRoot(this.fs, settings.root, settings.now);
  }

  /** What one skill's copy may hold. */
  get limits(): CopyLimits {
    return this.settings.limits;
  }

  /** Bytes of the versions this instance holds. */
  get bytes(): number {
    let total = 0;
    for (const version of this.versions.values()) total += version.bytes;
    return total;
  }

  /** The version `source` points to, if any. */
  pointedBy(source: string): string | undefined {
    return this.pointers.get(source);
  }

  /**
   * The local folder of the skill `plan` describes: the version made before,
   * else one copied now. `plan.source` then points to it, and the version it
   * pointed to before is removed. Rejects with a CopyError.
   */
  copy(plan: CopyPlan, signal?: AbortSignal): Promise<LocalCopy> {
    if (this.closed) return Promise.reject(new CopyError(CopyCodes.closed, plan.skill, 'the middleware was closed'));
    let pending = this.inFlight.get(plan.name);
    if (!pending) {
      pending = this.place(plan, signal).finally(() => this.inFlight.delete(plan.name));
      this.inFlight.set(plan.name, pending);
    }
    return pending.then(async (copy) => {
      await this.point(plan.source, copy.version);
      await this.evict(copy.version);
      return copy;
    });
  }

  private async place(plan: CopyPlan, signal: AbortSignal | undefined): Promise<LocalCopy> {
    await this.root.prepare().catch((error: unknown) => {
      // The root's failure, said for the skill whose copy it stopped.
      throw error instanceof CopyError && error.skill === undefined
        ? new CopyError(error.code, plan.skill, error.reason, { cause: error.cause })
        : error;
    });
    const found = await this.reuse(plan);
    if (found) return found;
    const written = await writeVersion({
      root: this.root,
      fs: this.fs,
      plan,
      read: this.settings.read,
      limits: this.settings.limits,
      signal,
    });
    // Objects newer than their listing make another version than the one looked for: only that one stays leased.
    if (written.name !== plan.name) await this.root.release(plan.name);
    const version = { bytes: written.bytes, skipped: written.skipped, untrusted: written.untrusted };
    this.remember(written.name, version);
    return {
      folder: this.root.folder(written.name),
      version: written.name,
      skipped: written.skipped,
      untrusted: written.untrusted,
      reused: false,
    };
  }

  /** The version of `plan` when it is on disk, whole (this instance's, or another's checked file by file); undefined to copy it. */
  private async reuse(plan: CopyPlan): Promise<LocalCopy | undefined> {
    const folder = this.root.folder(plan.name);
    const known = this.versions.get(plan.name);
    try {
      await this.root.lease(plan.name);
      if (!(await this.isFolder(folder))) {
        this.versions.delete(plan.name);
        return undefined;
      }
      if (!known && !(await this.isWhole(folder, plan))) {
        // Damaged (another process's, cut short by a power loss): put aside if nobody else holds it, and copied again.
        if (await this.root.remove(plan.name)) return undefined;
        throw new CopyError(CopyCodes.writeFailed, plan.skill, `${folder} does not hold the files its name says; remove it`);
      }
    } catch (error) {
      throw diskFailure(error, this.root.path, plan.skill, 'looking for an earlier copy');
    }
    const version = known ?? { bytes: plan.bytes, skipped: plan.skipped, untrusted: [] };
    this.remember(plan.name, version);
    return { folder, version: plan.name, skipped: version.skipped, untrusted: version.untrusted, reused: true };
  }

  private async isFolder(path: string): Promise<boolean> {
    try {
      return (await this.fs.lstat(path)).isDirectory();
    } catch (error) {
      if (errnoOf(error) === 'ENOENT') return false;
      throw error;
    }
  }

  /**
   * Whether every file `plan` copies is in `folder` with its listed size, and
   * (`trust`) with the bytes its signed hash names: another process's copy is
   * used only once this process has hashed it.
   */
  private async isWhole(folder: string, plan: CopyPlan): Promise<boolean> {
    for (const file of plan.files) {
      const path = join(folder, ...file.path.split('/'));
      try {
        const stats = await this.fs.lstat(path);
        if (!stats.isFile() || stats.size !== file.size) return false;
        if (
          file.sha256 !== undefined &&
          createHash('sha256')
            .update(await this.fs.read(path))
            .digest('hex') !== file.sha256
        )
          return false;
      } catch (error) {
        if (errnoOf(error) === 'ENOENT') return false;
        throw error;
      }
    }
    return true;
  }

  /** Most recently used last. */
  private remember(name: string, version: Version): void {
    this.versions.delete(name);
    this.versions.set(name, version);
  }

  private async point(source: string, name: string): Promise<void> {
    const before = this.pointers.get(source);
    this.pointers.set(source, name);
    if (before !== undefined && before !== name) await this.dropIfUnused(before);
  }

  private async dropIfUnused(name: string): Promise<void> {
    for (const pointed of this.pointers.values()) if (pointed === name) return;
    if (!this.versions.delete(name)) return;
    await this.root.remove(name);
  }

  /** Removes the least recently used versions, never `keep`, while the copies pass maxBytes. */
  private async evict(keep: string): Promise<void> {
    for (const [name] of this.versions) {
      if (this.bytes <= this.settings.maxBytes) return;
      if (name === keep) continue;
      for (const [source, pointed] of this.pointers) if (pointed === name) this.pointers.delete(source);
      this.versions.delete(name);
      await this.root.remove(name);
    }
  }

  /** The skill folder `source` is gone (the skill was removed): its version goes. */
  async forget(source: string): Promise<void> {
    const name = this.pointers.get(source);
    if (name === undefined) return;
    this.pointers.delete(source);
    await this.dropIfUnused(name);
  }

  /** After a rebuild: every skill folder not in `sources` is gone. */
  async keepOnly(sources: ReadonlySet<string>): Promise<void> {
    for (const source of [...this.pointers.keys()]) if (!sources.has(source)) await this.forget(source);
  }

  /**
   * Removes this instance's versions (those no other process uses) and, when
   * this process made the root, the root. Every removal is tried; the first
   * failure rejects after them. Safe to call more than once.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled(this.inFlight.values());
    const failures: unknown[] = [];
    const names = [...this.versions.keys()];
    this.versions.clear();
    this.pointers.clear();
    // A root of this process's own holds nothing of anyone else's: removed whole.
    if (this.root.own) await this.root.removeAll().catch((error: unknown) => failures.push(error));
    else for (const name of names) await this.root.remove(name).catch((error: unknown) => failures.push(error));
    if (failures.length > 0) throw diskFailure(failures[0], this.root.path, undefined, 'removing the copies at close');
  }
}

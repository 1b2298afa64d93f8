/**
 * Each skill's folder on this machine, for its scripts to run from: a skill
 * on the disk (a folder, a package) is its own folder; a skill in a bucket
 * gets a local copy (storage/copies/), made when it is activated and found
 * again, with no request, while it is unchanged. Also the folders an app
 * hands to its terminal tool (`localRoots`), known before any request.
 */
import { realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Skill } from '../base/model.js';
import type { SkillFolder } from '../base/skill-folder.js';
import { SKILL_FILE } from '../base/skill-file.js';
import { nodeModulesFolders } from '../config/packages.js';
import type { BucketFileSystem } from '../storage/bucket-fs.js';
import { planCopy, type CopyVerification, type ListedFile } from '../storage/copies/copy-plan.js';
import { LocalCopies } from '../storage/copies/local-copies.js';
import { isObjectUrl } from '../base/object-url.js';
import type { StoredOptions } from './storage.js';

const NOTHING_LEFT_OUT: ReadonlyMap<string, string> = new Map();

/**
 * How `trust` holds local copies: its mode, and the SHA-256 the signed
 * manifest gives each file of the skill in `directory`, by path in the skill
 * (empty when no manifest vouches for it). In enforce mode a copy then
 * writes only bytes that hash to them.
 */
export interface CopyTrust {
  mode: CopyVerification;
  signedFiles(directory: string): ReadonlyMap<string, string>;
}

export class SkillFolders {
  /** Undefined without a bucket source, or with `localCopies: false`. */
  readonly copies: LocalCopies | undefined;
  private readonly buckets: BucketFileSystem | undefined;

  constructor(
    private readonly options: StoredOptions,
    private readonly trust?: CopyTrust,
  ) {
    this.buckets = options.store?.fs;
    const { localCopies } = options;
    const buckets = this.buckets;
    this.copies =
      buckets && localCopies
        ? new LocalCopies({
            read: (object) => buckets.readObject(object),
            root: localCopies.root,
            maxBytes: localCopies.maxBytes,
            limits: { maxFileSize: options.maxFileSize, maxSkillSize: options.maxSkillSize },
          })
        : undefined;
  }

  /**
   * The folder `skill`'s scripts run from. A bucket skill's local copy is
   * made now when it is missing; rejects with the CopyError that says why it
   * could not be. Without copies, a bucket skill's folder is its URL.
   */
  async folderOf(skill: Skill, signal?: AbortSignal): Promise<SkillFolder> {
    if (!isObjectUrl(skill.directory) || !this.copies || !this.buckets)
      return { path: skill.directory, notCopied: NOTHING_LEFT_OUT, untrusted: [] };
    const signed = this.trust?.signedFiles(skill.directory);
    const objects = [skill.path, ...skill.resources.map((resource) => resource.absolutePath)];
    const listed = await Promise.all(objects.map((object) => this.listed(skill, object, signed)));
    const plan = planCopy(skill.metadata.name, skill.directory, listed, this.copies.limits, this.trust?.mode);
    const copy = await this.copies.copy(plan, signal);
    const unsigned = copy.skipped.filter((skipped) => skipped.reason === 'unsigned').map(({ path }) => ({ path }));
    return {
      path: copy.folder,
      notCopied: new Map(copy.skipped.map((skipped) => [skipped.path, skipped.detail])),
      untrusted: [...copy.untrusted, ...unsigned],
    };
  }

  /** `object` of `skill` as its listing gives it, with the hash its signed manifest gives, if any. */
  private async listed(skill: Skill, object: string, signed: ReadonlyMap<string, string> | undefined): Promise<ListedFile> {
    const info = await (this.buckets as BucketFileSystem).objectInfo(object);
    const path = object === skill.path ? SKILL_FILE : object.slice(skill.directory.length + 1);
    const sha256 = signed?.get(path);
    return { path, object, size: info.size, etag: info.etag, ...(sha256 === undefined ? {} : { sha256 }) };
  }

  /**
   * Every folder a skill may run from: the configured folders, the folders of
   * the configured packages (as Node resolves them now), and the copy root,
   * made now if missing (a terminal tool resolves its roots on every command).
   */
  localRoots(): string[] {
    const roots = this.options.directories.filter((directory) => !isObjectUrl(directory));
    for (const name of this.options.packages) {
      const found = installedPackage(name, this.options.cwd);
      if (found !== undefined) roots.push(found);
    }
    if (this.copies) {
      this.copies.root.makeNow();
      roots.push(this.copies.root.path);
    }
    return [...new Set(roots)];
  }

  /** After a rebuild: the bucket skills in `directories` are the ones that exist; the copies of the rest go. */
  async keepOnly(directories: Iterable<string>): Promise<void> {
    await this.copies?.keepOnly(new Set([...directories].filter(isObjectUrl)));
  }

  close(): Promise<void> {
    return this.copies?.close() ?? Promise.resolve();
  }
}

/** The real folder of the package `name` as Node finds it from `cwd` now, if it is installed. */
function installedPackage(name: string, cwd: string): string | undefined {
  for (const folder of nodeModulesFolders(cwd)) {
    const candidate = join(folder, name);
    try {
      if (statSync(candidate).isDirectory()) return realpathSync(candidate);
    } catch {
      // Not here (or not readable): Node would look in the next folder up too.
    }
  }
  return undefined;
}

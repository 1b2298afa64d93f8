/**
 * The stored skills as lazy discovery gives them (metadata, folder, SKILL.md
 * path; level 2 read at activation) with their stamps, from the `skills`
 * section (codec-skills.ts). Every skill is checked: its metadata names it
 * and describes it, its folder decodes to a path inside the configured
 * folders (checked once per parent folder: a few hundred at 20,000 skills),
 * its own folder name is a plain name. Throws DamagedIndexError otherwise.
 */
import { sep } from 'node:path';
import { SKILL_FILE } from '../../base/skill-file.js';
import { FolderSet } from '../../base/paths.js';
import type { SkillEntry, SkillMetadata } from '../../base/model.js';
import { DamagedIndexError } from './codec-bytes.js';
import { restoreSpecials } from './codec-numbers.js';
import { SKILL_SUFFIX } from './codec-paths.js';
import type { SkillTable } from './codec-skills.js';
import type { DiscoveryShape } from './format.js';
import { StampTable } from './stamps.js';

/**
 * The folders an index's skills lie under: the configured directories, and with packages configured the
 * package roots the build resolved (after the directories, in `scanned`: its scannedDirectories).
 */
export function skillRoots(options: Pick<DiscoveryShape, 'directories' | 'packages'>, scanned: readonly string[]): readonly string[] {
  return options.packages.length > 0 ? [...options.directories, ...scanned] : options.directories;
}

/** A character `String.prototype.trim` keeps (it strips exactly what `\s` matches). */
const NOT_BLANK = /\S/;

/**
 * Whether `text` holds a character trim() keeps: at once when it starts with
 * a printable ASCII one other than the space (nearly every name and
 * description), else by NOT_BLANK: a regular expression run 40,000 times
 * was some 3 ms of a first request at 20,000 skills.
 */
function notBlank(text: string): boolean {
  const first = text.charCodeAt(0);
  return (first > 0x20 && first < 0x7f) || NOT_BLANK.test(text);
}

export function decodeSkills(
  table: SkillTable,
  decode: (stored: string) => string,
  roots: readonly string[],
): { skills: SkillEntry[]; stamps: StampTable } {
  const folders = new Folders(table, decode, new FolderSet(roots));
  const skills: SkillEntry[] = new Array<SkillEntry>(table.count);
  const { sizes, mtimes } = table;
  for (let i = 0; i < table.count; i++) {
    const metadata = metadataOf(table, i);
    const size = sizes[i] as number;
    if (!Number.isInteger(size) || size < 0 || !Number.isFinite(mtimes[i])) throw damaged(i, 'its SKILL.md size or mtime is not a number');
    const folder = folders.of(i, metadata.name);
    const file = table.file(i);
    // `folder + SKILL_SUFFIX` shares the folder's characters (see createLazySkillIndex's `compact`).
    const path = file !== undefined ? fileIn(folder, decode(file), i) : folder.endsWith(sep) ? folder + SKILL_FILE : folder + SKILL_SUFFIX;
    skills[i] = { metadata, path, directory: folder };
  }
  return { skills, stamps: new StampTable(skills, sizes, mtimes) };
}

function metadataOf(table: SkillTable, i: number): SkillMetadata {
  const metadata = table.metadata[i];
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) throw damaged(i, 'its metadata is not an object');
  const { name, description } = metadata;
  // A test, not trim(): a description ending in a newline (any block scalar) would be copied by trim, 20,000 times.
  if (typeof name !== 'string' || !notBlank(name)) throw damaged(i, 'its metadata has no name');
  if (typeof description !== 'string' || !notBlank(description)) throw damaged(i, 'its metadata has no description');
  const specials = table.specials(i);
  if (specials !== undefined && !restoreSpecials(metadata, specials)) throw damaged(i, 'its special numbers do not match its metadata');
  return metadata as SkillMetadata;
}

/** A SKILL.md named otherwise (`path`), which must lie in its skill's folder: activation reads it. */
function fileIn(folder: string, path: string, i: number): string {
  const inside = folder.endsWith(sep) ? folder : folder + sep;
  if (
    !path.startsWith(inside) ||
    path
      .slice(inside.length)
      .split(sep)
      .some((part) => part === '..' || part === '.' || part === '')
  ) {
    throw damaged(i, 'its SKILL.md lies outside its folder');
  }
  return path;
}

/** A parent folder decoded: its path ending in a separator (what its skills' folders start with), and whether it lies inside a configured folder. */
interface Parent {
  prefix: string;
  inside: boolean;
}

/** Skill folders decoded from their parents, each parent decoded and checked against the configured folders once. */
class Folders {
  private readonly parents: Array<Parent | undefined>;

  constructor(
    private readonly table: SkillTable,
    private readonly decode: (stored: string) => string,
    private readonly inside: FolderSet,
  ) {
    this.parents = new Array<Parent | undefined>(table.parents.length);
  }

  of(i: number, name: string): string {
    const parent = this.table.parent(i);
    const stored = this.table.leaf(i);
    let folder: string;
    let inside: boolean;
    if (parent === 0) {
      folder = this.decode(stored);
      inside = this.inside.holds(folder);
    } else {
      if (parent > this.parents.length) throw damaged(i, 'names a parent folder the index does not hold');
      const leaf = stored === '' ? name : stored;
      // Anything but a plain folder name could step out of its parent.
      if (leaf === '.' || leaf === '..' || leaf.includes('/') || leaf.includes(sep)) throw damaged(i, 'its folder name is not a name');
      const known = this.parentOf(parent);
      // The parent's separator was added once, with its prefix. Joined flat: a concatenation (a string of two
      // pieces) is flattened by a later read and then kept twice, some 0.45 MB more heap at 20,000 skills.
      folder = [known.prefix, leaf].join('');
      // A folder inside a configured one holds only folders inside it; the folder itself may be one (a root that is a skill).
      inside = known.inside || this.inside.holds(folder);
    }
    // An entry outside every configured directory was not written by discovery: never follow it.
    if (!inside) throw new DamagedIndexError(`skill ${i + 1} (${JSON.stringify(name)}) lies outside the configured directories`);
    return folder;
  }

  private parentOf(id: number): Parent {
    let known = this.parents[id - 1];
    if (!known) {
      const path = this.decode(this.table.parents[id - 1] as string);
      known = { prefix: path.endsWith(sep) ? path : path + sep, inside: this.inside.holds(path) };
      this.parents[id - 1] = known;
    }
    return known;
  }
}

function damaged(i: number, what: string): DamagedIndexError {
  return new DamagedIndexError(`skill ${i + 1}: ${what}`);
}

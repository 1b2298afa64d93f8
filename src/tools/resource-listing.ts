/**
 * The "Resources" block of a use_skill answer: which of a skill's files are
 * named, in what order, and how the rest are counted. Pure.
 */
import { DEFAULTS } from '../config/defaults.js';
import { formatBytes } from '../base/text.js';
import type { ResourceType, SkillResource } from '../base/model.js';

export interface ListingOptions {
  /** Most files named; the rest are counted by folder. Default DEFAULTS.maxListedResources. */
  max?: number;
  /** The read tool's name, when it is registered; the header then says how to open a file. */
  readTool?: string;
}

/** Which files are named first when not all fit: text the model can read, then assets. */
const TYPE_PRIORITY: Record<ResourceType, number> = { reference: 0, script: 1, template: 2, other: 3, asset: 4 };

function topFolder(path: string): string {
  const slash = path.indexOf('/');
  return slash === -1 ? '(top level)' : `${path.slice(0, slash)}/`;
}

/**
 * The "Resources" block of a use_skill answer: at most `max` files (relative
 * POSIX paths, type, size, and "too large to read" where it applies), in path
 * order, then one line counting the rest by top-level folder. `notCopied`:
 * the files a bucket skill's local copy left out, by path, with why. Pure.
 */
export function renderResourceListing(
  resources: readonly SkillResource[],
  options: ListingOptions = {},
  notCopied: ReadonlyMap<string, string> = new Map(),
): string {
  if (resources.length === 0) return 'This skill has no bundled resources.';
  const max = Math.max(0, options.max ?? DEFAULTS.maxListedResources);
  const ranked = resources.map((resource, order) => ({ resource, order }));
  ranked.sort((a, b) => TYPE_PRIORITY[a.resource.type] - TYPE_PRIORITY[b.resource.type] || a.order - b.order);
  const shown = ranked.slice(0, max).sort((a, b) => a.order - b.order);
  const hidden = ranked.slice(max);

  const how = options.readTool
    ? `open one with ${options.readTool} only when the instructions call for it`
    : 'open one only when the instructions call for it';
  const lines = [`Resources (paths relative to the skill directory; ${how}):`];
  for (const { resource } of shown) {
    const tooLarge = resource.tooLarge ? ', too large to read' : '';
    const left = notCopied.get(resource.path);
    lines.push(`- ${resource.path} (${resource.type}, ${formatBytes(resource.size)}${tooLarge}${left === undefined ? '' : `; ${left}`})`);
  }
  if (hidden.length > 0) {
    const byFolder = new Map<string, number>();
    for (const { resource } of hidden) {
      const folder = topFolder(resource.path);
      byFolder.set(folder, (byFolder.get(folder) ?? 0) + 1);
    }
    const counts = [...byFolder].map(([folder, count]) => `${folder} ${count}`).join(', ');
    lines.push(
      `- ... and ${hidden.length} more file${hidden.length === 1 ? '' : 's'} not listed here (${counts}); ask for one by path if the instructions name it.`,
    );
  }
  return lines.join('\n');
}

/**
 * What a folder's listing means for the tree, worked out without touching
 * it: which sub-folders are new, which links must be resolved, and which
 * names are still there. The walk then applies it.
 */
import type { DirEntry } from '../base/fs.js';
import { isSkippedName } from '../base/skill-file.js';
import type { Folder } from './tree.js';

export interface ListingPlan {
  /** Real sub-folders the folder does not hold as such yet (new, or a link replaced by a folder). */
  folders: string[];
  /** Links to resolve: those not held yet, and known ones the visit was asked to look at. */
  links: string[];
  /** Every sub-folder or link in the listing; whatever the folder holds under another name is gone. */
  present: Set<string>;
}

/** `pending`: what the visit was asked to look at (a link seen before is resolved again only when an event named it). */
export function planListing(folder: Folder, entries: readonly DirEntry[], pending: Set<string> | 'all'): ListingPlan {
  const plan: ListingPlan = { folders: [], links: [], present: new Set() };
  for (const entry of entries) {
    const name = entry.name;
    if (isSkippedName(name)) continue;
    if (entry.isDirectory()) {
      plan.present.add(name);
      if (folder.entry(name)?.link !== false) plan.folders.push(name);
    } else if (entry.isSymbolicLink()) {
      plan.present.add(name);
      if (folder.entry(name) === undefined || pending === 'all' || pending.has(name)) plan.links.push(name);
    }
  }
  return plan;
}

/** Names the folder holds that the listing no longer has. */
export function goneEntries(folder: Folder, plan: ListingPlan): string[] {
  return folder.entryNames().filter((name) => !plan.present.has(name));
}

/**
 * A place's listing: every object under its prefix, from the engine's listing
 * pages, as a tree of folders (object stores have none: a key's `/`s make them). It is
 * what readdir, stat and the resources' sizes are answered from, with no
 * request per file.
 */
import type { ObjectInfo, ObjectStore } from './object-store.js';
import type { BucketPlace } from '../base/object-url.js';

export interface Listing {
  place: BucketPlace;
  /** Each object by its path (`s3://bucket/key`, `az://container/key`). */
  files: Map<string, ObjectInfo>;
  /** Each folder's path (the place's root included) and the names in it, with whether each is a folder. */
  folders: Map<string, Map<string, 'file' | 'folder'>>;
  /** When the listing ended, ms since the epoch. */
  listedAt: number;
  /** Listing pages it took. */
  pages: number;
}

/** Every object under `place`, page after page (`pageSize` keys each: tests make it small). Rejects with a StorageError. */
export async function listPlace(store: ObjectStore, place: BucketPlace, signal?: AbortSignal, pageSize?: number): Promise<Listing> {
  const objects: ObjectInfo[] = [];
  let token: string | undefined;
  let pages = 0;
  do {
    const page = await store.listPage(place.bucket, place.prefix, { token, signal, pageSize });
    pages++;
    for (const object of page.objects) objects.push(object);
    token = page.next;
  } while (token !== undefined);
  return { ...treeOf(place, objects), place, listedAt: Date.now(), pages };
}

/** The files and folders of a list of objects. Keys that end with `/` (folder markers some consoles make) and empty segments are left out. */
export function treeOf(place: BucketPlace, objects: readonly ObjectInfo[]): Pick<Listing, 'files' | 'folders'> {
  const files = new Map<string, ObjectInfo>();
  const folders = new Map<string, Map<string, 'file' | 'folder'>>([[place.root, new Map()]]);
  for (const object of objects) {
    const segments = object.key.split('/');
    if (segments.some((segment) => segment === '')) continue;
    let folder = place.root;
    segments.forEach((name, i) => {
      const last = i === segments.length - 1;
      const path = `${folder}/${name}`;
      const entries = folders.get(folder) as Map<string, 'file' | 'folder'>;
      // A key that is also a folder's name (a/b and a/b/c): the folder wins, as a disk cannot hold both.
      if (last && entries.get(name) !== 'folder') {
        entries.set(name, 'file');
        files.set(path, object);
      } else if (!last) {
        if (entries.get(name) === 'file') files.delete(path);
        entries.set(name, 'folder');
        if (!folders.has(path)) folders.set(path, new Map());
      }
      folder = path;
    });
  }
  return { files, folders };
}

/** Whether two listings hold the same objects with the same ETags (a refresh with nothing to do). */
export function sameObjects(a: Listing, b: Listing): boolean {
  if (a.files.size !== b.files.size) return false;
  for (const [path, object] of a.files) {
    const other = b.files.get(path);
    if (!other || other.etag !== object.etag || other.size !== object.size) return false;
  }
  return true;
}

/**
 * The configured bucket places and what is known of each: its last good
 * listing, the listing in flight, the last failure. The bucket filesystem
 * answers from these listings; whoever refreshes (source/listing-poll.ts)
 * calls `list`.
 */
import { BucketFileSystem } from './bucket-fs.js';
import { listPlace, sameObjects, type Listing } from './bucket-listing.js';
import { PublishedObject } from './published-object.js';
import { ObjectStores, type StorageConnections } from './engines.js';
import type { BucketPlace } from '../base/object-url.js';
import { StorageError } from './storage-error.js';

export interface PlaceState {
  place: BucketPlace;
  listing?: Listing;
  inFlight?: Promise<boolean>;
  /** The last listing's failure, cleared by a listing that works. */
  problem?: StorageError;
}

export class BucketStore {
  /** Each engine's store, made on first use. */
  readonly stores: ObjectStores;
  readonly fs: BucketFileSystem;
  readonly places: PlaceState[];
  /** Set when a read found an object newer than its listing: the next check comes sooner. */
  stale = false;
  /** Who is told when `stale` is set: each poller of the places, from its construction to its close. */
  private readonly staleListeners = new Set<() => void>();
  /** The published index (`index: 's3://...'`), when there is one. */
  readonly index: PublishedObject | undefined;
  /**
   * With a published index no place is listed whole: the skill folders it
   * names are each listed on first use (an activation), by root.
   */
  private skillFolders: ReadonlySet<string> = new Set();
  private readonly folderListings = new Map<string, Listing>();
  private readonly folderInFlight = new Map<string, Promise<Listing>>();
  /** The index version the skill folders came from: a new one forgets their listings. */
  private foldersOf: string | undefined;

  /** `indexUrl`: the published index's `s3://bucket/key` or `az://container/key`, if any. */
  constructor(places: readonly BucketPlace[], connections: StorageConnections, indexUrl?: string) {
    // Longest root first: a path belongs to the most specific place that holds it.
    this.places = [...places].sort((a, b) => b.root.length - a.root.length).map((place) => ({ place }));
    // The SDK is imported on the first request, never at construction; a failed import is tried again next time.
    this.stores = new ObjectStores(connections);
    this.index = indexUrl === undefined ? undefined : new PublishedObject(this.stores, indexUrl);
    this.fs = new BucketFileSystem({
      stores: this.stores,
      listingOf: (path) => this.listingOf(path),
      listOnDemand: (path) => this.listSkillFolder(path),
      onStale: () => {
        this.stale = true;
        for (const listener of [...this.staleListeners]) listener();
      },
    });
  }

  /** Call `listener` whenever a read finds an object newer than its listing, until the function returned is called. */
  onStaleRead(listener: () => void): () => void {
    this.staleListeners.add(listener);
    return () => this.staleListeners.delete(listener);
  }

  /** The place holding `path` (`s3://bucket/key`), if any. */
  stateOf(path: string): PlaceState | undefined {
    return this.places.find(({ place }) => path === place.root || path.startsWith(`${place.root}/`));
  }

  /** The listing that covers `path`: its place's, else its skill folder's (published index). */
  listingOf(path: string): Listing | undefined {
    const listing = this.stateOf(path)?.listing;
    if (listing || this.folderListings.size === 0) return listing;
    for (let folder = path; folder.includes('/', 5); folder = folder.slice(0, folder.lastIndexOf('/'))) {
      const found = this.folderListings.get(folder);
      if (found) return found;
    }
    return undefined;
  }

  /**
   * The skill folders of the index version `version` (its ETag): listed on
   * first use. A new version forgets the listings of the last one, so an
   * activation after a republish sees the objects as they are now.
   */
  useSkillFolders(folders: Iterable<string>, version: string | undefined): void {
    if (version !== undefined && version === this.foldersOf) return;
    this.foldersOf = version;
    this.skillFolders = new Set(folders);
    this.folderListings.clear();
    this.fs.cache.prune((path, etag) => this.listingOf(path)?.files.get(path)?.etag === etag);
  }

  /** The listing of the skill folder that holds `path` (one listing under it, shared while in flight), if a skill folder does. */
  private async listSkillFolder(path: string): Promise<Listing | undefined> {
    let root: string | undefined;
    for (let folder = path; folder.includes('/', 5); folder = folder.slice(0, folder.lastIndexOf('/'))) {
      if (this.skillFolders.has(folder)) root = folder;
    }
    if (root === undefined) return undefined;
    const { store, container, key } = this.stores.locate(root);
    const place: BucketPlace = { bucket: container, prefix: `${key}/`, root };
    let listing = this.folderInFlight.get(root);
    if (!listing) {
      const skillFolders = this.skillFolders;
      listing = listPlace(store, place).finally(() => this.folderInFlight.delete(root));
      this.folderInFlight.set(root, listing);
      // Kept only while the index that named the folder is the current one.
      void listing.then(
        (done) => skillFolders === this.skillFolders && this.folderListings.set(root, done),
        () => undefined,
      );
    }
    return listing;
  }

  /** The state of the place whose root is `root`. */
  byRoot(root: string): PlaceState | undefined {
    return this.places.find(({ place }) => place.root === root);
  }

  /**
   * List `state`'s place again (sharing a listing in flight). Resolves true
   * when what it holds changed (the first listing always does); rejects with
   * the StorageError, keeping the last good listing.
   */
  list(state: PlaceState, signal?: AbortSignal): Promise<boolean> {
    state.inFlight ??= listPlace(this.stores.locate(state.place.root).store, state.place, signal).then(
      (listing) => {
        state.inFlight = undefined;
        state.problem = undefined;
        const changed = !state.listing || !sameObjects(state.listing, listing);
        state.listing = listing;
        if (changed) this.fs.cache.prune((path, etag) => this.listingOf(path)?.files.get(path)?.etag === etag);
        return changed;
      },
      (error: unknown) => {
        state.inFlight = undefined;
        state.problem = error instanceof StorageError ? error : new StorageError('STORAGE_UNAVAILABLE', String(error), { cause: error });
        throw state.problem;
      },
    );
    return state.inFlight;
  }
}

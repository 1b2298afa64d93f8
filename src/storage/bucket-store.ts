/**
 * The configured bucket places and what is known of each: its last good
 * listing, the listing in flight, the last failure. The bucket filesystem
 * answers from these listings; whoever refreshes (source/bucket-source.ts)
 * calls `list`.
 */
import { BucketFileSystem } from './bucket-fs.js';
import { listPlace, sameObjects, type Listing } from './bucket-listing.js';
import { BucketClient, makeClient, type S3ClientLike, type S3Option } from './s3-client.js';
import type { BucketPlace } from './s3-url.js';
import { StorageError } from './storage-error.js';

export interface PlaceState {
  place: BucketPlace;
  listing?: Listing;
  inFlight?: Promise<boolean>;
  /** The last listing's failure, cleared by a listing that works. */
  problem?: StorageError;
}

export class BucketStore {
  readonly client: BucketClient;
  readonly fs: BucketFileSystem;
  readonly places: PlaceState[];
  /** Set when a read found an object newer than its listing: the next check comes sooner. */
  stale = false;
  /** Told when `stale` is set (the refresh loop schedules a check). */
  onStale: () => void = () => undefined;

  constructor(places: readonly BucketPlace[], s3: S3Option | undefined) {
    // Longest root first: a path belongs to the most specific place that holds it.
    this.places = [...places].sort((a, b) => b.root.length - a.root.length).map((place) => ({ place }));
    let made: Promise<S3ClientLike> | undefined;
    // The SDK is imported on the first request, never at construction; a failed import is tried again next time.
    this.client = new BucketClient(() => {
      made ??= makeClient(s3).catch((error: unknown) => {
        made = undefined;
        throw error;
      });
      return made;
    });
    this.fs = new BucketFileSystem({
      client: this.client,
      listingOf: (path) => this.stateOf(path)?.listing,
      onStale: () => {
        this.stale = true;
        this.onStale();
      },
    });
  }

  /** The place holding `path` (`s3://bucket/key`), if any. */
  stateOf(path: string): PlaceState | undefined {
    return this.places.find(({ place }) => path === place.root || path.startsWith(`${place.root}/`));
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
    state.inFlight ??= listPlace(this.client, state.place, signal).then(
      (listing) => {
        state.inFlight = undefined;
        state.problem = undefined;
        const changed = !state.listing || !sameObjects(state.listing, listing);
        state.listing = listing;
        if (changed) this.fs.cache.prune((path, etag) => this.stateOf(path)?.listing?.files.get(path)?.etag === etag);
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

/**
 * The s3:// sources kept fresh, one poller per mode: the places' listings
 * (listing-poll.ts) or, with an index published to a bucket, one conditional
 * GET of it (index-poll.ts). The published index's poller runs while the
 * index can be used; the listings' from then on (`useListings`). Both report
 * to the feed they were made with, and a read that found an object newer
 * than its listing makes the running one check again soon.
 */
import type { HostLogger } from '../base/host.js';
import type { BucketStore } from '../storage/bucket-store.js';
import type { ChangeSource } from './changes.js';
import { IndexPoll } from './index-poll.js';
import { ListingPoll } from './listing-poll.js';
import type { PollSettings } from './poll.js';

export class BucketSource implements ChangeSource {
  readonly listings: ListingPoll;
  /** The published index's poller; undefined without one. */
  readonly index: IndexPoll | undefined;
  private usingIndex: boolean;
  private started = false;
  private readonly stopStaleReads: () => void;

  constructor(store: BucketStore, settings: PollSettings) {
    this.listings = new ListingPoll(store, settings);
    this.index = store.index && new IndexPoll(store, store.index, settings);
    this.usingIndex = this.index !== undefined;
    this.stopStaleReads = store.onStaleRead(() => this.running().recheckSoon());
  }

  /** Start the running poller's checks (each `refresh` ms). */
  start(): void {
    this.started = true;
    this.running().start();
  }

  /** From now on the listings are checked (the published index cannot be used); the discovery that follows lists them first. */
  useListings(): void {
    if (!this.usingIndex) return;
    this.usingIndex = false;
    // The index's last check may still land; it changes nothing once the listings run.
    void this.index?.close();
    if (this.started) this.listings.start();
  }

  report(log: HostLogger): void {
    this.index?.report(log);
    this.listings.report(log);
  }

  /** Stops both pollers; resolves once a check in flight has ended (nothing reaches storage after it). */
  async close(): Promise<void> {
    this.stopStaleReads();
    await Promise.all([this.index?.close(), this.listings.close()]);
  }

  private running(): ListingPoll | IndexPoll {
    return (this.usingIndex && this.index) || this.listings;
  }
}

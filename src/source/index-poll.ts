/**
 * An index published to a bucket (`index: 's3://...'`) kept fresh: nothing
 * is listed; the first request waits at most `storageWait` for one GET of
 * the index, and each check is one conditional GET of it (304 while it is
 * unchanged), with the retries and outage notes of poll.ts.
 */
import { createDiagnostic, type Diagnostic } from '../base/diagnostics.js';
import type { BucketStore } from '../storage/bucket-store.js';
import type { PublishedObject } from '../storage/published-object.js';
import type { StorageError } from '../storage/storage-error.js';
import { asStorageError, PollLoop, Poller, waitAtMost, type PollSettings } from './poll.js';

export class IndexPoll extends Poller {
  /** Why the index could not be read last time, cleared by a read that works. */
  private problem: StorageError | undefined;

  constructor(
    store: BucketStore,
    private readonly index: PublishedObject,
    private readonly settings: PollSettings,
  ) {
    super(new PollLoop(store, settings, async (read) => [await read(index.url, index.bytes !== undefined, () => index.fetch())]));
  }

  /**
   * Before a request that starts from the published index: one GET of it when
   * none has answered yet, waited for at most `storageWait` (a GET that ends
   * later rebuilds the index). The bytes and ETag held, or why there are none.
   */
  async beforeIndex(): Promise<{ bytes: Uint8Array; etag: string | undefined } | { problem: StorageError | undefined }> {
    const { index } = this;
    if (index.bytes === undefined) {
      const waited = { over: false };
      const attempt = index.fetch().then(
        () => {
          this.problem = undefined;
          if (waited.over) this.loop.changed();
        },
        (error: unknown) => {
          this.problem = asStorageError(error);
          this.loop.retry();
        },
      );
      await waitAtMost([attempt], this.settings.storageWait);
      waited.over = true;
    }
    return index.bytes === undefined ? { problem: this.problem } : { bytes: index.bytes, etag: index.etag };
  }

  /** The warning for the s3:// places a request goes without while the published index cannot be read. */
  unavailable(): Diagnostic {
    const why = this.problem ? this.problem.reason : `no answer within storageWait (${this.settings.storageWait} ms)`;
    return createDiagnostic(
      'STORAGE_UNAVAILABLE',
      this.index.url,
      `the skills in buckets are left out for now: the published index cannot be read (${why}). ` +
        'Requests answer with the other sources; the index is read again with backoff and its skills come without a restart.',
    );
  }
}

/**
 * The s3:// places kept fresh by their listings: the first listing, waited
 * for at most `storageWait` (a request never waits longer on storage); a
 * check every `refresh` ms, whose listing re-reads only the SKILL.md objects
 * whose ETag changed (the bucket filesystem keeps the rest); retries with
 * backoff while a place cannot be listed (poll.ts). An outage keeps the last
 * good listing and is logged once; so is the recovery.
 */
import { createDiagnostic, type Diagnostic } from '../base/diagnostics.js';
import type { BucketStore, PlaceState } from '../storage/bucket-store.js';
import { StorageCodes } from '../storage/storage-error.js';
import { PollLoop, Poller, waitAtMost, type PollSettings } from './poll.js';

export class ListingPoll extends Poller {
  constructor(
    private readonly store: BucketStore,
    private readonly settings: PollSettings,
  ) {
    super(
      new PollLoop(store, settings, (read) =>
        Promise.all(store.places.map((state) => read(state.place.root, state.listing !== undefined, () => store.list(state)))),
      ),
    );
  }

  /**
   * Before a discovery: list the places never listed, waiting at most
   * `storageWait`. Returns the roots to leave out of this discovery, each
   * with the warning that says why; a listing that ends later rebuilds the index.
   */
  async beforeDiscovery(): Promise<{ leaveOut: Set<string>; diagnostics: Diagnostic[] }> {
    const unlisted = this.store.places.filter((state) => !state.listing);
    if (unlisted.length > 0) {
      const waited = { over: false };
      const attempts = unlisted.map((state) =>
        this.store.list(state).then(
          () => {
            if (waited.over) this.loop.changed();
          },
          () => this.loop.retry(),
        ),
      );
      await waitAtMost(attempts, this.settings.storageWait);
      waited.over = true;
    }
    const missing = this.store.places.filter((state) => !state.listing);
    if (missing.length > 0) this.loop.retry();
    return { leaveOut: new Set(missing.map((state) => state.place.root)), diagnostics: missing.map((state) => this.unlisted(state)) };
  }

  /** Tell the owner that the places changed (a discovery ended after a request stopped waiting for it). */
  changed(): void {
    this.loop.changed();
  }

  /** The warning for each listed place a request answered without, because reading its SKILL.md objects took longer than `storageWait`. */
  slowReads(): Diagnostic[] {
    const note = `reading the SKILL.md objects took longer than storageWait (${this.settings.storageWait} ms)`;
    return this.store.places
      .filter((state) => state.listing)
      .map((state) => leftOut(state.place.root, note, 'its skills come once they are read, without a restart'));
  }

  /** Longest a request waits on storage, in ms. */
  get storageWait(): number {
    return this.settings.storageWait;
  }

  /** The warning for a place this discovery goes without. */
  private unlisted(state: PlaceState): Diagnostic {
    const { root } = state.place;
    const problem = state.problem;
    if (problem && (problem.code === 'EACCES' || problem.code === StorageCodes.noBucket)) {
      // Named by the place's root, as the place is named everywhere else (the CLI reads it as about a source it was given).
      return createDiagnostic(
        'STORAGE_ACCESS',
        root,
        `cannot list the skills here: ${problem.reason}. Fix it; the place is listed again every check.`,
      );
    }
    return leftOut(root, problem ? problem.reason : `no listing within storageWait (${this.settings.storageWait} ms)`);
  }
}

/** The warning for a place left out of a request because storage is slow or down (`why`). */
function leftOut(
  root: string,
  why: string,
  then = 'the listing is retried with backoff and its skills come without a restart',
): Diagnostic {
  return createDiagnostic(
    'STORAGE_UNAVAILABLE',
    root,
    `skills here are left out for now: ${why}. Requests answer with the other sources; ${then}.`,
  );
}

/**
 * Keeping the s3:// places fresh: the first listing, waited for at most
 * `storageWait` (a request never waits longer on storage); a check every
 * `refresh` ms, whose listing re-reads only the SKILL.md objects whose ETag
 * changed (the bucket filesystem keeps the rest); retries with backoff and
 * jitter while a place cannot be listed. An outage keeps the last good
 * listing and is logged once; so is the recovery.
 *
 * With a published index (`index: 's3://...'`) nothing is listed: the first
 * request waits at most `storageWait` for one GET of the index, and each
 * check is one conditional GET of it (304 while it is unchanged).
 */
import { createDiagnostic, type Diagnostic } from '../base/diagnostics.js';
import type { HostLogger } from '../base/host.js';
import type { DiscoveryResult, SkillEntry } from '../base/model.js';
import type { BucketStore, PlaceState } from '../storage/bucket-store.js';
import { StorageCodes, StorageError } from '../storage/storage-error.js';

/** First retry after a failed listing, in ms; doubled each failure (with ±20% jitter) up to `refresh` or MAX_BACKOFF_MS. */
export const FIRST_BACKOFF_MS = 1_000;
export const MAX_BACKOFF_MS = 60_000;
/** An object read newer than its listing: list again this soon, in ms. */
const STALE_RECHECK_MS = 1_000;

interface Note {
  level: 'warn' | 'info';
  message: string;
  fields: Record<string, unknown>;
}

export interface BucketRefreshSettings {
  refresh: number;
  storageWait: number;
  /** Called when a listing changed what the places hold: the index is rebuilt on the next request. */
  onChange: () => void;
  /** Clock for the jitter, for tests. */
  random?: () => number;
}

/**
 * `Found`: what a discovery through it gives (`withinWait` shares the first
 * one between the discoveries that wait for it).
 */
export class BucketRefresh<Found extends { warnings: Diagnostic[] } = DiscoveryResult<SkillEntry>> {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private failures = 0;
  private closed = false;
  private checking: Promise<void> | undefined;
  private readonly notes: Note[] = [];
  /** Places in an outage already warned about. */
  private readonly down = new Set<string>();
  /** Checks read the published index, until `useListings` (an index that cannot be used). */
  private published: boolean;
  /** The first discovery that reads the bucket places' SKILL.md objects: in flight, or done. */
  private firstRead: Promise<Found> | 'done' | undefined;
  /** Whether a request stopped waiting for it (its end then rebuilds the index). */
  private lateRead = false;
  /** Why the published index could not be read last time, cleared by a read that works. */
  private indexProblem: StorageError | undefined;

  constructor(
    private readonly store: BucketStore,
    private readonly settings: BucketRefreshSettings,
  ) {
    store.onStale = () => this.schedule(STALE_RECHECK_MS);
    this.published = store.index !== undefined;
  }

  /** From now on checks list the places (the published index cannot be used); the discovery that follows lists them first. */
  useListings(): void {
    this.published = false;
  }

  /**
   * Before a request that starts from the published index: one GET of it when
   * none has answered yet, waited for at most `storageWait` (a GET that ends
   * later rebuilds the index). The text and ETag held, or why there are none.
   */
  async beforeIndex(): Promise<{ text: string; etag: string | undefined } | { problem: StorageError | undefined }> {
    const index = this.store.index;
    if (!index) return { problem: undefined };
    if (index.text === undefined) {
      const waited = { over: false };
      const attempt = index.fetch().then(
        () => {
          this.indexProblem = undefined;
          if (waited.over) this.settings.onChange();
        },
        (error: unknown) => {
          this.indexProblem = asStorageError(error);
          this.scheduleRetry();
        },
      );
      await this.waitAtMost([attempt]);
      waited.over = true;
    }
    return index.text === undefined ? { problem: this.indexProblem } : { text: index.text, etag: index.etag };
  }

  /** Wait for `attempts`, or `ms` (`storageWait`), whichever ends first; true when they all ended. */
  private async waitAtMost(attempts: ReadonlyArray<Promise<unknown>>, ms = this.settings.storageWait): Promise<boolean> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<false>((done) => {
      timer = setTimeout(() => done(false), ms);
      timer.unref?.();
    });
    const ended = await Promise.race([Promise.allSettled(attempts).then(() => true), timeout]);
    clearTimeout(timer);
    return ended;
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
            if (waited.over) this.settings.onChange();
          },
          () => this.scheduleRetry(),
        ),
      );
      await this.waitAtMost(attempts);
      waited.over = true;
    }
    const missing = this.store.places.filter((state) => !state.listing);
    if (missing.length > 0) this.scheduleRetry();
    return { leaveOut: new Set(missing.map((state) => state.place.root)), diagnostics: missing.map((state) => this.unlisted(state)) };
  }

  /**
   * The first discovery over listed bucket places (`read`), waited for until
   * `storageWait` has passed since `started`. Past it, `others` (a discovery
   * without the bucket places) answers with a warning, and the first one, still
   * reading, rebuilds the index when it ends; later requests share it. Once one
   * has ended, discoveries are waited for whole: the SKILL.md objects are kept
   * by ETag, so they read only what a refresh found changed.
   */
  async withinWait(read: () => Promise<Found>, started: number, others: () => Promise<Found>): Promise<Found> {
    if (this.firstRead === 'done') return read();
    if (!this.firstRead) {
      const reading = read();
      this.firstRead = reading;
      reading.then(
        () => {
          this.firstRead = 'done';
          if (this.lateRead) this.settings.onChange();
        },
        () => {
          this.firstRead = undefined;
        },
      );
    }
    const reading = this.firstRead;
    const ended = await this.waitAtMost([reading], Math.max(0, started + this.settings.storageWait - Date.now()));
    if (ended) return reading;
    this.lateRead = true;
    const answered = await others();
    const note = `reading the SKILL.md objects took longer than storageWait (${this.settings.storageWait} ms)`;
    const late = this.store.places
      .filter((state) => state.listing)
      .map((state) => this.slow(state.place.root, note, 'its skills come once they are read, without a restart'));
    return { ...answered, warnings: [...late, ...answered.warnings] };
  }

  /** Start the checks (each `refresh` ms). Nothing here keeps the process alive. */
  start(): void {
    if (this.settings.refresh > 0) this.schedule(this.settings.refresh);
  }

  /** One check of every place now; resolves when it is done (tests and the CLI call it). */
  check(): Promise<void> {
    this.checking ??= this.runCheck().finally(() => {
      this.checking = undefined;
    });
    return this.checking;
  }

  /** Log what happened since the last request: outages begun (warn) and ended (info). */
  report(log: HostLogger): void {
    for (const note of this.notes.splice(0)) log[note.level](note.message, note.fields);
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async runCheck(): Promise<void> {
    this.store.stale = false;
    const { index } = this.store;
    const results =
      this.published && index
        ? [await this.checkOne(index.url, index.text !== undefined, () => index.fetch())]
        : await Promise.all(
            this.store.places.map((state) => this.checkOne(state.place.root, state.listing !== undefined, () => this.store.list(state))),
          );
    if (results.some((result) => result === 'changed')) this.settings.onChange();
    const failing = results.includes('failed');
    this.failures = failing ? this.failures + 1 : 0;
    if (failing) this.scheduleRetry();
    else if (this.store.stale) this.schedule(STALE_RECHECK_MS);
    else if (this.settings.refresh > 0) this.schedule(this.settings.refresh);
  }

  /** One place listed, or the published index read (`root`: its URL), with an outage warned about once and its end said once. */
  private async checkOne(root: string, hadListing: boolean, read: () => Promise<boolean>): Promise<'changed' | 'same' | 'failed'> {
    try {
      const changed = await read();
      if (this.down.delete(root)) this.notes.push({ level: 'info', message: '[skills] storage is back', fields: { place: root } });
      return changed ? 'changed' : 'same';
    } catch (error) {
      if (!this.down.has(root)) {
        this.down.add(root);
        const fields = { place: root, error: asStorageError(error).reason, retryInMs: this.backoff() };
        const message = hadListing ? '[skills] storage unavailable; serving the last good library' : '[skills] storage unavailable';
        this.notes.push({ level: 'warn', message, fields });
      }
      return 'failed';
    }
  }

  /** The next retry, after a failed listing. */
  private scheduleRetry(): void {
    this.schedule(this.backoff());
  }

  private backoff(): number {
    const cap = this.settings.refresh > 0 ? Math.min(this.settings.refresh, MAX_BACKOFF_MS) : MAX_BACKOFF_MS;
    const base = Math.min(cap, FIRST_BACKOFF_MS * 2 ** Math.min(this.failures, 16));
    const jitter = 0.8 + 0.4 * (this.settings.random ?? Math.random)();
    return Math.round(base * jitter);
  }

  /** One timer at a time: a sooner check replaces a later one. */
  private schedule(delayMs: number): void {
    if (this.closed) return;
    const at = Date.now() + delayMs;
    if (this.timer && this.nextAt <= at) return;
    clearTimeout(this.timer);
    this.nextAt = at;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.check();
    }, delayMs);
    this.timer.unref?.();
  }

  private nextAt = 0;

  /** The warning for the s3:// places a request goes without while the published index cannot be read. */
  indexUnavailable(): Diagnostic {
    const url = this.store.index?.url ?? '';
    const why = this.indexProblem ? this.indexProblem.reason : `no answer within storageWait (${this.settings.storageWait} ms)`;
    return createDiagnostic(
      'STORAGE_UNAVAILABLE',
      url,
      `the skills in buckets are left out for now: the published index cannot be read (${why}). ` +
        'Requests answer with the other sources; the index is read again with backoff and its skills come without a restart.',
    );
  }

  /** The warning for a place left out of a request because storage is slow or down (`why`). */
  private slow(root: string, why: string, then = 'the listing is retried with backoff and its skills come without a restart'): Diagnostic {
    return createDiagnostic(
      'STORAGE_UNAVAILABLE',
      root,
      `skills here are left out for now: ${why}. Requests answer with the other sources; ${then}.`,
    );
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
    return this.slow(root, problem ? problem.reason : `no listing within storageWait (${this.settings.storageWait} ms)`);
  }
}

function asStorageError(error: unknown): StorageError {
  return error instanceof StorageError ? error : new StorageError(StorageCodes.unavailable, String(error), { cause: error });
}

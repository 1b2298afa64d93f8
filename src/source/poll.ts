/**
 * What keeps a remote source fresh, whatever it reads: one timer, a check
 * every `refresh` ms (one at a time), retries with backoff and jitter while
 * it fails, a recheck soon after a read found an object newer than its
 * listing, and outages told once when they begin and once when they end.
 * The listing poller and the published index's poller each run one.
 */
import type { HostLogger } from '../base/host.js';
import type { BucketStore } from '../storage/bucket-store.js';
import { StorageCodes, StorageError } from '../storage/storage-error.js';
import type { ChangeFeed } from './changes.js';

/** First retry after a failed check, in ms; doubled each failure (with ±20% jitter) up to `refresh` or MAX_BACKOFF_MS. */
export const FIRST_BACKOFF_MS = 1_000;
export const MAX_BACKOFF_MS = 60_000;
/** An object read newer than its listing: check again this soon, in ms. */
const STALE_RECHECK_MS = 1_000;

export interface PollSettings {
  /** ms between checks; 0: none after a failure's retries. */
  refresh: number;
  /** Longest a request waits on storage, in ms. */
  storageWait: number;
  /** Where a change is reported; absent for a one-time discovery (nothing is rebuilt after it). */
  changes?: ChangeFeed | undefined;
  /** Clock for the jitter, for tests. */
  random?: () => number;
}

/** One thing checked: changed, the same, or could not be read. */
export type Checked = 'changed' | 'same' | 'failed';

/** Check `url` (`read` resolves true when it changed; `hadCopy`: a copy is held, which keeps serving while it fails). */
export type ReadOne = (url: string, hadCopy: boolean, read: () => Promise<boolean>) => Promise<Checked>;

interface Note {
  level: 'warn' | 'info';
  message: string;
  fields: Record<string, unknown>;
}

export class PollLoop {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private nextAt = 0;
  private failures = 0;
  private closed = false;
  private checking: Promise<void> | undefined;
  private readonly notes: Note[] = [];
  /** What is in an outage and was warned about, by URL. */
  private readonly down = new Set<string>();

  /** `probe`: one check of everything the poller reads, each thing through the `read` it is given. */
  constructor(
    private readonly store: BucketStore,
    readonly settings: PollSettings,
    private readonly probe: (read: ReadOne) => Promise<readonly Checked[]>,
  ) {}

  /** Start the checks (each `refresh` ms). Nothing here keeps the process alive. */
  start(): void {
    if (this.settings.refresh > 0) this.schedule(this.settings.refresh);
  }

  /** Tell the owner that what the source holds changed. */
  changed(): void {
    this.settings.changes?.report('storage');
  }

  /** One check now; resolves when it is done. */
  check(): Promise<void> {
    this.checking ??= this.runCheck().finally(() => {
      this.checking = undefined;
    });
    return this.checking;
  }

  /** A read found an object newer than its listing: check soon. */
  recheckSoon(): void {
    this.schedule(STALE_RECHECK_MS);
  }

  /** The next retry, after a failure. */
  retry(): void {
    this.schedule(this.backoff());
  }

  /** Log what happened since the last request: outages begun (warn) and ended (info). */
  report(log: HostLogger): void {
    for (const note of this.notes.splice(0)) log[note.level](note.message, note.fields);
  }

  /**
   * No check starts after this, and none of a check in flight begins another
   * read; resolves once that check has ended, so nothing reaches storage
   * after it (each read is bounded by the request time limit).
   */
  close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    return this.checking ?? Promise.resolve();
  }

  /** Read `url` (`read`: true when it changed), with an outage warned about once and its end said once. */
  private async read(url: string, hadCopy: boolean, read: () => Promise<boolean>): Promise<Checked> {
    if (this.closed) return 'same';
    try {
      const changed = await read();
      if (this.down.delete(url)) this.notes.push({ level: 'info', message: '[skills] storage is back', fields: { place: url } });
      return changed ? 'changed' : 'same';
    } catch (error) {
      if (!this.down.has(url)) {
        this.down.add(url);
        const fields = { place: url, error: asStorageError(error).reason, retryInMs: this.backoff() };
        const message = hadCopy ? '[skills] storage unavailable; serving the last good library' : '[skills] storage unavailable';
        this.notes.push({ level: 'warn', message, fields });
      }
      return 'failed';
    }
  }

  private async runCheck(): Promise<void> {
    this.store.stale = false;
    const results = await this.probe((url, hadCopy, read) => this.read(url, hadCopy, read));
    if (results.includes('changed')) this.changed();
    const failing = results.includes('failed');
    this.failures = failing ? this.failures + 1 : 0;
    if (failing) this.retry();
    else if (this.store.stale) this.recheckSoon();
    else if (this.settings.refresh > 0) this.schedule(this.settings.refresh);
  }

  private backoff(): number {
    const { refresh } = this.settings;
    const cap = refresh > 0 ? Math.min(refresh, MAX_BACKOFF_MS) : MAX_BACKOFF_MS;
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
}

/** A poller of one mode (listings, a published index): its loop started, rechecked, logged and closed alike. */
export class Poller {
  constructor(protected readonly loop: PollLoop) {}

  /** Start the checks (each `refresh` ms). */
  start(): void {
    this.loop.start();
  }

  /** A read found an object newer than its listing: check soon. */
  recheckSoon(): void {
    this.loop.recheckSoon();
  }

  /** Log what happened since the last request: outages begun and ended. */
  report(log: HostLogger): void {
    this.loop.report(log);
  }

  /** Resolves once a check in flight has ended. */
  close(): Promise<void> {
    return this.loop.close();
  }
}

export function asStorageError(error: unknown): StorageError {
  return error instanceof StorageError ? error : new StorageError(StorageCodes.unavailable, String(error), { cause: error });
}

/** Wait for `attempts`, or `ms`, whichever ends first; true when they all ended. */
export async function waitAtMost(attempts: ReadonlyArray<Promise<unknown>>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((done) => {
    timer = setTimeout(() => done(false), ms);
    timer.unref?.();
  });
  const ended = await Promise.race([Promise.allSettled(attempts).then(() => true), timeout]);
  clearTimeout(timer);
  return ended;
}

/**
 * The debouncer: raw events from every folder go into one burst, reported
 * through onChange once the folders go quiet (or the burst has waited too
 * long). onChange never runs concurrently with itself: a burst that ends
 * while it runs is reported after it.
 */
import type { WatchChange, WatchOptions } from './types.js';

export interface BurstSettings {
  /** The configured directories, in the order a change names them. */
  order: readonly string[];
  debounceMs: number;
  maxWaitMs: number;
  onChange: WatchOptions['onChange'];
  /** Where what onChange throws goes. */
  report: (error: unknown) => void;
}

export class Bursts {
  private readonly changed = new Set<string>();
  private events = 0;
  private startedAt = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> | undefined;
  private rerun = false;
  private closed = false;

  constructor(private readonly settings: BurstSettings) {}

  /** `events` raw events (0: a change may have been missed) touched these configured directories. */
  add(directories: readonly string[], events: number): void {
    if (this.closed) return;
    for (const directory of directories) this.changed.add(directory);
    this.events += events;
    const now = Date.now();
    if (this.timer === undefined) this.startedAt = now;
    else clearTimeout(this.timer);
    // Trailing debounce, capped so a folder that never goes quiet is still reported.
    const { debounceMs, maxWaitMs } = this.settings;
    const wait = Math.max(0, Math.min(debounceMs, this.startedAt + maxWaitMs - now));
    this.timer = setTimeout(() => this.flush(), wait);
  }

  private flush(): void {
    this.timer = undefined;
    if (this.closed || this.changed.size === 0) return;
    if (this.running) {
      // onChange is still busy with the last burst: report this one when it is done.
      this.rerun = true;
      return;
    }
    const change: WatchChange = { directories: this.settings.order.filter((d) => this.changed.has(d)), events: this.events };
    this.changed.clear();
    this.events = 0;
    this.running = this.deliver(change).finally(() => {
      this.running = undefined;
      if (this.rerun) {
        this.rerun = false;
        this.flush();
      }
    });
  }

  private async deliver(change: WatchChange): Promise<void> {
    try {
      await this.settings.onChange(change);
    } catch (error) {
      this.settings.report(error);
    }
  }

  /** Drop what is pending; resolves once a running onChange has finished. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.changed.clear();
    await this.running;
  }
}

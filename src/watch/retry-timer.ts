/**
 * The retry clock: one timer for the whole watcher. A retry runs `retryMs`
 * after it is asked for; while one is pending or running, asking again does
 * nothing, and a retry that leaves something to try schedules the next itself.
 */

export interface RetrySettings {
  everyMs: number;
  run: () => Promise<void>;
  /** Asked after each retry: whether another is needed. */
  again: () => boolean;
  report: (error: unknown) => void;
}

export class RetryTimer {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly settings: RetrySettings) {}

  schedule(): void {
    if (this.timer !== undefined || this.running !== undefined || this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.settings
        .run()
        .catch((error: unknown) => this.settings.report(error))
        .finally(() => {
          this.running = undefined;
          if (this.settings.again()) this.schedule();
        });
    }, this.settings.everyMs);
  }

  /** No retry starts after this. */
  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Resolves once a running retry has finished. */
  async finished(): Promise<void> {
    await this.running;
  }
}

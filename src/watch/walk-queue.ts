/**
 * The walk's work list: items run at most `concurrency` at once, in the order
 * they were queued, and every unfinished step is counted so callers can wait
 * until none is left (the start walk's `ready`, close(), a retry).
 */

export interface WalkQueueSettings<T> {
  concurrency: number;
  /** Runs one item; what it throws goes to `report`. */
  run: (item: T) => Promise<void>;
  /** Called each time the last step finishes, before the waiters are released. */
  settled: () => void;
  report: (error: unknown) => void;
}

export class WalkQueue<T> {
  /** Items waiting, in order; `head` is the next (shift() is O(n), and a walk may queue 100,000). */
  private items: T[] = [];
  private head = 0;
  private running = 0;
  /** Steps not finished: items queued or running, and those counted with begin(). */
  private steps = 0;
  private waiters: Array<() => void> = [];

  constructor(private readonly settings: WalkQueueSettings<T>) {}

  /** Whether any step is unfinished. */
  get busy(): boolean {
    return this.steps > 0;
  }

  /** Count a step that runs outside the queue (a configured directory starting); end() it when done. */
  begin(): void {
    this.steps++;
  }

  end(): void {
    this.steps--;
    if (this.steps > 0) return;
    this.settings.settled();
    for (const resolve of this.waiters.splice(0)) resolve();
  }

  /** Resolves once no step is left, including those started meanwhile. */
  idle(): Promise<void> {
    return this.steps === 0 ? Promise.resolve() : new Promise((resolve) => this.waiters.push(resolve));
  }

  push(item: T): void {
    this.begin();
    this.items.push(item);
    this.pump();
  }

  /** Start queued items while fewer than `concurrency` run. */
  private pump(): void {
    while (this.running < this.settings.concurrency && this.head < this.items.length) {
      const item = this.items[this.head++] as T;
      if (this.head >= 1024 && this.head * 2 >= this.items.length) {
        this.items = this.items.slice(this.head);
        this.head = 0;
      }
      this.running++;
      void this.runOne(item);
    }
  }

  private async runOne(item: T): Promise<void> {
    try {
      await this.settings.run(item);
    } catch (error) {
      this.settings.report(error);
    } finally {
      this.running--;
      this.end();
      this.pump();
    }
  }
}

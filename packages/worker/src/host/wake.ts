// A wait that ends early when something changes (a slot frees, an outcome is stored) or when
// the host stops: the read loop sleeps on it instead of polling its own counters. One abort
// listener for the whole Wake, not one per wait: EventTarget listeners are slow in Node, and the
// read loop waits once per flush on a busy worker.

export class Wake {
  /** Untimed waits: ended by `notify` (or the stop). */
  private waiters = new Set<() => void>();
  /** Timed waits: ended by their timer (or the stop), not by `notify`. */
  private readonly timed = new Set<() => void>();

  constructor(
    /** Aborted on stop: ends every wait at once. */
    private readonly signal: AbortSignal,
  ) {
    signal.addEventListener(
      'abort',
      () => {
        this.notify();
        for (const done of [...this.timed]) done();
      },
      { once: true },
    );
  }

  /** Waits `ms`, or (without `ms`) until `notify`; a stop ends either wait at once. */
  wait(ms?: number): Promise<void> {
    return new Promise<void>((resolve) => {
      if (this.signal.aborted) return resolve();
      if (ms === undefined) {
        this.waiters.add(resolve);
        return;
      }
      const done = () => {
        clearTimeout(timer);
        this.timed.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.timed.add(done);
    });
  }

  notify(): void {
    if (this.waiters.size === 0) return;
    const waiters = this.waiters;
    this.waiters = new Set();
    for (const w of waiters) w();
  }
}

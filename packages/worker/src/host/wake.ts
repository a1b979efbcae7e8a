// A wait that ends early when something changes (a slot frees, an outcome is stored) or when
// the host stops: the read loop sleeps on it instead of polling its own counters.

export class Wake {
  private waiters: (() => void)[] = [];

  constructor(
    /** Aborted on stop: ends every wait at once. */
    private readonly signal: AbortSignal,
  ) {}

  /** Waits `ms`, or (without `ms`) until `notify`; a stop ends either wait at once. */
  wait(ms?: number): Promise<void> {
    const { signal } = this;
    return new Promise<void>((resolve) => {
      if (signal.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        this.waiters = this.waiters.filter((w) => w !== done);
        resolve();
      };
      const timer = ms === undefined ? undefined : setTimeout(done, ms);
      signal.addEventListener('abort', done);
      if (ms === undefined) this.waiters.push(done);
    });
  }

  notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}

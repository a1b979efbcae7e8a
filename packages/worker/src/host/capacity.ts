// The execution limit of the runtime host: slots are reserved when a read asks for deliveries and
// held until the handler returns; deliveries whose handler returned but whose outcome is not
// stored yet may add up to another `concurrency`, so one batch can commit while the next runs.
// A read never asks for more than is free.

export class Capacity {
  /** Deliveries reserved for execution: from the read until the handler returns. */
  private reserved = 0;
  /** Attempts whose handler returned and whose outcome is not stored yet. */
  private finishing = 0;
  private wake: (() => void) | undefined;

  constructor(
    private readonly concurrency: number,
    /** Aborted on stop: ends every wait at once. */
    private readonly signal: AbortSignal,
  ) {}

  get free(): number {
    const c = this.concurrency;
    return Math.min(c - this.reserved, 2 * c - this.reserved - this.finishing);
  }

  reserve(n: number): void {
    this.reserved += n;
  }

  /** Reserved slots not used (a short read, skipped deliveries, a handler that never ran). */
  unreserve(n: number): void {
    this.reserved -= n;
    this.notify();
  }

  /** The handler returned: its slot frees, its delivery waits for the terminal write. */
  executed(): void {
    this.reserved--;
    this.finishing++;
    this.notify();
  }

  /** The outcome is stored (or given up on). */
  settled(): void {
    this.finishing--;
    this.notify();
  }

  /** Waits `ms`, or (without `ms`) until capacity frees; a stop ends either wait at once. */
  wait(ms?: number): Promise<void> {
    const { signal } = this;
    return new Promise<void>((resolve) => {
      if (signal.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        if (this.wake === done) this.wake = undefined;
        resolve();
      };
      const timer = ms === undefined ? undefined : setTimeout(done, ms);
      signal.addEventListener('abort', done);
      if (ms === undefined) this.wake = done;
    });
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}

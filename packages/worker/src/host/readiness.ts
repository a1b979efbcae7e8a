// Readiness: ready only once the runtime is initialised AND its read loop runs; unready after N
// consecutive read failures (one failed read is noise, a run of them means this worker takes no
// work and its probe should say so), ready again when a read succeeds. (The host adds "unready
// first on stop", so nothing routes to a worker that is draining.)

export class Readiness {
  private initDone = false;
  private loopRunning = false;
  private failures = 0;
  private resolveFirst!: () => void;
  /** Settles the first time the worker is ready (or when it stops before that). */
  readonly firstReady = new Promise<void>((resolve) => (this.resolveFirst = resolve));

  constructor(private readonly unreadyAfter: number) {}

  get ready(): boolean {
    return this.initDone && this.loopRunning && this.failures < this.unreadyAfter;
  }

  get consecutiveFailures(): number {
    return this.failures;
  }

  initialised(done: boolean): void {
    this.initDone = done;
    this.check();
  }

  loop(running: boolean): void {
    this.loopRunning = running;
    this.check();
  }

  readFailed(): void {
    this.failures++;
  }

  readSucceeded(): void {
    this.failures = 0;
  }

  settleFirst(): void {
    this.resolveFirst();
  }

  private check(): void {
    if (this.ready) this.resolveFirst();
  }
}

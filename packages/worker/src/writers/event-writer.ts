// Progress and unit events of running attempts: one ordered queue per attempt, flushed by one
// shared writer that puts every attempt's waiting events into ONE transaction (group commit:
// while a flush runs, new events wait for the next one). Writes are fenced by the attempt's
// epoch (storage `appendAttemptEvents`): an attempt that no longer owns its job is told so and
// never writes again. When the attempt ends, `settle()` waits for its in-flight flush and hands
// back what is still queued, so the terminal transaction writes it before the state change.

import {
  appendAttemptEventsMany,
  lockJobs,
  type AttemptEvent,
  type SluiceDatabase,
  type StoredEvent,
} from '@sluice/storage';

export interface EventWriterOptions {
  database: SluiceDatabase;
  /** An attempt's write was rejected by the fence: it lost its job. */
  onFenced(queue: AttemptEvents): void;
  onError(error: unknown): void;
  onWritten?(count: number): void;
  /** The events a flush committed (runtimes that carry events publish them). */
  onStored?(events: StoredEvent[]): void;
  /** Pause before retrying after a failed flush (default 200 ms). */
  retryDelayMs?: number;
}

export class AttemptEvents {
  readonly jobId: string;
  readonly epoch: number;
  private pending: AttemptEvent[] = [];
  private inFlight: Promise<void> | undefined;
  private closed = false;
  fenced = false;

  constructor(
    private readonly writer: EventWriter,
    jobId: string,
    epoch: number,
  ) {
    this.jobId = jobId;
    this.epoch = epoch;
  }

  push(event: AttemptEvent): void {
    if (this.closed || this.fenced) return;
    this.pending.push(event);
    this.writer.schedule(this);
  }

  /** Waits for the in-flight flush, closes the queue and returns what is still unwritten. */
  async settle(): Promise<AttemptEvent[]> {
    this.closed = true;
    while (this.inFlight) await this.inFlight;
    return this.pending.splice(0);
  }

  /** @internal used by the writer. */
  take(): AttemptEvent[] | undefined {
    if (this.closed || this.fenced || this.inFlight || this.pending.length === 0) return undefined;
    return this.pending.splice(0);
  }

  /** @internal the writer marks the flush that carries this queue's events. */
  track(flush: Promise<void>): void {
    const done = flush.finally(() => {
      if (this.inFlight === done) this.inFlight = undefined;
    });
    this.inFlight = done;
  }

  /** @internal a failed flush puts its events back in front, in order. */
  restore(events: AttemptEvent[]): void {
    this.pending.unshift(...events);
  }

  get waiting(): boolean {
    return !this.closed && !this.fenced && this.pending.length > 0;
  }
}

export class EventWriter {
  private readonly scheduled = new Set<AttemptEvents>();
  private flushing = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly opts: EventWriterOptions) {}

  open(jobId: string, epoch: number): AttemptEvents {
    return new AttemptEvents(this, jobId, epoch);
  }

  schedule(queue: AttemptEvents): void {
    // After close (the worker stopped) a straggling attempt's events are dropped: it no longer
    // owns its job, and the database may be closed.
    if (this.closed) return;
    this.scheduled.add(queue);
    this.kick();
  }

  private kick(): void {
    if (this.flushing || this.retryTimer || this.scheduled.size === 0) return;
    this.flushing = true;
    setImmediate(() => void this.flush());
  }

  private async flush(): Promise<void> {
    const batch: { queue: AttemptEvents; events: AttemptEvent[] }[] = [];
    for (const queue of this.scheduled) {
      const events = queue.take();
      if (events) {
        batch.push({ queue, events });
        this.scheduled.delete(queue);
      } else if (!queue.waiting) {
        this.scheduled.delete(queue);
      }
    }
    let release!: () => void;
    const flushed = new Promise<void>((resolve) => (release = resolve));
    for (const { queue } of batch) queue.track(flushed);
    let failed = false;
    try {
      if (batch.length > 0) {
        const appended = await this.opts.database.transaction(async (tx) => {
          // Row locks in id order first: no deadlock with the renewal tick or another batch.
          await lockJobs(
            tx,
            batch.map((b) => b.queue.jobId),
          );
          // One fenced UPDATE and one event insert for every attempt in the flush.
          return appendAttemptEventsMany(
            tx,
            batch.map(({ queue, events }) => ({ id: queue.jobId, epoch: queue.epoch, events })),
          );
        });
        const stored = appended.map((a) => a !== undefined);
        this.opts.onStored?.(appended.flatMap((a) => a ?? []));
        let written = 0;
        batch.forEach(({ queue, events }, i) => {
          if (stored[i]) written += events.length;
          else {
            queue.fenced = true;
            this.opts.onFenced(queue);
          }
        });
        if (written > 0) this.opts.onWritten?.(written);
      }
    } catch (error) {
      failed = true;
      for (const { queue, events } of batch) {
        queue.restore(events);
        this.scheduled.add(queue);
      }
      this.opts.onError(error);
    } finally {
      release();
      this.flushing = false;
    }
    if (failed && !this.closed) {
      this.retryTimer = setTimeout(() => {
        this.retryTimer = undefined;
        this.kick();
      }, this.opts.retryDelayMs ?? 200);
      this.retryTimer.unref();
    } else {
      this.kick();
    }
  }

  close(): void {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.scheduled.clear();
  }
}

// The runtime host: the lifecycle around any `RuntimeConsumer` (STYLE.md rule 3). It owns init
// with retry, readiness, the read loop (read batch size apart from the execution limit), batch
// admission, attempts under the semaphore, lease renewal (which also carries cancellation),
// group-committed terminal writes, the unroutable-version sweep and drain. Runtimes differ only
// through their capability flags; nothing here knows a runtime by name.

import type { Delivery, RuntimeConsumer } from '@sluice/contracts';
import type { BlobStore, SluiceDatabase } from '@sluice/storage';
import { admitBatch, type AdmitDeps, type Admitted } from './admit-batch.js';
import { sweepStaging } from '../assets/staging-sweeper.js';
import { Capacity } from './capacity.js';
import { createCheckpointWriter, type CheckpointWriter } from '../writers/checkpoint-writer.js';
import { abortAttempt, type Attempt } from '../attempt/attempt.js';
import { drainHeld } from './drain-held.js';
import { EventWriter } from '../writers/event-writer.js';
import type { ResolvedHandlers } from '../attempt/handler-registry.js';
import type { WorkerLogger } from '../logger.js';
import { createCounters, type WorkerMetrics } from '../metrics.js';
import { every, type Periodic } from './periodic.js';
import { createEventPublisher, type PublishEvents } from './publish-events.js';
import { Readiness } from './readiness.js';
import { releaseAfterDelay } from './release-later.js';
import { renewHeld } from './renew-held.js';
import { runAttempt } from '../attempt/run-attempt.js';
import type { CheckpointStore } from '../attempt/step.js';
import { sweepUnroutable } from './sweep-unroutable.js';
import { TerminalWriter, type SettledJob } from '../writers/terminal-writer.js';

export interface RuntimeHostOptions<D extends Delivery> {
  consumer: RuntimeConsumer<D>;
  database: SluiceDatabase;
  blobs?: BlobStore | undefined;
  handlers: ResolvedHandlers;
  /** Attempts executing at once. */
  concurrency: number;
  /** Deliveries asked for per read (default: concurrency, at most 64); never more than free slots. */
  readBatch?: number | undefined;
  leaseMs?: number | undefined;
  renewEveryMs?: number | undefined;
  unitConcurrency?: number | undefined;
  /** Consecutive read failures that make the worker unready (default 3). */
  unreadyAfterReadFailures?: number | undefined;
  /** Grace before a job queued on a version nobody serves is dead-lettered (default 60 s). */
  unroutableGraceMs?: number | undefined;
  /** Sweep period (default grace / 4); 0 turns the sweep off. */
  sweepEveryMs?: number | undefined;
  /** Versions of a kind some live worker serves (default: storage's served-versions table). */
  servedVersions?: ((kind: string) => Promise<readonly string[]>) | undefined;
  checkpoints?: CheckpointStore | undefined;
  /** Staging-blob sweep period (default 60 s; 0 turns it off); only with `blobs`. */
  stagingSweepEveryMs?: number | undefined;
  /** Retry backoff of ordinary errors (contracts `backoffMs`; default base 1 s, cap 60 s). */
  retryBackoff?: { baseMs?: number; maxMs?: number } | undefined;
  logger: WorkerLogger;
  onSettled?: ((jobs: readonly SettledJob[]) => void) | undefined;
}

/** Batch admissions in flight at once (each holds one database connection for its transaction). */
const MAX_ADMISSIONS = 3;
// Capped at 2 s: a transport back from an outage is read again within about that long (a
// Streams read that hangs is torn down by its own watchdog, so this only spaces fast failures).
const backoff = (n: number) => Math.min(2000, 100 * 2 ** Math.max(0, n - 1));

export class RuntimeHost<D extends Delivery = Delivery> {
  private readonly counters = createCounters();
  private readonly readiness: Readiness;
  private readonly held = new Map<string, Attempt<D>>();
  private readonly byJob = new Map<string, Attempt<D>>();
  private readonly events: EventWriter;
  private readonly terminal: TerminalWriter<D>;
  private readonly checkpointWriter: CheckpointWriter;
  private readonly readAbort = new AbortController();
  private readonly leaseMs: number;
  private readonly readBatch: number;
  private readonly capacity: Capacity;
  private readonly admitDeps: AdmitDeps<D>;
  private executing = 0;
  private lifecycle: Promise<void> | undefined;
  private timers: Periodic[] = [];
  private stopping: Promise<void> | undefined;
  private heldWaiters: (() => void)[] = [];
  private readonly admissions = new Set<Promise<void>>();
  private readonly publish: PublishEvents;
  private lastReadWarning = -Infinity;
  private lastReadAt = 0;
  private quietReadFailures = 0;

  constructor(private readonly opts: RuntimeHostOptions<D>) {
    this.publish = createEventPublisher(opts.consumer, opts.logger);
    this.leaseMs = opts.leaseMs ?? 30_000;
    this.readBatch = Math.max(1, opts.readBatch ?? Math.min(opts.concurrency, 64));
    this.readiness = new Readiness(opts.unreadyAfterReadFailures ?? 3);
    this.capacity = new Capacity(opts.concurrency, this.readAbort.signal);
    this.admitDeps = {
      leaseMs: this.leaseMs,
      database: opts.database,
      consumer: opts.consumer,
      handlers: opts.handlers,
      counters: this.counters,
      logger: opts.logger,
      publish: this.publish,
      isLocal: (jobId) => this.byJob.has(jobId),
      fenceLocal: (jobId) => {
        const a = this.byJob.get(jobId);
        if (a) this.lose(a);
      },
    };
    this.events = new EventWriter({
      database: opts.database,
      onFenced: (queue) => {
        for (const a of this.held.values()) if (a.events === queue) this.lose(a);
      },
      onError: (error) => {
        this.counters.eventWriteFailures++;
        opts.logger.warn('event flush failed; will retry', { error });
      },
      onWritten: (n) => (this.counters.eventsWritten += n),
      onStored: this.publish,
    });
    this.checkpointWriter = createCheckpointWriter(opts.database);
    this.terminal = new TerminalWriter({
      database: opts.database,
      consumer: opts.consumer,
      counters: this.counters,
      logger: opts.logger,
      onSettled: opts.onSettled,
      publish: this.publish,
    });
  }

  /** Resolves once the runtime is initialised and the read loop runs (or the host stops first). */
  start(): Promise<void> {
    if (!this.lifecycle) {
      this.lifecycle = this.runLifecycle();
      const renewEvery = this.opts.renewEveryMs ?? 10_000;
      this.timers.push(every(renewEvery, () => this.renewRound(), this.periodicFailed));
      const grace = this.opts.unroutableGraceMs ?? 60_000;
      const sweepEvery = this.opts.sweepEveryMs ?? Math.max(1000, grace / 4);
      if (sweepEvery > 0)
        this.timers.push(every(sweepEvery, () => this.sweepRound(grace), this.periodicFailed));
      const stagingEvery = this.opts.stagingSweepEveryMs ?? 60_000;
      const blobs = this.opts.blobs;
      if (blobs && stagingEvery > 0) {
        const sweep = () =>
          sweepStaging({
            database: this.opts.database,
            blobs,
            logger: this.opts.logger,
            counters: this.counters,
          }).then(() => undefined);
        this.timers.push(every(stagingEvery, sweep, this.periodicFailed));
      }
    }
    return this.readiness.firstReady;
  }

  private readonly periodicFailed = (error: unknown) =>
    this.opts.logger.error('periodic task failed', { error });

  isReady(): boolean {
    return this.readiness.ready && !this.stopping;
  }

  metrics(): WorkerMetrics {
    return {
      ...this.counters,
      running: this.executing,
      held: this.held.size,
      consecutiveReadFailures: this.readiness.consecutiveFailures,
      ready: this.isReady(),
    };
  }

  /** Drain: unready at once, stop reading, let running work finish until the deadline, then give the rest back. */
  stop(opts: { deadlineMs?: number } = {}): Promise<void> {
    this.stopping ??= this.drain(opts.deadlineMs ?? 30_000);
    return this.stopping;
  }

  private async runLifecycle(): Promise<void> {
    let failures = 0;
    while (!this.readAbort.signal.aborted) {
      try {
        await this.opts.consumer.init();
        failures = 0;
      } catch (error) {
        this.counters.initFailures++;
        this.opts.logger.warn('runtime init failed; retrying', {
          error,
          runtime: this.opts.consumer.name,
        });
        await this.capacity.wait(backoff(++failures));
        continue;
      }
      this.readiness.initialised(true);
      try {
        await this.readLoop();
      } catch (error) {
        // The loop is not meant to end while running: back through init, as the seed asks.
        this.opts.logger.error('read loop ended unexpectedly; re-initialising', { error });
        this.readiness.initialised(false);
        await this.capacity.wait(backoff(++failures));
      }
    }
    this.readiness.loop(false);
    this.readiness.settleFirst();
  }

  private async readLoop(): Promise<void> {
    const { consumer, logger } = this.opts;
    const signal = this.readAbort.signal;
    this.readiness.loop(true);
    try {
      while (!signal.aborted) {
        if (this.readiness.consecutiveFailures > 0) {
          // A read that took long to fail (a watchdog, a timeout) already spaced the attempts out:
          // only the rest of the backoff is waited, so recovery is not delayed past it.
          const spent = Date.now() - this.lastReadAt;
          const pause = backoff(this.readiness.consecutiveFailures) - spent;
          if (pause > 0) await this.capacity.wait(pause);
          if (signal.aborted) break;
        }
        const free = this.capacity.free;
        if (free <= 0) {
          await this.capacity.wait();
          continue;
        }
        const n = Math.min(this.readBatch, free);
        this.capacity.reserve(n);
        let deliveries: D[];
        this.lastReadAt = Date.now();
        try {
          deliveries = await consumer.read(n, signal);
        } catch (error) {
          this.capacity.unreserve(n);
          if (signal.aborted) break;
          this.readFailed(error);
          continue;
        }
        this.capacity.unreserve(n - deliveries.length);
        if (deliveries.length === 0) {
          this.readiness.readSucceeded();
          continue;
        }
        this.counters.claimed += deliveries.length;
        if (signal.aborted) {
          // Read raced with stop: give them back untouched.
          this.capacity.unreserve(deliveries.length);
          await consumer
            .release(deliveries, 0)
            .catch((error: unknown) => logger.error('release on stop failed', { error }));
          break;
        }
        // Admission runs while the next read goes out (a few at once, each ONE transaction): on
        // PostgreSQL the round trips of one batch overlap the next one's.
        const admission = this.admit(deliveries).finally(() => this.admissions.delete(admission));
        this.admissions.add(admission);
        if (this.admissions.size >= MAX_ADMISSIONS) await Promise.race(this.admissions);
        // Let timers and I/O in: with a synchronous driver (better-sqlite3) every await above
        // resolves as a microtask, and a busy loop would starve renewals and terminal writes.
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    } finally {
      await Promise.allSettled(this.admissions);
      this.readiness.loop(false);
    }
  }

  private async admit(deliveries: D[]): Promise<void> {
    let admitted: Admitted<D>[];
    try {
      admitted = await admitBatch(this.admitDeps, deliveries);
      this.readiness.readSucceeded();
    } catch (error) {
      this.capacity.unreserve(deliveries.length);
      this.readFailed(error);
      // With an outbox, a failed outbox write here requeues at once (never a lost delivery).
      await releaseAfterDelay(this.opts, deliveries, 1000).catch((e: unknown) =>
        this.opts.logger.error('release after a failed admission failed', { error: e }),
      );
      return;
    }
    this.capacity.unreserve(deliveries.length - admitted.length);
    for (const a of admitted) this.launch(a);
  }

  private readFailed(error: unknown): void {
    this.counters.readFailures++;
    this.readiness.readFailed();
    // At most one line a second: an outage (or a lost consumer group) must not flood the log.
    if (Date.now() - this.lastReadWarning < 1000) {
      this.quietReadFailures++;
      return;
    }
    this.lastReadWarning = Date.now();
    this.opts.logger.warn('read failed', {
      error,
      consecutive: this.readiness.consecutiveFailures,
      ...(this.quietReadFailures > 0 ? { notLogged: this.quietReadFailures } : {}),
    });
    this.quietReadFailures = 0;
  }

  private lose(a: Attempt<D>): void {
    // A cancel already stored stands (its delivery is only acknowledged); anything else is
    // overridden: an attempt that lost its job writes nothing more.
    if (a.cause === 'lease_lost' || a.cause === 'cancelled') return;
    this.counters.lostLeases++;
    a.cause = undefined;
    abortAttempt(a, 'lease_lost');
  }

  private launch({ delivery, job, checkpoints }: Admitted<D>): void {
    const attempt: Attempt<D> = {
      delivery,
      job,
      checkpoints,
      controller: new AbortController(),
      events: this.events.open(job.id, job.epoch),
      cause: undefined,
      phase: 'running',
      lastRenewedAt: Date.now(),
    };
    this.held.set(delivery.id, attempt);
    this.byJob.set(job.id, attempt);
    this.executing++;
    void this.runAttempt(attempt);
  }

  private async runAttempt(attempt: Attempt<D>): Promise<void> {
    const o = this.opts;
    try {
      await runAttempt(
        {
          database: o.database,
          blobs: o.blobs,
          handlers: o.handlers,
          capabilities: o.consumer.capabilities,
          checkpoints: o.checkpoints,
          checkpointWriter: this.checkpointWriter,
          counters: this.counters,
          unitConcurrency: o.unitConcurrency,
          retryBackoff: o.retryBackoff,
          logger: o.logger,
          terminal: this.terminal,
          executed: () => {
            this.executing--;
            this.capacity.executed();
          },
          lose: (a) => this.lose(a),
        },
        attempt,
      );
    } catch (error) {
      o.logger.error('attempt bookkeeping failed', { error, jobId: attempt.job.id });
    } finally {
      this.held.delete(attempt.delivery.id);
      if (this.byJob.get(attempt.job.id) === attempt) this.byJob.delete(attempt.job.id);
      if (attempt.phase === 'running') {
        this.executing--; // the handler never got to run
        this.capacity.unreserve(1);
      } else {
        this.capacity.settled();
      }
      for (const w of this.heldWaiters.splice(0)) w();
    }
  }

  private async renewRound(): Promise<void> {
    if (this.held.size === 0) return;
    try {
      await renewHeld(
        {
          database: this.opts.database,
          consumer: this.opts.consumer,
          counters: this.counters,
          logger: this.opts.logger,
          leaseMs: this.leaseMs,
        },
        [...this.held.values()],
      );
    } catch (error) {
      this.counters.renewalFailures++;
      this.opts.logger.error('renewal round failed', { error });
    }
  }

  private async sweepRound(graceMs: number): Promise<void> {
    if (this.stopping) return;
    try {
      const kinds = [...new Set(this.opts.handlers.versions.map((v) => v.kind))];
      const swept = await sweepUnroutable({
        database: this.opts.database,
        kinds,
        graceMs,
        servedVersions: this.opts.servedVersions,
        onStored: this.publish,
      });
      this.counters.sweptUnroutable += swept.length;
      if (swept.length > 0)
        this.opts.logger.warn('dead-lettered jobs on unserved versions', { jobIds: swept });
    } catch (error) {
      this.opts.logger.warn('unroutable sweep failed', { error });
    }
  }

  private async drain(deadlineMs: number): Promise<void> {
    const started = Date.now();
    this.readAbort.abort();
    // A read or init that ignores the signal still must not hold the drain past its deadline.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.lifecycle, new Promise((r) => (timer = setTimeout(r, deadlineMs)))]);
    clearTimeout(timer);
    await drainHeld({
      held: () => [...this.held.values()],
      waitForChange: () => new Promise<void>((resolve) => this.heldWaiters.push(resolve)),
      deadline: started + deadlineMs,
      database: this.opts.database,
      consumer: this.opts.consumer,
      logger: this.opts.logger,
      publish: this.publish,
    });
    for (const t of this.timers) t.stop();
    this.events.close();
    await this.opts.consumer.close();
  }
}

// The runtime host: the lifecycle around any `RuntimeConsumer`, so no adapter repeats it. It owns
// init with retry, readiness, the read loop (read batch size apart from the execution limit), batch
// admission, lease renewal (which also carries cancellation), the unroutable-version sweep and
// drain; the attempts themselves run in the `AttemptRunner`. Runtimes differ only through their
// capability flags; nothing here knows a runtime by name.

import type { ProviderLimiter } from '../guard/provider-limiter.js';
import type { StartGate } from './start-gate.js';
import type { Delivery, RuntimeConsumer } from '@sluice/contracts';
import type { Tracer } from '@opentelemetry/api';
import type { BlobStore, SluiceDatabase } from '@sluice/storage';
import type { ResolvedHandlers } from '../attempt/handler-registry.js';
import type { CheckpointStore } from '../attempt/step.js';
import { sweepOrphanAssets } from '../assets/orphan-sweeper.js';
import { sweepStaging } from '../assets/staging-sweeper.js';
import type { WorkerHooks } from '../hooks.js';
import type { WorkerLogger } from '../logger.js';
import {
  createCounters,
  NO_OBSERVATIONS,
  type WorkerMetrics,
  type WorkerObservations,
} from '../metrics.js';
import type { SettledJob } from '../writers/finish-plan.js';
import { admitBatch, type AdmitDeps } from './admit-batch.js';
import { AttemptRunner } from './attempt-runner.js';
import { drainHeld } from './drain-held.js';
import { createJobStateLog } from './log-job-states.js';
import { every, type Periodic } from './periodic.js';
import { createEventPublisher, type PublishEvents } from './publish-events.js';
import { Readiness } from './readiness.js';
import { releaseAfterDelay } from './release-later.js';
import { renewHeld } from './renew-held.js';
import { sweepUnroutable } from './sweep-unroutable.js';
import { Wake } from './wake.js';

export interface RuntimeHostOptions<D extends Delivery> {
  consumer: RuntimeConsumer<D>;
  database: SluiceDatabase;
  blobs?: BlobStore | undefined;
  handlers: ResolvedHandlers;
  /** Attempts executing at once. */
  concurrency: number;
  /** Deliveries asked for per read (default: concurrency, at most 256). */
  readBatch?: number | undefined;
  /**
   * Deliveries held beyond the executing ones, waiting for a slot (default: the read batch). The
   * next batch is read while this one runs, so a slot never waits on a read.
   */
  prefetch?: number | undefined;
  leaseMs?: number | undefined;
  renewEveryMs?: number | undefined;
  /** How long an attempt runs before it writes its start unasked (default 250 ms). */
  lazyStartMs?: number | undefined;
  /** This worker's id: the lease owner written on running jobs. */
  workerId: string;
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
  /** Timing histograms (dispatch→start, job duration, provider calls); none by default. */
  observe?: WorkerObservations | undefined;
  /** Shared provider limits (guard/provider-limiter.ts; none: calls are not limited). */
  limiter?: ProviderLimiter | undefined;
  /** Start limits per kind, tenant and API key (start-gate.ts; none: starts are not limited). */
  gate?: StartGate | undefined;
  /** Spans of attempts and provider calls (default: the global tracer, when registered). */
  tracer?: Tracer | undefined;
  /** Test seams (crash points, injected decisions); `resolveHooks(undefined)` in production. */
  hooks: WorkerHooks;
  onSettled?: ((jobs: readonly SettledJob[]) => void) | undefined;
}

/** Batch admissions in flight at once (each is one read of job rows, no write). */
const MAX_ADMISSIONS = 4;
// Capped at 2 s: a transport back from an outage is read again within about that long (a
// Streams read that hangs is torn down by its own watchdog, so this only spaces fast failures).
const backoff = (n: number) => Math.min(2000, 100 * 2 ** Math.max(0, n - 1));

export class RuntimeHost<D extends Delivery = Delivery> {
  private readonly counters = createCounters();
  private readonly readiness: Readiness;
  private readonly runner: AttemptRunner<D>;
  private readonly readAbort = new AbortController();
  private readonly wake = new Wake(this.readAbort.signal);
  /** Holdings changed: what the drain waits on (never aborted, unlike the read loop's wake). */
  private readonly changes = new Wake(new AbortController().signal);
  private readonly leaseMs: number;
  private readonly readBatch: number;
  private readonly prefetch: number;
  private readonly admitDeps: AdmitDeps<D>;
  /** Deliveries asked for or being admitted: counted against the prefetch before they run. */
  private incoming = 0;
  private lifecycle: Promise<void> | undefined;
  private timers: Periodic[] = [];
  private stopping: Promise<void> | undefined;
  private readonly admissions = new Set<Promise<void>>();
  /** Resolves once the latest admission has handed its attempts over (read order). */
  private admitted: Promise<void> = Promise.resolve();
  private readonly publish: PublishEvents;
  private lastReadWarning = -Infinity;
  private lastReadAt = 0;
  private quietReadFailures = 0;

  constructor(private readonly opts: RuntimeHostOptions<D>) {
    const publish = createEventPublisher(opts.consumer, opts.logger);
    const logStates = createJobStateLog(opts.logger, (jobId) => this.runner.jobOf(jobId));
    this.publish = (events) => {
      logStates(events);
      publish(events);
    };
    this.leaseMs = opts.leaseMs ?? 30_000;
    this.readBatch = Math.max(1, opts.readBatch ?? Math.min(opts.concurrency, 256));
    this.prefetch = Math.max(0, opts.prefetch ?? this.readBatch);
    this.readiness = new Readiness(opts.unreadyAfterReadFailures ?? 3);
    this.runner = new AttemptRunner({
      consumer: opts.consumer,
      database: opts.database,
      blobs: opts.blobs,
      handlers: opts.handlers,
      concurrency: opts.concurrency,
      leaseMs: this.leaseMs,
      workerId: opts.workerId,
      lazyStartMs: opts.lazyStartMs ?? 250,
      unitConcurrency: opts.unitConcurrency,
      checkpoints: opts.checkpoints,
      retryBackoff: opts.retryBackoff,
      limiter: opts.limiter,
      gate: opts.gate,
      counters: this.counters,
      observe: opts.observe ?? NO_OBSERVATIONS,
      tracer: opts.tracer,
      logger: opts.logger,
      hooks: opts.hooks,
      publish: this.publish,
      onSettled: opts.onSettled,
      onChange: () => {
        this.wake.notify();
        this.changes.notify();
      },
    });
    this.admitDeps = {
      database: opts.database,
      consumer: opts.consumer,
      handlers: opts.handlers,
      counters: this.counters,
      logger: opts.logger,
      writer: this.runner.writer,
      workerId: opts.workerId,
      hooks: opts.hooks,
      publish: this.publish,
      isLocal: (jobId) => this.runner.isLocal(jobId),
      fenceLocal: (jobId) => this.runner.fenceLocal(jobId),
    };
  }

  /** Resolves once the runtime is initialised and the read loop runs (or the host stops first). */
  start(): Promise<void> {
    if (!this.lifecycle) {
      this.lifecycle = this.runLifecycle();
      const renewEvery = this.opts.renewEveryMs ?? 10_000;
      this.timers.push(every(renewEvery, () => this.renewRound(), this.periodicFailed));
      const gate = this.opts.gate;
      // Start-limit slots live 3 renewal periods (create-worker.ts): renewed with the leases.
      if (gate) this.timers.push(every(renewEvery, () => gate.renew(), this.periodicFailed));
      const lazy = this.opts.lazyStartMs ?? 250;
      const tickEvery = Math.max(10, Math.min(100, Math.floor(lazy / 4)));
      this.timers.push(
        every(tickEvery, async () => this.runner.tick(Date.now()), this.periodicFailed),
      );
      const grace = this.opts.unroutableGraceMs ?? 60_000;
      const sweepEvery = this.opts.sweepEveryMs ?? Math.max(1000, grace / 4);
      if (sweepEvery > 0)
        this.timers.push(every(sweepEvery, () => this.sweepRound(grace), this.periodicFailed));
      const stagingEvery = this.opts.stagingSweepEveryMs ?? 60_000;
      const blobs = this.opts.blobs;
      if (blobs && stagingEvery > 0) {
        // Staging keys of dead attempts, then final keys whose row never came (ended jobs only).
        const sweep = async () => {
          await sweepStaging({
            database: this.opts.database,
            blobs,
            logger: this.opts.logger,
            counters: this.counters,
            hooks: this.opts.hooks,
          });
          await sweepOrphanAssets({
            database: this.opts.database,
            blobs,
            logger: this.opts.logger,
          });
        };
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
      running: this.runner.executing,
      held: this.runner.held.size,
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
        await this.wake.wait(backoff(++failures));
        continue;
      }
      this.readiness.initialised(true);
      try {
        await this.readLoop();
      } catch (error) {
        // The loop is not meant to end while running: back through init.
        this.opts.logger.error('read loop ended unexpectedly; re-initialising', { error });
        this.readiness.initialised(false);
        await this.wake.wait(backoff(++failures));
      }
    }
    this.readiness.loop(false);
    this.readiness.settleFirst();
  }

  /** Deliveries that may still be asked for: executing + waiting + incoming stay within bounds. */
  private room(): number {
    const { concurrency } = this.opts;
    // Outcomes being stored are bounded too: a slow database must slow the reads down.
    if (this.runner.finishing >= 4 * concurrency + this.readBatch) return 0;
    const held = this.runner.executing + this.runner.queued + this.incoming;
    return Math.min(this.readBatch, concurrency + this.prefetch - held);
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
          const pause =
            backoff(this.readiness.consecutiveFailures) - (Date.now() - this.lastReadAt);
          if (pause > 0) await this.wake.wait(pause);
          if (signal.aborted) break;
        }
        const n = this.room();
        if (n <= 0) {
          await this.wake.wait();
          continue;
        }
        this.incoming += n;
        let deliveries: D[];
        this.lastReadAt = Date.now();
        try {
          deliveries = await consumer.read(n, signal);
        } catch (error) {
          this.incoming -= n;
          if (signal.aborted) break;
          this.readFailed(error);
          continue;
        }
        this.incoming -= n - deliveries.length;
        if (deliveries.length === 0) {
          this.readiness.readSucceeded();
          continue;
        }
        this.counters.claimed += deliveries.length;
        if (signal.aborted) {
          // Read raced with stop: give them back untouched.
          this.incoming -= deliveries.length;
          await consumer
            .release(deliveries, 0)
            .catch((error: unknown) => logger.error('release on stop failed', { error }));
          break;
        }
        // Admission runs while the next read goes out.
        const admission = this.admit(deliveries).finally(() => this.admissions.delete(admission));
        this.admissions.add(admission);
        if (this.admissions.size >= MAX_ADMISSIONS) await Promise.race(this.admissions);
        // Let timers and I/O in: with a synchronous driver (better-sqlite3) every await above
        // resolves as a microtask, and a busy loop would starve renewals and outcome writes.
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    } finally {
      await Promise.allSettled(this.admissions);
      this.readiness.loop(false);
    }
  }

  private async admit(deliveries: D[]): Promise<void> {
    // Admissions overlap (each waits on its own read of job rows, on its own connection) but hand
    // their attempts over in read order: a later batch whose read came back first must not start
    // ahead of an earlier one (a higher-priority job read first would lose its place).
    const previous = this.admitted;
    let handOff!: () => void;
    this.admitted = new Promise<void>((resolve) => (handOff = resolve));
    let pending = deliveries.length;
    try {
      const { attempts, transport } = await admitBatch(this.admitDeps, deliveries);
      await this.opts.hooks.awaitTurn(previous);
      this.readiness.readSucceeded();
      this.runner.admit(attempts);
      this.incoming -= attempts.length;
      pending -= attempts.length;
      // The next batch may start now: this one's acks and releases only bound the prefetch.
      handOff();
      await transport;
    } catch (error) {
      void previous.then(handOff);
      this.readFailed(error);
      // With an outbox, a failed outbox write here requeues at once (never a lost delivery).
      await releaseAfterDelay(this.opts, deliveries, 1000).catch((e: unknown) =>
        this.opts.logger.error('release after a failed admission failed', { error: e }),
      );
    } finally {
      this.incoming -= pending;
      this.wake.notify();
    }
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

  private async renewRound(): Promise<void> {
    if (this.runner.held.size === 0) return;
    try {
      await renewHeld(
        {
          database: this.opts.database,
          consumer: this.opts.consumer,
          counters: this.counters,
          logger: this.opts.logger,
          leaseMs: this.leaseMs,
          hooks: this.opts.hooks,
        },
        [...this.runner.held.values()],
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
    // Admitted attempts that never got a slot go back at once, untouched.
    const unstarted = this.runner.takeWaiting();
    if (unstarted.length > 0) {
      await this.opts.consumer
        .release(
          unstarted.map((a) => a.delivery),
          0,
        )
        .catch((error: unknown) =>
          this.opts.logger.error('giving back waiting deliveries on drain failed', { error }),
        );
    }
    await drainHeld({
      held: () => [...this.runner.held.values()],
      waitForChange: () => this.changes.wait(),
      deadline: started + deadlineMs,
      database: this.opts.database,
      consumer: this.opts.consumer,
      logger: this.opts.logger,
      publish: this.publish,
    });
    for (const t of this.timers) t.stop();
    this.runner.writer.close();
    await this.opts.consumer.close();
  }
}

// The runtime host: the lifecycle around any `RuntimeConsumer`, so every runtime gets the same
// init with retry, readiness, admission, lease renewal, sweeps and drain. It builds the rooms and
// owns the stop; each piece of state has one owner the others ask:
//
// - `Holdings` (holdings.ts): the attempts held and the counts the reads are bounded by;
// - `ReadLoop` (read-loop.ts): init, readiness, reads, batch admission (admit-batch.ts) in order;
// - `AttemptRunner` (attempt-runner.ts): slots → start limits → handler → outcome to the writer;
// - `AttemptWriter` (writers/): every write of running attempts, group-committed; it reports each
//   flush to the `DeliveryFinisher` (delivery-finisher.ts), which tells the transport;
// - the periodic rounds (host-rounds.ts) and the drain (drain-held.ts).
//
// Runtimes differ only through their capability flags; nothing here knows a runtime by name.

import type { ProviderLimiter } from '../guard/provider-limiter.js';
import type { StartGate } from './start-gate.js';
import {
  createJobStateLog,
  type Delivery,
  type JobStateLog,
  type RuntimeConsumer,
} from '@sluice/contracts';
import type { Tracer } from '@opentelemetry/api';
import type { BlobStore, SluiceDatabase } from '@sluice/storage';
import type { ResolvedHandlers } from '../attempt/handler-registry.js';
import type { CheckpointStore } from '../attempt/step.js';
import type { WorkerHooks } from '../hooks.js';
import type { WorkerLogger } from '../logger.js';
import {
  createCounters,
  NO_OBSERVATIONS,
  type WorkerMetrics,
  type WorkerObservations,
} from '../metrics.js';
import { AttemptWriter } from '../writers/attempt-writer.js';
import type { SettledJob } from '../writers/finish-plan.js';
import { AttemptRunner } from './attempt-runner.js';
import { DeliveryFinisher } from './delivery-finisher.js';
import { drainHeld } from './drain-held.js';
import { Holdings } from './holdings.js';
import { startRounds } from './host-rounds.js';
import {
  DEFAULT_DEAD_AFTER_MS,
  DEFAULT_LIVENESS_EVERY_MS,
  startLiveness,
  type Liveness,
} from './liveness.js';
import type { Periodic } from './periodic.js';
import { createEventPublisher, type PublishEvents } from './publish-events.js';
import { ReadLoop } from './read-loop.js';

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
  /** Liveness beat period (default 1 s); see `host/liveness.ts`. */
  livenessEveryMs?: number | undefined;
  /** A worker whose beat is this old is dead and its running jobs are taken (default 5 s). */
  deadAfterMs?: number | undefined;
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
  /** Period of the `info` summary of job state changes (default 10 s; contracts job-state-log.ts). */
  stateSummaryEveryMs?: number | undefined;
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

export class RuntimeHost<D extends Delivery = Delivery> {
  private readonly counters = createCounters();
  /** Aborted by `stop()`: no read, no sweep after it. */
  private readonly stopped = new AbortController();
  private readonly holdings: Holdings<D>;
  private readonly writer: AttemptWriter;
  private readonly runner: AttemptRunner<D>;
  private readonly reads: ReadLoop<D>;
  private readonly publish: PublishEvents;
  private readonly stateLog: JobStateLog;
  private readonly leaseMs: number;
  private timers: Periodic[] | undefined;
  private liveness: Liveness | undefined;
  private stopping: Promise<void> | undefined;

  constructor(private readonly opts: RuntimeHostOptions<D>) {
    const { consumer, database, logger, hooks } = opts;
    const counters = this.counters;
    const stopped = this.stopped.signal;
    this.leaseMs = opts.leaseMs ?? 30_000;
    const readBatch = Math.max(1, opts.readBatch ?? Math.min(opts.concurrency, 256));
    const holdings = new Holdings<D>({
      concurrency: opts.concurrency,
      readBatch,
      prefetch: Math.max(0, opts.prefetch ?? readBatch),
      stopped,
      counters,
    });
    this.holdings = holdings;
    const toOthers = createEventPublisher(consumer, logger);
    const stateLog = createJobStateLog(logger, opts.stateSummaryEveryMs);
    this.stateLog = stateLog;
    const jobOf = (id: string) => holdings.jobOf(id);
    const publish: PublishEvents = (events) => {
      stateLog.log(events, jobOf);
      toOthers(events);
    };
    this.publish = publish;
    const finisher = new DeliveryFinisher<D>({
      consumer,
      database,
      holdings,
      counters,
      logger,
      hooks,
      publish,
      onSettled: opts.onSettled,
    });
    this.writer = new AttemptWriter({
      database,
      logger,
      leaseMs: this.leaseMs,
      owner: opts.workerId,
      build: hooks.buildWrite,
      beforeWrite: hooks.beforeWrite,
      listener: finisher,
    });
    this.runner = new AttemptRunner({
      consumer,
      database,
      blobs: opts.blobs,
      handlers: opts.handlers,
      holdings,
      writer: this.writer,
      finisher,
      lazyStartMs: opts.lazyStartMs ?? 250,
      unitConcurrency: opts.unitConcurrency,
      checkpoints: opts.checkpoints,
      retryBackoff: opts.retryBackoff,
      limiter: opts.limiter,
      gate: opts.gate,
      counters,
      observe: opts.observe ?? NO_OBSERVATIONS,
      tracer: opts.tracer,
      logger,
      hooks,
      publish,
    });
    this.reads = new ReadLoop({
      consumer,
      holdings,
      runner: this.runner,
      admission: {
        database,
        consumer,
        handlers: opts.handlers,
        counters,
        logger,
        writer: this.writer,
        workerId: opts.workerId,
        hooks,
        publish,
        local: holdings,
      },
      stopped,
      unreadyAfterReadFailures: opts.unreadyAfterReadFailures ?? 3,
      counters,
      logger,
      hooks,
    });
  }

  /** Resolves once the runtime is initialised and the read loop runs (or the host stops first). */
  start(): Promise<void> {
    if (!this.timers) {
      const o = this.opts;
      const grace = o.unroutableGraceMs ?? 60_000;
      this.timers = startRounds({
        consumer: o.consumer,
        database: o.database,
        blobs: o.blobs,
        handlers: o.handlers,
        holdings: this.holdings,
        runner: this.runner,
        gate: o.gate,
        leaseMs: this.leaseMs,
        renewEveryMs: o.renewEveryMs ?? 10_000,
        lazyStartMs: o.lazyStartMs ?? 250,
        unroutableGraceMs: grace,
        sweepEveryMs: o.sweepEveryMs ?? Math.max(1000, grace / 4),
        servedVersions: o.servedVersions,
        stagingSweepEveryMs: o.stagingSweepEveryMs ?? 60_000,
        stopped: this.stopped.signal,
        counters: this.counters,
        logger: o.logger,
        hooks: o.hooks,
        publish: this.publish,
      });
      this.liveness = startLiveness({
        database: o.database,
        consumer: o.consumer,
        workerId: o.workerId,
        everyMs: o.livenessEveryMs ?? DEFAULT_LIVENESS_EVERY_MS,
        deadAfterMs: o.deadAfterMs ?? DEFAULT_DEAD_AFTER_MS,
        counters: this.counters,
        logger: o.logger,
      });
    }
    return this.reads.start();
  }

  isReady(): boolean {
    return this.reads.ready && !this.stopping;
  }

  metrics(): WorkerMetrics {
    return {
      ...this.counters,
      running: this.holdings.running.size,
      held: this.holdings.heldCount,
      consecutiveReadFailures: this.reads.consecutiveFailures,
      ready: this.isReady(),
    };
  }

  /** Drain: unready at once, stop reading, let running work finish until the deadline, then give the rest back. */
  stop(opts: { deadlineMs?: number } = {}): Promise<void> {
    this.stopping ??= this.drain(opts.deadlineMs ?? 30_000);
    return this.stopping;
  }

  private async drain(deadlineMs: number): Promise<void> {
    const { consumer, logger } = this.opts;
    const started = Date.now();
    this.stopped.abort();
    // A read or init that ignores the signal still must not hold the drain past its deadline.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.reads.done, new Promise((r) => (timer = setTimeout(r, deadlineMs)))]);
    clearTimeout(timer);
    // Admitted attempts that never got a slot go back at once, untouched.
    const unstarted = this.holdings.takeWaiting();
    if (unstarted.length > 0) {
      await consumer
        .release(
          unstarted.map((a) => a.delivery),
          0,
        )
        .catch((error: unknown) =>
          logger.error('giving back waiting deliveries on drain failed', { error }),
        );
    }
    await drainHeld({
      holdings: this.holdings,
      deadline: started + deadlineMs,
      database: this.opts.database,
      consumer,
      logger,
      publish: this.publish,
    });
    for (const t of this.timers ?? []) t.stop();
    // Beats until the drain is over: a draining worker is alive and its jobs stay its own.
    await this.liveness?.withdraw();
    this.writer.close();
    await consumer.close();
    // The changes since the last summary line, so a stopped worker's log counts every one.
    this.stateLog.close();
  }
}

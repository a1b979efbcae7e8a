// The attempts a worker holds, from admission to stored outcome. Execution slots are taken when
// a handler starts, not when a delivery is read: admitted attempts wait in order for a slot while
// the host keeps reading. A running attempt writes nothing until its first durable write or the
// start delay (`lazyStartMs`); after that its events and checkpoints are written behind as they
// come. Its outcome goes to the shared writer (group commit); the transport is told afterwards,
// grouped per flush, and only what the stored outcome asks.

import type { ProviderLimiter } from '../guard/provider-limiter.js';
import { isTerminalState, type Delivery, type RuntimeConsumer } from '@sluice/contracts';
import type { Tracer } from '@opentelemetry/api';
import {
  loadSnapshots,
  type BlobStore,
  type SluiceDatabase,
  type StoredEvent,
} from '@sluice/storage';
import { abortAttempt, type Attempt } from '../attempt/attempt.js';
import type { Outcome } from '../attempt/decide-outcome.js';
import type { ResolvedHandlers } from '../attempt/handler-registry.js';
import { runAttempt, type RunAttemptDeps } from '../attempt/run-attempt.js';
import type { CheckpointStore } from '../attempt/step.js';
import type { WorkerHooks } from '../hooks.js';
import type { WorkerLogger } from '../logger.js';
import type { WorkerCounters, WorkerObservations } from '../metrics.js';
import { AttemptWriter, type FinishedWrite } from '../writers/attempt-writer.js';
import {
  emptyPlan,
  finishWriteOf,
  planDelivery,
  type SettledJob,
  type StoredOutcome,
  type TransportPlan,
} from '../writers/finish-plan.js';
import { needsOutbox } from './release-later.js';
import { holdOutcome, type GateEntry, type StartGate } from './start-gate.js';

export interface AttemptRunnerOptions<D extends Delivery> {
  consumer: RuntimeConsumer<D>;
  database: SluiceDatabase;
  blobs: BlobStore | undefined;
  handlers: ResolvedHandlers;
  concurrency: number;
  leaseMs: number;
  workerId: string;
  /** How long an attempt runs before it writes its start (and then its events) unasked. */
  lazyStartMs: number;
  unitConcurrency: number | undefined;
  checkpoints: CheckpointStore | undefined;
  retryBackoff: { baseMs?: number; maxMs?: number } | undefined;
  /** Shared provider limits (none: not limited). */
  limiter?: ProviderLimiter | undefined;
  /** Start limits per kind, tenant and API key (none: not limited). */
  gate?: StartGate | undefined;
  counters: WorkerCounters;
  observe: WorkerObservations;
  tracer?: Tracer | undefined;
  logger: WorkerLogger;
  hooks: WorkerHooks;
  publish(events: readonly StoredEvent[]): void;
  onSettled?: ((jobs: readonly SettledJob[]) => void) | undefined;
  /** Slots or holdings changed (the read loop may read again, the drain may end). */
  onChange(): void;
}

export class AttemptRunner<D extends Delivery> {
  /** Every attempt held, by delivery id: waiting, running or finishing. */
  readonly held = new Map<string, Attempt<D>>();
  private readonly byJob = new Map<string, Attempt<D>>();
  private readonly waiting: Attempt<D>[] = [];
  private readonly running = new Set<Attempt<D>>();
  finishing = 0;
  readonly writer: AttemptWriter;
  private readonly outbox: boolean;
  private readonly attemptDeps: RunAttemptDeps<D>;

  constructor(private readonly opts: AttemptRunnerOptions<D>) {
    this.outbox = needsOutbox(opts.consumer);
    this.writer = new AttemptWriter({
      database: opts.database,
      logger: opts.logger,
      leaseMs: opts.leaseMs,
      owner: opts.workerId,
      build: opts.hooks.buildWrite,
      beforeWrite: opts.hooks.beforeWrite,
      onFenced: (attempts) => this.fenced(attempts),
      onStored: (events) => {
        this.opts.counters.eventsWritten += events.length;
        opts.publish(events);
      },
      onFinished: (finished) => void this.finishDeliveries(finished),
    });
    const o = opts;
    // The same for every attempt: built once, not per job (an object and three closures each).
    this.attemptDeps = {
      database: o.database,
      blobs: o.blobs,
      handlers: o.handlers,
      capabilities: o.consumer.capabilities,
      checkpoints: o.checkpoints,
      counters: o.counters,
      observeProviderCall: o.observe.providerCall,
      tracer: o.tracer,
      unitConcurrency: o.unitConcurrency,
      limiter: o.limiter,
      retryBackoff: o.retryBackoff,
      logger: o.logger,
      hooks: o.hooks,
      persist: (x) => this.writer.persist(x),
      queued: (x) => {
        if (x.writeBehind && x.phase === 'running') this.writer.schedule(x);
      },
      lose: (x) => this.lose(x),
    };
  }

  get executing(): number {
    return this.running.size;
  }

  get queued(): number {
    return this.waiting.length;
  }

  /** The job a held attempt runs (for log lines). */
  jobOf(jobId: string): Attempt<D>['job'] | undefined {
    return this.byJob.get(jobId)?.job;
  }

  isLocal(jobId: string): boolean {
    return this.byJob.has(jobId);
  }

  /** A reclaim of a job this process still runs: the old attempt writes nothing more. */
  fenceLocal(jobId: string): void {
    const a = this.byJob.get(jobId);
    if (a) this.lose(a);
  }

  admit(attempts: readonly Attempt<D>[]): void {
    for (const a of attempts) {
      this.held.set(a.delivery.id, a);
      this.byJob.set(a.job.id, a);
      this.waiting.push(a);
    }
    this.pump();
  }

  /** Attempts still waiting for a slot (drain gives them back unstarted). */
  takeWaiting(): Attempt<D>[] {
    const taken = this.waiting.splice(0);
    for (const a of taken) this.forget(a);
    return taken;
  }

  runningAttempts(): Attempt<D>[] {
    return [...this.running];
  }

  /** Attempts running for `lazyStartMs` start writing (their start first, then as they go). */
  tick(now: number): void {
    const due = new Date(now - this.opts.lazyStartMs).toISOString();
    for (const a of this.running) {
      if (a.writeBehind || a.startedAt > due) continue;
      a.writeBehind = true;
      this.writer.schedule(a);
    }
  }

  lose(a: Attempt<D>): void {
    // A cancel already known stands (its delivery is only acknowledged); anything else is
    // overridden: an attempt that lost its job writes nothing more.
    if (a.cause === 'lease_lost' || a.cause === 'cancelled') return;
    this.opts.counters.lostLeases++;
    a.cause = undefined;
    abortAttempt(a, 'lease_lost');
  }

  private pump(): void {
    while (this.running.size < this.opts.concurrency && this.waiting.length > 0) {
      const a = this.waiting.shift() as Attempt<D>;
      if (a.cause) {
        // Lost or cancelled while waiting: it never runs.
        void this.settle(a, a.cause === 'cancelled' ? { kind: 'ack_only' } : { kind: 'none' });
        continue;
      }
      a.phase = 'running';
      const now = Date.now();
      a.startedMs = now;
      a.startedAt = new Date(now).toISOString();
      // A reclaim was never waiting in a queue: only fresh dispatches count.
      if (a.startFrom === 'queued' && a.job.dueAt) {
        this.opts.observe.dispatchToStart(a.job.kind, (now - Date.parse(a.job.dueAt)) / 1000);
      }
      this.running.add(a);
      void this.run(a);
    }
  }

  /**
   * The start limits: room taken (entry), or the hold the attempt stores instead of running
   * (its attempt refunded, the job queued again, `waiting` set).
   */
  private async enter(a: Attempt<D>): Promise<GateEntry | Outcome | undefined> {
    const gate = this.opts.gate;
    if (!gate || a.cause) return undefined;
    const answer = await gate.enter(a.job);
    if (answer.ok) return answer.entry;
    this.opts.counters.limitHolds++;
    return holdOutcome(answer.waiting, answer.retryAfterMs);
  }

  private async run(a: Attempt<D>): Promise<void> {
    const o = this.opts;
    let outcome: Outcome;
    let entry: GateEntry | undefined;
    try {
      const gated = await this.enter(a);
      if (gated && 'kind' in gated) {
        this.running.delete(a);
        this.pump();
        await this.settle(a, gated);
        return;
      }
      entry = gated;
      outcome = await runAttempt(this.attemptDeps, a);
    } catch (error) {
      o.logger.error('attempt bookkeeping failed', { error, jobId: a.job.id });
      outcome = { kind: 'none' };
    } finally {
      // The slots go back once the handler is done (the outcome write needs none of them).
      await entry
        ?.release()
        .catch((error: unknown) =>
          o.logger.error('releasing start-limit slots failed', { error, jobId: a.job.id }),
        );
    }
    o.observe.jobDuration(a.job.kind, outcome.kind, (Date.now() - a.startedMs) / 1000);
    this.running.delete(a);
    this.pump();
    await this.settle(a, outcome);
  }

  /** Stores the outcome (or tells the transport what needs no write), then lets the delivery go. */
  private async settle(a: Attempt<D>, outcome: Outcome): Promise<void> {
    a.phase = 'finishing';
    this.finishing++;
    this.opts.onChange();
    try {
      await this.store(a, outcome);
    } catch (error) {
      // Nothing stored: the delivery is not finished; its lease expires and the job comes back.
      this.opts.logger.error('outcome write failed; leaving the job to lease expiry', {
        error,
        jobId: a.job.id,
      });
    } finally {
      this.finishing--;
      this.forget(a);
      this.opts.onChange();
    }
  }

  private async store(a: Attempt<D>, outcome: Outcome): Promise<void> {
    const { consumer } = this.opts;
    if (outcome.kind === 'none') return;
    if (outcome.kind === 'ack_only') {
      if (!consumer.capabilities.acksWithOutcome) await consumer.ack([a.delivery]);
      this.report([{ jobId: a.job.id, outcome: 'ack_only', state: undefined }]);
      return;
    }
    if (!a.started && a.cause === 'drain' && outcome.kind === 'retry') {
      // Never written: the job is still queued, so giving the delivery back is all there is.
      await consumer.release([a.delivery], 0);
      return;
    }
    await this.opts.hooks.beforeOutcome(() => consumer.ack([a.delivery]));
    this.opts.hooks.at('before-outcome-write');
    await this.writer.finish(a, finishWriteOf(outcome as StoredOutcome, Date.now(), this.outbox));
  }

  private forget(a: Attempt<D>): void {
    this.held.delete(a.delivery.id);
    if (this.byJob.get(a.job.id) === a) this.byJob.delete(a.job.id);
  }

  /** Refused writes: was the job cancelled (ack only) or taken over (write nothing more)? */
  private fenced(attempts: readonly Attempt[]): void {
    const mine = attempts as readonly Attempt<D>[];
    const settled = loadSnapshots(
      this.opts.database,
      mine.map((a) => a.job.id),
    ).then(
      (rows) => {
        for (const a of mine) {
          const row = rows.get(a.job.id);
          if (!row || isTerminalState(row.state)) {
            if (row?.state === 'cancelled') this.opts.counters.cancelled++;
            abortAttempt(a, 'cancelled');
          } else this.lose(a);
        }
      },
      () => {
        for (const a of mine) this.lose(a);
      },
    );
    for (const a of mine) a.fenceSettled = settled;
  }

  /** After a flush: the transport is told what the stored outcomes ask, grouped. */
  private async finishDeliveries(finished: readonly FinishedWrite[]): Promise<void> {
    const { consumer, counters, logger } = this.opts;
    const refused = finished.filter((f) => !f.applied).map((f) => f.attempt.job.id);
    const rows =
      refused.length > 0
        ? await loadSnapshots(this.opts.database, refused).catch(() => new Map())
        : new Map();
    counters.terminalBatches++;
    if (finished.some((f) => f.applied)) this.opts.hooks.at('after-terminal-before-ack');
    const plan: TransportPlan<D> = emptyPlan();
    const settled: SettledJob[] = [];
    for (const f of finished) {
      const a = f.attempt as Attempt<D>;
      const { outcome } = f.finish;
      if (f.applied) {
        settled.push({ jobId: a.job.id, outcome: outcome.kind, state: f.finish.to });
        countOutcome(counters, outcome.kind);
      }
      planDelivery(plan, a.delivery, outcome, f.applied, rows.get(a.job.id), isTerminalState);
    }
    if (!consumer.capabilities.acksWithOutcome) {
      const calls: Promise<unknown>[] = [];
      if (plan.acks.length > 0) calls.push(consumer.ack(plan.acks));
      for (const [ms, ds] of plan.releases) calls.push(consumer.release(ds, ms));
      for (const { delivery, reason } of plan.deadLetters)
        calls.push(consumer.deadLetter(delivery, reason));
      for (const r of await Promise.allSettled(calls)) {
        if (r.status === 'rejected')
          logger.error('finishing deliveries failed after the outcome was stored', {
            error: r.reason,
          });
      }
    }
    this.report(settled);
  }

  private report(settled: SettledJob[]): void {
    if (settled.length === 0 || !this.opts.onSettled) return;
    try {
      this.opts.onSettled(settled);
    } catch (error) {
      this.opts.logger.error('onSettled threw', { error });
    }
  }
}

function countOutcome(counters: WorkerCounters, kind: Outcome['kind']): void {
  const key = (
    {
      succeed: 'succeeded',
      fail: 'failed',
      review: 'reviewed',
      retry: 'retried',
      dead_letter: 'deadLettered',
      stale: 'stale',
    } as const
  )[kind as StoredOutcome['kind']];
  if (key) counters[key]++;
}

// The attempts from admission to stored outcome. Execution slots are taken when a handler starts,
// not when a delivery is read: admitted attempts wait in order for a slot (the holdings keep the
// line and count the slots) while the host keeps reading. A running attempt writes nothing until
// its first durable write or the start delay (`lazyStartMs`); after that its events and
// checkpoints are written behind as they come. Its outcome goes to the shared writer (group
// commit); the delivery finisher tells the transport afterwards, grouped per flush, and only what
// the stored outcome asks.

import type { ProviderLimiter } from '../guard/provider-limiter.js';
import type { Delivery, RuntimeConsumer } from '@sluice/contracts';
import type { Tracer } from '@opentelemetry/api';
import type { BlobStore, SluiceDatabase, StoredEvent, WaitingList } from '@sluice/storage';
import type { Attempt } from '../attempt/attempt.js';
import type { Outcome } from '../attempt/decide-outcome.js';
import type { ResolvedHandlers } from '../attempt/handler-registry.js';
import { runAttempt, type RunAttemptDeps } from '../attempt/run-attempt.js';
import type { CheckpointStore } from '../attempt/step.js';
import type { WorkerHooks } from '../hooks.js';
import type { WorkerLogger } from '../logger.js';
import type { WorkerCounters, WorkerObservations } from '../metrics.js';
import type { AttemptWriter } from '../writers/attempt-writer.js';
import type { StoredOutcome } from '../writers/build-write.js';
import { finishWriteOf } from '../writers/finish-plan.js';
import type { DeliveryFinisher } from './delivery-finisher.js';
import type { Holdings } from './holdings.js';
import { needsOutbox } from './release-later.js';
import { holdOutcome, type GateEntry, type StartGate } from './start-gate.js';

export interface AttemptRunnerOptions<D extends Delivery> {
  consumer: RuntimeConsumer<D>;
  database: SluiceDatabase;
  blobs: BlobStore | undefined;
  handlers: ResolvedHandlers;
  /** The line of admitted attempts and the execution slots. */
  holdings: Holdings<D>;
  /** The one writer of attempts (group commit). */
  writer: AttemptWriter;
  /** Acknowledges what needs no write (a cancel); the writer reports stored outcomes to it. */
  finisher: DeliveryFinisher<D>;
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
  /** Events stored outside the writer (a suspend): logged and sent to the gateways. */
  publish?: ((events: StoredEvent[]) => void) | undefined;
}

export class AttemptRunner<D extends Delivery> {
  private readonly holdings: Holdings<D>;
  private readonly outbox: boolean;
  private readonly attemptDeps: RunAttemptDeps<D>;

  constructor(private readonly opts: AttemptRunnerOptions<D>) {
    this.holdings = opts.holdings;
    this.outbox = needsOutbox(opts.consumer);
    const { writer, holdings } = opts;
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
      persist: (x) => writer.persist(x),
      queued: (x) => {
        if (x.writeBehind && x.phase === 'running') writer.schedule(x);
      },
      lose: (x) => holdings.lose(x),
      publish: o.publish,
    };
  }

  /** An admitted batch, in read order: its attempts wait for slots behind the earlier ones. */
  launch(attempts: readonly Attempt<D>[]): void {
    this.holdings.admit(attempts);
    this.pump();
  }

  /** Attempts running for `lazyStartMs` start writing (their start first, then as they go). */
  tick(now: number): void {
    const due = new Date(now - this.opts.lazyStartMs).toISOString();
    for (const a of this.holdings.running) {
      if (a.writeBehind || a.startedAt > due) continue;
      a.writeBehind = true;
      this.opts.writer.schedule(a);
    }
  }

  private pump(): void {
    for (let a = this.holdings.nextWaiting(); a; a = this.holdings.nextWaiting()) {
      if (a.cause) {
        // Lost or cancelled while waiting: it never runs.
        void this.settle(a, a.cause === 'cancelled' ? { kind: 'ack_only' } : { kind: 'none' });
        continue;
      }
      const now = Date.now();
      a.startedMs = now;
      a.startedAt = new Date(now).toISOString();
      // A reclaim was never waiting in a queue: only fresh dispatches count.
      if (a.startFrom === 'queued' && a.job.dueAt) {
        this.opts.observe.dispatchToStart(a.job.kind, (now - Date.parse(a.job.dueAt)) / 1000);
      }
      this.holdings.startRunning(a);
      void this.run(a);
    }
  }

  /**
   * The start limits: room taken (entry), or the hold the attempt stores instead of running
   * (its attempt refunded, the job queued again, `waiting` set).
   */
  private async enter(
    a: Attempt<D>,
  ): Promise<GateEntry | { hold: Outcome; list: WaitingList | undefined } | undefined> {
    const gate = this.opts.gate;
    if (!gate || a.cause) return undefined;
    // Waiting lists where the claim reads the job row's due time (the table is the queue).
    const answer = await gate.enter(
      a.job,
      undefined,
      this.opts.consumer.capabilities.startsOnClaim,
    );
    if (answer.ok) return answer.entry;
    this.opts.counters.limitHolds++;
    return { hold: holdOutcome(answer.waiting, answer.retryAfterMs), list: answer.list };
  }

  private async run(a: Attempt<D>): Promise<void> {
    const o = this.opts;
    let outcome: Outcome;
    let entry: GateEntry | undefined;
    try {
      const gated = await this.enter(a);
      if (gated && 'hold' in gated) {
        this.holdings.stopRunning(a);
        this.pump();
        await this.settle(a, gated.hold);
        // Stored (or left to lease expiry): a slot freed since the refusal found no waiter.
        if (gated.list)
          await this.opts.gate?.waited(gated.list).catch((error: unknown) =>
            o.logger.error('waking a start-limit waiting list failed', {
              error,
              jobId: a.job.id,
            }),
          );
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
    this.holdings.stopRunning(a);
    this.pump();
    await this.settle(a, outcome);
  }

  /** Stores the outcome (or tells the transport what needs no write), then lets the delivery go. */
  private async settle(a: Attempt<D>, outcome: Outcome): Promise<void> {
    this.holdings.startFinishing(a);
    try {
      await this.store(a, outcome);
    } catch (error) {
      // Nothing stored: the delivery is not finished; its lease expires and the job comes back.
      this.opts.logger.error('outcome write failed; leaving the job to lease expiry', {
        error,
        jobId: a.job.id,
      });
    } finally {
      this.holdings.finished(a);
    }
  }

  private async store(a: Attempt<D>, outcome: Outcome): Promise<void> {
    const { consumer } = this.opts;
    if (outcome.kind === 'none') return;
    if (outcome.kind === 'ack_only') return this.opts.finisher.ackOnly(a);
    // The wait's own transaction stored the suspend: the delivery only needs letting go.
    if (outcome.kind === 'suspended') return this.opts.finisher.ackOnly(a, 'suspended');
    if (!a.started && a.cause === 'drain' && outcome.kind === 'retry') {
      // Never written: the job is still queued, so giving the delivery back is all there is.
      await consumer.release([a.delivery], 0);
      return;
    }
    await this.opts.hooks.beforeOutcome(() => consumer.ack([a.delivery]));
    this.opts.hooks.at('before-outcome-write');
    const write = finishWriteOf(outcome as StoredOutcome, Date.now(), this.outbox);
    await this.opts.writer.finish(a, write);
  }
}

// Terminal writes by group commit: attempts that finish close together share ONE transaction
// (their last queued events, then their fenced compare-and-set transitions, in bulk: see
// terminal-batch.ts). Runtimes whose queue is in the job database (`acksInTransaction`) delete
// the finished queue rows in that same transaction, after the outcome; the others are told after
// it commits, in ONE `ack` call (plus grouped releases for retries and dead-letters). A crash
// between the commit and the ack means a redelivery that finds the job finished and only
// acknowledges it.

import type { Delivery, RuntimeConsumer } from '@sluice/contracts';
import {
  isoIn,
  type AttemptEvent,
  type SluiceDatabase,
  type TransitionRequest,
} from '@sluice/storage';
import type { Attempt } from '../attempt/attempt.js';
import { crashpoint } from '../crashpoint.js';
import type { Outcome } from '../attempt/decide-outcome.js';
import type { WorkerLogger } from '../logger.js';
import type { WorkerCounters } from '../metrics.js';
import type { PublishEvents } from '../host/publish-events.js';
import { planFinish, type FinishPlan, type SettledJob, type Written } from './finish-plan.js';
import { needsOutbox } from '../host/release-later.js';
import { writeTerminalBatch, type TerminalEntry } from './terminal-batch.js';
import { seededBug } from '../testing/seeded-bug.js';

export interface Finished<D extends Delivery> {
  attempt: Attempt<D>;
  outcome: Outcome;
  /** Events the attempt queued that are not stored yet: written before the transition. */
  events: AttemptEvent[];
}

export type { SettledJob } from './finish-plan.js';

export interface TerminalWriterOptions<D extends Delivery> {
  database: SluiceDatabase;
  consumer: RuntimeConsumer<D>;
  counters: WorkerCounters;
  logger: WorkerLogger;
  onSettled?: ((jobs: readonly SettledJob[]) => void) | undefined;
  /** Retries of a failed terminal transaction before its deliveries are left to expire. */
  retryDelaysMs?: readonly number[];
  /** Committed events, for runtimes that carry them to other processes. */
  publish?: PublishEvents | undefined;
}

type Item<D extends Delivery> = Finished<D> & { done: () => void };
type Request = TransitionRequest & { epoch: number };

function requestFor(attempt: Attempt, outcome: Outcome, now: number): Request | undefined {
  const base = { id: attempt.job.id, epoch: attempt.job.epoch };
  switch (outcome.kind) {
    case 'succeed':
      return { ...base, event: 'succeed', output: outcome.output, error: null };
    case 'fail':
      return { ...base, event: 'fail', error: outcome.error };
    case 'review':
      return {
        ...base,
        event: 'review',
        error: outcome.error,
        reason: outcome.reason,
        unitKey: outcome.unitKey,
        provider: outcome.provider,
      };
    case 'retry':
      return {
        ...base,
        event: 'retry',
        error: outcome.error,
        runAfter: isoIn(outcome.delayMs, now),
        ...(outcome.reason ? { reason: outcome.reason } : {}),
      };
    case 'dead_letter':
      return { ...base, event: 'dead_letter', error: outcome.error, reason: outcome.reason };
    case 'stale':
      return { ...base, event: 'stale', error: outcome.error, reason: outcome.reason };
    case 'ack_only':
    case 'none':
      return undefined;
  }
}

const COUNTER: Partial<Record<Outcome['kind'], keyof WorkerCounters>> = {
  succeed: 'succeeded',
  fail: 'failed',
  review: 'reviewed',
  retry: 'retried',
  dead_letter: 'deadLettered',
  stale: 'stale',
};

export class TerminalWriter<D extends Delivery> {
  private queue: Item<D>[] = [];
  private flushing = false;

  constructor(private readonly opts: TerminalWriterOptions<D>) {}

  /** Resolves once the outcome is stored and the transport told (or given up on, and logged). */
  submit(finished: Finished<D>): Promise<void> {
    return new Promise<void>((done) => {
      this.queue.push({ ...finished, done });
      if (!this.flushing) {
        this.flushing = true;
        setImmediate(() => void this.drainQueue());
      }
    });
  }

  private async drainQueue(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0);
        try {
          await this.flush(batch);
        } catch (error) {
          // A bug, not a database failure (those are handled in flush): keep writing later batches.
          this.opts.logger.error('terminal flush failed', { error });
        } finally {
          for (const item of batch) item.done();
        }
      }
    } finally {
      this.flushing = false;
    }
  }

  /** The terminal transaction (retried), with the deliveries it already acknowledged in it. */
  private async write(batch: readonly Item<D>[], now: number): Promise<FinishPlan<D>> {
    const { consumer } = this.opts;
    const delays = this.opts.retryDelaysMs ?? [100, 500, 2000];
    // Retries with a delay come back through an outbox row written with the retry itself
    // (runtimes whose queue is outside this database; see release-later.ts).
    const outbox = needsOutbox(consumer);
    const ackInTx = consumer.capabilities.acksInTransaction
      ? consumer.ackInTransaction?.bind(consumer)
      : undefined;
    const items: Item<D>[] = [];
    const entries: TerminalEntry[] = [];
    for (const item of batch) {
      const request = requestFor(item.attempt, item.outcome, now);
      if (!request) continue;
      items.push(item);
      entries.push({
        request,
        events: item.events,
        outboxDelayMs: outbox && item.outcome.kind === 'retry' ? item.outcome.delayMs : undefined,
      });
    }
    for (let i = 0; ; i++) {
      try {
        const { plan, committed } = await this.opts.database.transaction(async (tx) => {
          const r = await writeTerminalBatch(tx, entries, now);
          const plan = planFinish(
            batch,
            new Map(items.map((item, k) => [item, r.written[k] as Written])),
          );
          // The queue is in this database: its rows go in this transaction, after the outcome
          // they finish (a crash before the commit loses both, after it neither).
          if (ackInTx && plan.acks.length > 0) {
            await ackInTx(plan.acks, tx);
            plan.acks = [];
          }
          return { plan, committed: r.committed };
        });
        this.opts.publish?.(committed);
        return plan;
      } catch (error) {
        this.opts.counters.terminalWriteFailures++;
        if (i >= delays.length) throw error;
        this.opts.logger.warn('terminal transaction failed; retrying', {
          error,
          jobs: batch.length,
        });
        await new Promise((r) => setTimeout(r, delays[i]));
      }
    }
  }

  private async flush(batch: readonly Item<D>[]): Promise<void> {
    const { consumer, counters, logger } = this.opts;
    const now = Date.now();
    if (seededBug('ack-before-terminal')) {
      // Seeded bug: the deliveries are finished first; a crash here loses the outcome.
      await consumer
        .ack(batch.filter((b) => b.outcome.kind !== 'none').map((b) => b.attempt.delivery))
        .catch(() => {});
      crashpoint('after-terminal-before-ack');
    }
    let plan: FinishPlan<D>;
    try {
      plan = batch.some((b) => requestFor(b.attempt, b.outcome, now))
        ? await this.write(batch, now)
        : planFinish(batch, new Map());
    } catch (error) {
      // Nothing stored: the deliveries are not finished, their leases expire and the jobs come
      // back to a worker. Logged here because no caller can store it.
      logger.error('terminal transaction failed; leaving the jobs to lease expiry', {
        error,
        jobIds: batch.map((b) => b.attempt.job.id),
      });
      return;
    }
    counters.terminalBatches++;
    crashpoint('after-terminal-before-ack');

    const { acks, releases, deadLetters, settled } = plan;
    for (const s of settled) {
      const counter = COUNTER[s.outcome];
      if (counter) counters[counter]++;
    }
    const calls: Promise<unknown>[] = [];
    if (acks.length > 0) calls.push(consumer.ack(acks));
    for (const [ms, ds] of releases) calls.push(consumer.release(ds, ms));
    for (const d of deadLetters) calls.push(consumer.deadLetter(d, 'MAX_ATTEMPTS'));
    for (const r of await Promise.allSettled(calls)) {
      if (r.status === 'rejected')
        logger.error('finishing deliveries failed after the outcome was stored', {
          error: r.reason,
        });
    }
    if (settled.length > 0 && this.opts.onSettled) {
      try {
        this.opts.onSettled(settled);
      } catch (error) {
        logger.error('onSettled threw', { error });
      }
    }
  }
}

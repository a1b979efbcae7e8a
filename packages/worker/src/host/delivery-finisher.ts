// What follows a flush of the attempt writer: the transport is told what the stored outcomes ask
// (ack, release after the retry's delay, dead letter), grouped per flush and never before the
// commit; a write refused by its fence is resolved (the job was cancelled: ack only; it was taken
// over: the attempt lost its job and writes nothing more); committed events are counted and
// published; the settled jobs are reported to `onSettled`. The writer reports to it, and nothing
// reports back: a lost attempt is the holdings' to mark.

import { isTerminalState, type Delivery, type RuntimeConsumer } from '@sluice/contracts';
import { loadSnapshots, type SluiceDatabase, type StoredEvent } from '@sluice/storage';
import { abortAttempt, type Attempt } from '../attempt/attempt.js';
import type { Outcome } from '../attempt/decide-outcome.js';
import type { WorkerHooks } from '../hooks.js';
import type { WorkerLogger } from '../logger.js';
import type { WorkerCounters } from '../metrics.js';
import type { FinishedWrite, FlushListener } from '../writers/attempt-writer.js';
import type { StoredOutcome } from '../writers/build-write.js';
import {
  emptyPlan,
  planDelivery,
  type SettledJob,
  type TransportPlan,
} from '../writers/finish-plan.js';
import type { Holdings } from './holdings.js';
import type { PublishEvents } from './publish-events.js';

export interface DeliveryFinisherOptions<D extends Delivery> {
  consumer: RuntimeConsumer<D>;
  database: SluiceDatabase;
  holdings: Holdings<D>;
  counters: WorkerCounters;
  logger: WorkerLogger;
  hooks: WorkerHooks;
  publish: PublishEvents;
  onSettled?: ((jobs: readonly SettledJob[]) => void) | undefined;
}

export class DeliveryFinisher<D extends Delivery> implements FlushListener {
  constructor(private readonly opts: DeliveryFinisherOptions<D>) {}

  stored(events: StoredEvent[]): void {
    this.opts.counters.eventsWritten += events.length;
    this.opts.publish(events);
  }

  /** Refused writes: was the job cancelled (ack only) or taken over (write nothing more)? */
  fenced(attempts: readonly Attempt[]): void {
    const mine = attempts as readonly Attempt<D>[];
    const { holdings, counters } = this.opts;
    const settled = loadSnapshots(
      this.opts.database,
      mine.map((a) => a.job.id),
    ).then(
      (rows) => {
        for (const a of mine) {
          const row = rows.get(a.job.id);
          if (!row || isTerminalState(row.state)) {
            if (row?.state === 'cancelled') counters.cancelled++;
            abortAttempt(a, 'cancelled');
          } else holdings.lose(a);
        }
      },
      () => {
        for (const a of mine) holdings.lose(a);
      },
    );
    for (const a of mine) a.fenceSettled = settled;
  }

  finished(finished: readonly FinishedWrite[]): void {
    void this.finishDeliveries(finished);
  }

  /**
   * A delivery whose outcome needs no write (a cancel, or a suspend its wait already stored):
   * acknowledged (unless the write is).
   */
  async ackOnly(a: Attempt<D>, outcome: 'ack_only' | 'suspended' = 'ack_only'): Promise<void> {
    const { consumer } = this.opts;
    if (!consumer.capabilities.acksWithOutcome) await consumer.ack([a.delivery]);
    this.report([
      { jobId: a.job.id, outcome, state: outcome === 'suspended' ? 'waiting' : undefined },
    ]);
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

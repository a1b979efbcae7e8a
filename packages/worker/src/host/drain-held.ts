// The end of a drain: running work gets until shortly before the deadline to finish by itself;
// then its signals are aborted (an aborted attempt is written back as `retry` and its delivery
// released, through the normal terminal path); whatever still has not settled at the deadline is
// given back here, and its late completion will write nothing.

import { isTerminalState, type Delivery, type RuntimeConsumer } from '@sluice/contracts';
import { isoNow, transitionJob, type SluiceDatabase } from '@sluice/storage';
import { abortAttempt, type Attempt } from '../attempt/attempt.js';
import type { WorkerLogger } from '../logger.js';
import type { Holdings } from './holdings.js';
import type { PublishEvents } from './publish-events.js';

export interface DrainHeldOptions<D extends Delivery> {
  /** The attempts held, and a wait that ends when they change. */
  holdings: Pick<Holdings<D>, 'held' | 'waitForChange'>;
  /** Epoch ms by which everything is finished or given back. */
  deadline: number;
  database: SluiceDatabase;
  consumer: RuntimeConsumer<D>;
  logger: WorkerLogger;
  /** Committed events, for runtimes that carry them to other processes. */
  publish?: PublishEvents | undefined;
}

export interface DrainReport {
  /** Attempts that had to be aborted. */
  aborted: number;
  /** Attempts given back without settling (their code ignored the signal). */
  forced: number;
}

async function settleUntil<D extends Delivery>(
  opts: DrainHeldOptions<D>,
  until: number,
): Promise<void> {
  while (opts.holdings.held().length > 0) {
    const left = until - Date.now();
    if (left <= 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      opts.holdings.waitForChange(),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, left))),
    ]);
    clearTimeout(timer);
  }
}

export async function drainHeld<D extends Delivery>(
  opts: DrainHeldOptions<D>,
): Promise<DrainReport> {
  const total = Math.max(0, opts.deadline - Date.now());
  // Leave a slice of the deadline for aborted attempts to write their retry.
  const grace = Math.min(1000, total / 4);
  await settleUntil(opts, opts.deadline - grace);
  const running = opts.holdings.held().filter((a) => a.phase !== 'finishing' && !a.cause);
  for (const a of running) abortAttempt(a, 'drain');
  await settleUntil(opts, opts.deadline);

  const left = opts.holdings.held();
  if (left.length === 0) return { aborted: running.length, forced: 0 };
  opts.logger.warn('drain deadline passed; giving back attempts that ignored their signal', {
    jobIds: left.map((a) => a.job.id),
  });
  const giveBack = left.filter((a) => a.cause !== 'lease_lost' && a.cause !== 'cancelled');
  const acks = left.filter((a) => a.cause === 'cancelled').map((a) => a.delivery);
  // Never written (lazy start): the job is still queued, so the delivery alone goes back.
  const unstarted = giveBack.filter((a) => !a.started).map((a) => a.delivery);
  const written = giveBack.filter((a) => a.started);
  // From here on their own completion writes nothing.
  for (const a of left) a.cause = 'lease_lost';
  const now = Date.now();
  const results = await opts.database.transaction(async (tx) => {
    const out = [];
    for (const a of written) {
      out.push(
        await transitionJob(
          tx,
          {
            id: a.job.id,
            event: 'retry',
            epoch: a.job.epoch,
            reason: 'DRAINED',
            runAfter: isoNow(now),
            error: {
              kind: 'sluice',
              code: 'UNAVAILABLE',
              message: 'the worker stopped before the attempt finished',
            },
          },
          now,
        ),
      );
    }
    return out;
  });
  opts.publish?.(results.flatMap((r) => (r.ok ? [r.event] : [])));
  const release: D[] = [...unstarted];
  results.forEach((r, i) => {
    const a = written[i] as Attempt<D>;
    if (r.ok) release.push(a.delivery);
    else if (!r.job || isTerminalState(r.job.state)) acks.push(a.delivery);
  });
  const calls = [];
  if (release.length > 0) calls.push(opts.consumer.release(release, 0));
  if (acks.length > 0) calls.push(opts.consumer.ack(acks));
  for (const r of await Promise.allSettled(calls)) {
    if (r.status === 'rejected')
      opts.logger.error('giving back deliveries on drain failed', { error: r.reason });
  }
  return { aborted: running.length, forced: left.length };
}

// One renewal round for every delivery this worker holds: the transport renews the claims and the
// database says which attempts still own a running job, in one go. A lost claim, or a job that
// is no longer running at this attempt's epoch, aborts the attempt; a cancel is told apart so its
// delivery is acknowledged. Cancellation reaches a running job through this path: the round
// already reads every held job's row, so a cancel costs no second polling loop. A lost lease overrides any earlier cause except
// `cancelled`: an attempt being drained that loses its claim writes nothing and gives nothing back
// (another holder has the job; its `retry` would only be fenced and its release is not its own).

import { isTerminalState, type Delivery, type RuntimeConsumer } from '@sluice/contracts';
import { getJobsByIds, type SluiceDatabase } from '@sluice/storage';
import type { WorkerHooks } from '../hooks.js';
import { abortAttempt, type Attempt } from '../attempt/attempt.js';
import type { WorkerLogger } from '../logger.js';
import type { WorkerCounters } from '../metrics.js';

export interface RenewDeps<D extends Delivery> {
  database: SluiceDatabase;
  consumer: RuntimeConsumer<D>;
  counters: WorkerCounters;
  logger: WorkerLogger;
  /** A claim not confirmed for this long is treated as lost. */
  leaseMs: number;
  /** Test seams; `extendLeases` renews the job-row leases (by job AND epoch). */
  hooks: WorkerHooks;
}

export async function renewHeld<D extends Delivery>(
  deps: RenewDeps<D>,
  held: readonly Attempt<D>[],
): Promise<void> {
  const { counters, logger } = deps;
  const live = held.filter((a) => a.cause !== 'lease_lost');
  if (live.length === 0) return;
  // Finishing attempts keep their claim; their own outcome write is fenced, so skip the check.
  // Attempts that have not started (lazy start) hold nothing in the database yet: their first
  // write is fenced by the row as they read it.
  const checked = live.filter((a) => a.phase !== 'finishing' && a.started && !a.fenced && !a.cause);
  const now = Date.now();
  const [renewed, owned] = await Promise.allSettled([
    deps.consumer.renew(live.map((a) => a.delivery)),
    // Renews each attempt's database lease and says which still own their job, in one statement.
    deps.hooks.extendLeases(
      deps.database.db,
      checked.map((a) => ({ id: a.job.id, epoch: a.job.epoch })),
      deps.leaseMs,
      now,
    ),
  ]);

  const lose = (a: Attempt<D>) => {
    if (a.cause === 'lease_lost' || a.cause === 'cancelled') return;
    counters.lostLeases++;
    // Already aborted (drain): its signal fired; the cause its outcome is decided by changes.
    if (a.cause) a.cause = 'lease_lost';
    else abortAttempt(a, 'lease_lost');
  };

  if (renewed.status === 'fulfilled') {
    renewed.value.forEach((outcome, i) => {
      const a = live[i] as Attempt<D>;
      if (outcome === 'renewed') {
        counters.renewals++;
        a.lastRenewedAt = now;
      } else {
        lose(a);
      }
    });
  } else {
    counters.renewalFailures++;
    logger.warn('lease renewal failed', { error: renewed.reason, held: live.length });
    for (const a of live) if (now - a.lastRenewedAt >= deps.leaseMs) lose(a);
  }

  if (owned.status === 'rejected') {
    counters.renewalFailures++;
    logger.warn('ownership check failed', { error: owned.reason });
    return;
  }
  const gone = checked.filter((a) => !owned.value.has(a.job.id) && !a.cause);
  if (gone.length === 0) return;
  let rows;
  try {
    rows = await getJobsByIds(
      deps.database.db,
      gone.map((a) => a.job.id),
    );
  } catch (error) {
    counters.renewalFailures++;
    logger.warn('loading jobs that left running failed', { error });
    return;
  }
  for (const a of gone) {
    const row = rows.get(a.job.id);
    if (!row || isTerminalState(row.state)) {
      // Cancelled (or finished by someone else, or deleted): the stored state stands; only ack.
      if (row?.state === 'cancelled') counters.cancelled++;
      abortAttempt(a, 'cancelled');
    } else {
      // Running at another epoch (reclaimed) or back in the queue: another attempt's job now.
      lose(a);
    }
  }
}

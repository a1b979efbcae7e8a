// Giving deliveries back for later on a runtime whose queue is not in the job database (a
// transport without `dispatchesInTransaction`): the transport has no delay, so the delivery is only acknowledged, and the job comes
// back through an outbox row due at `now + delayMs` that the gateway's reconciler dispatches.
// The row is written first: if that fails, the delivery is requeued at once instead (never lost).
// Runtimes that dispatch in the job database (embedded) release with their own delay, unchanged.

import type { Delivery, RuntimeConsumer } from '@sluice/contracts';
import { addToOutbox, isoIn, type Db, type SluiceDatabase } from '@sluice/storage';
import type { WorkerLogger } from '../logger.js';

/** True when a delayed release needs an outbox row to bring the job back. */
export function needsOutbox(consumer: RuntimeConsumer<Delivery>): boolean {
  return !consumer.capabilities.dispatchesInTransaction;
}

/** Due times this close to the row's creation still count as a retry's, not an accept's. */
const MIN_LEAD_MS = 50;

/**
 * Outbox rows for jobs released with a delay, inside the caller's transaction. The due time is
 * kept clearly after the row's creation time: the reconciler holds rows whose due time is not
 * later than their creation for a grace period (a fresh accept's own dispatch is still coming).
 */
export async function addRetryOutbox(
  tx: Db,
  jobIds: readonly string[],
  delayMs: number,
  now = Date.now(),
): Promise<void> {
  if (delayMs <= 0 || jobIds.length === 0) return;
  const due = Math.max(now + delayMs, Date.now() + MIN_LEAD_MS);
  await addToOutbox(tx, jobIds, isoIn(due - now, now));
}

export async function releaseAfterDelay<D extends Delivery>(
  deps: { database: SluiceDatabase; consumer: RuntimeConsumer<D>; logger: WorkerLogger },
  deliveries: readonly D[],
  delayMs: number,
): Promise<void> {
  const { consumer } = deps;
  if (deliveries.length === 0) return;
  if (delayMs <= 0 || !needsOutbox(consumer)) return consumer.release(deliveries, delayMs);
  const ids = [...new Set(deliveries.flatMap((d) => (d.pointer ? [d.pointer.jobId] : [])))];
  try {
    await addRetryOutbox(deps.database.db, ids, delayMs);
  } catch (error) {
    deps.logger.warn('outbox row for a delayed release failed; requeueing now', {
      error,
      jobIds: ids,
    });
    return consumer.release(deliveries, 0);
  }
  return consumer.release(deliveries, delayMs);
}

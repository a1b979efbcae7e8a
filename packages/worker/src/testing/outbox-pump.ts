// Stands in for the gateway's reconciler in the tests of a runtime whose dispatch half is the
// gateway's (Streams, NATS): dispatches due outbox rows of unfinished jobs (worker retries with a
// delay come back through one), one pass at a time, then removes the rows it handled. Test
// scaffolding, not a reconciler.

import { isTerminalState, type MessagePointer } from '@sluice/contracts';
import { getJobsByIds, isoNow, type SluiceDatabase } from '@sluice/storage';

export type Dispatch = (pointers: readonly MessagePointer[]) => Promise<unknown>;

/** Dispatches due outbox rows of unfinished jobs, then removes the rows it handled. */
export async function pumpOutbox(database: SluiceDatabase, dispatch: Dispatch): Promise<number> {
  const now = isoNow();
  const rows = await database.db
    .selectFrom('outbox')
    .select('job_id')
    .where('due_at', '<=', now)
    .orderBy('due_at')
    .limit(500)
    .execute();
  if (rows.length === 0) return 0;
  const jobs = await getJobsByIds(
    database.db,
    rows.map((r) => r.job_id),
  );
  // The priority rides along as the reconciler's does: a runtime that routes by it needs it.
  const pointers = [...jobs.values()]
    .filter((j) => !isTerminalState(j.state))
    .map((j) => ({
      jobId: j.id,
      kind: j.kind,
      version: j.version,
      tenantId: j.tenantId,
      priority: j.priority,
    }));
  await dispatch(pointers);
  // Only rows due when the pass began: a retry re-written since keeps its row.
  await database.db
    .deleteFrom('outbox')
    .where(
      'job_id',
      'in',
      rows.map((r) => r.job_id),
    )
    .where('due_at', '<=', now)
    .execute();
  return pointers.length;
}

/**
 * Pumps the outbox every `everyMs`, one pass at a time: overlapping passes on a loaded machine
 * would dispatch one job twice. Returns the timer.
 */
export function startOutboxPump(
  database: SluiceDatabase,
  dispatch: Dispatch,
  everyMs: number,
): NodeJS.Timeout {
  let pumping = false;
  return setInterval(() => {
    if (pumping) return;
    pumping = true;
    pumpOutbox(database, dispatch)
      .catch(() => {})
      .finally(() => (pumping = false));
  }, everyMs);
}

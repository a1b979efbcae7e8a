// Stands in for the gateway's reconciler in consumer tests: dispatches due outbox rows of
// unfinished jobs (worker retries with a delay come back through one), one pass at a time, then
// removes the rows it handled. Test scaffolding, not a reconciler.

import { isTerminalState, type MessagePointer } from '@sluice/contracts';
import { getJobsByIds, isoNow, type SluiceDatabase } from '@sluice/storage';

export async function pumpOutbox(
  database: SluiceDatabase,
  dispatch: (pointers: readonly MessagePointer[]) => Promise<unknown>,
): Promise<number> {
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
  const pointers = [...jobs.values()]
    .filter((j) => !isTerminalState(j.state))
    .map((j) => ({ jobId: j.id, kind: j.kind, version: j.version, tenantId: j.tenantId }));
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

export function startOutboxPump(
  database: SluiceDatabase,
  dispatch: (pointers: readonly MessagePointer[]) => Promise<unknown>,
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

// Jobs to dispatch to a runtime whose queue is not in this database (Valkey Streams): written in
// the accept transaction (or with a retry's due time), removed once the pointer is in the stream.
// The reconciler dispatches whatever a crash left here.

import type { Db } from '../database.js';
import { isoNow } from '../json.js';

export async function addToOutbox(
  tx: Db,
  jobIds: readonly string[],
  dueAt?: string,
): Promise<void> {
  if (jobIds.length === 0) return;
  const at = isoNow();
  await tx
    .insertInto('outbox')
    .values(jobIds.map((id) => ({ job_id: id, due_at: dueAt ?? at, created_at: at })))
    .onConflict((oc) =>
      oc.column('job_id').doUpdateSet((eb) => ({ due_at: eb.ref('excluded.due_at') })),
    )
    .execute();
}

export async function removeFromOutbox(db: Db, jobIds: readonly string[]): Promise<void> {
  if (jobIds.length === 0) return;
  await db.deleteFrom('outbox').where('job_id', 'in', jobIds).execute();
}

/** Job ids due now (or before `nowIso`), oldest first. */
export async function dueOutbox(db: Db, nowIso: string, limit = 500): Promise<string[]> {
  const rows = await db
    .selectFrom('outbox')
    .select('job_id')
    .where('due_at', '<=', nowIso)
    .orderBy('due_at')
    .limit(limit)
    .execute();
  return rows.map((r) => r.job_id);
}

// Jobs to dispatch to a runtime whose queue is not in this database (Valkey Streams): written in
// the accept transaction (or with a retry's due time), removed once the pointer is in the stream.
// The reconciler dispatches whatever a crash left here.

import type { Db } from '../database.js';
import { rowsPerStatement } from '../dialect/storage-dialect.js';
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
  const per = rowsPerStatement(db, jobIds.length, 1);
  for (let i = 0; i < jobIds.length; i += per)
    await db
      .deleteFrom('outbox')
      .where('job_id', 'in', jobIds.slice(i, i + per))
      .execute();
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

// Compare-and-set deletion on the due time: a worker that re-writes a job's row for a retry (an
// upsert with a later `due_at`) between a dispatch and its delete keeps its row, or that retry
// would be lost until the slow sweep.

export interface OutboxRow {
  jobId: string;
  dueAt: string;
}

/**
 * Outbox rows due now. A fresh accept row (`due_at` = `created_at`) is left to its own post-commit
 * dispatch for `graceMs`; rows written with a later due time (worker retries) are due at once.
 */
export async function dueOutboxRows(
  db: Db,
  now: number,
  graceMs: number,
  limit: number,
): Promise<OutboxRow[]> {
  const nowIso = isoNow(now);
  const freshBefore = isoNow(now - graceMs);
  const rows = await db
    .selectFrom('outbox')
    .select(['job_id', 'due_at'])
    .where('due_at', '<=', nowIso)
    .where((eb) =>
      eb.or([eb('due_at', '>', eb.ref('created_at')), eb('created_at', '<=', freshBefore)]),
    )
    .orderBy('due_at')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ jobId: r.job_id, dueAt: r.due_at }));
}

/** Deletes exactly these rows (job id and due time both unchanged). */
export async function deleteOutboxRows(db: Db, rows: readonly OutboxRow[]): Promise<void> {
  const per = rowsPerStatement(db, 400, 2);
  for (let i = 0; i < rows.length; i += per) {
    const chunk = rows.slice(i, i + per);
    await db
      .deleteFrom('outbox')
      .where(({ eb, refTuple, tuple }) =>
        eb(
          refTuple('job_id', 'due_at'),
          'in',
          chunk.map((r) => tuple(r.jobId, r.dueAt)),
        ),
      )
      .execute();
  }
}

/**
 * After a successful dispatch: deletes the rows of these jobs that were due when the dispatch
 * began. A row re-written later (a retry's future due time) stays.
 */
export async function deleteDispatchedOutbox(
  db: Db,
  jobIds: readonly string[],
  dispatchedAtIso: string,
): Promise<void> {
  const per = rowsPerStatement(db, 400, 1, 1);
  for (let i = 0; i < jobIds.length; i += per) {
    await db
      .deleteFrom('outbox')
      .where('job_id', 'in', jobIds.slice(i, i + per))
      .where('due_at', '<=', dispatchedAtIso)
      .execute();
  }
}

export async function outboxDepth(db: Db): Promise<number> {
  const row = await db
    .selectFrom('outbox')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

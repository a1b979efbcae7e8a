// Queries the reconciler and the post-commit dispatch need beyond @sluice/storage (candidates to
// move there). Outbox rows are deleted compare-and-set on their due time: a worker that re-writes
// a job's row for a retry (upsert with a later `due_at`) between our XADD and our delete must keep
// its row, or that retry would be lost until the slow sweep.

import type { JobState } from '@sluice/contracts';
import type { Db } from '@sluice/storage';
import { isoNow } from '@sluice/storage';

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
  for (let i = 0; i < rows.length; i += 400) {
    const chunk = rows.slice(i, i + 400);
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
  for (let i = 0; i < jobIds.length; i += 400) {
    await db
      .deleteFrom('outbox')
      .where('job_id', 'in', jobIds.slice(i, i + 400))
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

export interface DispatchableJob {
  id: string;
  tenantId: string;
  kind: string;
  version: string;
  state: JobState;
}

const NON_TERMINAL: JobState[] = ['accepted', 'queued', 'running'];

function toDispatchable(r: {
  id: string;
  tenant_id: string;
  kind: string;
  version: string;
  state: string;
}): DispatchableJob {
  return {
    id: r.id,
    tenantId: r.tenant_id,
    kind: r.kind,
    version: r.version,
    state: r.state as JobState,
  };
}

/** One page of every non-terminal job, by id (the full re-dispatch after a Redis data loss). */
export async function nonTerminalJobsPage(
  db: Db,
  afterId: string,
  limit: number,
): Promise<DispatchableJob[]> {
  const rows = await db
    .selectFrom('jobs')
    .select(['id', 'tenant_id', 'kind', 'version', 'state'])
    .where('state', 'in', NON_TERMINAL)
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map(toDispatchable);
}

/**
 * One page of jobs that look forgotten by the transport: accepted or queued and untouched (and
 * due) since `quietBeforeIso`, or running with a lease that passed before `leaseBeforeIso`.
 */
export async function forgottenJobsPage(
  db: Db,
  quietBeforeIso: string,
  leaseBeforeIso: string,
  afterId: string,
  limit: number,
): Promise<DispatchableJob[]> {
  const rows = await db
    .selectFrom('jobs')
    .select(['id', 'tenant_id', 'kind', 'version', 'state'])
    .where('id', '>', afterId)
    .where((eb) =>
      eb.or([
        eb.and([
          eb('state', 'in', ['accepted', 'queued']),
          eb('updated_at', '<', quietBeforeIso),
          eb.or([eb('run_after', 'is', null), eb('run_after', '<', quietBeforeIso)]),
        ]),
        eb.and([
          eb('state', '=', 'running'),
          eb.or([
            eb('lease_until', '<', leaseBeforeIso),
            eb.and([eb('lease_until', 'is', null), eb('updated_at', '<', leaseBeforeIso)]),
          ]),
        ]),
      ]),
    )
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map(toDispatchable);
}

// Jobs a bounded-depth runtime (Valkey Streams with fair dispatch) did not take yet: its stream
// already holds as many undelivered entries as it may. Such a job stays `queued` with its outbox
// row, whose due time is set to `HELD_DUE_AT`: far in the future, so the reconciler's due-row pass
// (`dueOutboxRows`) and the post-commit delete (compare-and-set on an earlier due time) both leave
// it alone, and only the fair feeder hands it out — round-robin across tenants, when there is room.
// A worker's retry row (an upsert with its own due time) replaces the mark: it is due as usual.

import type { JobState } from '@sluice/contracts';
import { sql } from 'kysely';
import type { Db } from '../database.js';
import { rowsPerStatement } from '../dialect/storage-dialect.js';
import { isoNow } from '../json.js';

/** The due time of a held row: after every real due time (ISO strings compare as text). */
export const HELD_DUE_AT = '9999-12-31T23:59:59.999Z';

/** Marks these jobs held (writes their outbox row when a crash or a re-dispatch has none). */
export async function holdInOutbox(db: Db, jobIds: readonly string[]): Promise<void> {
  if (jobIds.length === 0) return;
  const at = isoNow();
  const per = rowsPerStatement(db, jobIds.length, 3);
  for (let i = 0; i < jobIds.length; i += per) {
    await db
      .insertInto('outbox')
      .values(
        jobIds.slice(i, i + per).map((id) => ({ job_id: id, due_at: HELD_DUE_AT, created_at: at })),
      )
      .onConflict((oc) => oc.column('job_id').doUpdateSet({ due_at: HELD_DUE_AT }))
      .execute();
  }
}

/** Removes the held mark of jobs now in their stream (a retry row written meanwhile stays). */
export async function releaseHeld(db: Db, jobIds: readonly string[]): Promise<void> {
  const per = rowsPerStatement(db, jobIds.length, 1, 1);
  for (let i = 0; i < jobIds.length; i += per) {
    await db
      .deleteFrom('outbox')
      .where('job_id', 'in', jobIds.slice(i, i + per))
      .where('due_at', '=', HELD_DUE_AT)
      .execute();
  }
}

export interface HeldJob {
  id: string;
  tenantId: string;
  kind: string;
  version: string;
  priority: number;
  state: JobState;
  /** The job's place among its tenant's held jobs of its (kind, version, band): 1, 2, … */
  turn: number;
}

/**
 * Held jobs in fair order: each tenant's first held job of a (kind, version, priority band)
 * (highest priority, then oldest), then each tenant's second, …; at most `perTenant` per tenant and `limit` in all.
 * Reads every held row once (a window over the held rows of the `outbox_due` index).
 */
export async function heldJobsFair(db: Db, perTenant: number, limit: number): Promise<HeldJob[]> {
  const rows = await sql<{
    id: string;
    tenant_id: string;
    kind: string;
    version: string;
    priority: number | string;
    state: string;
    turn: number | string;
  }>`select id, tenant_id, kind, version, priority, state, turn from (
      select j.id, j.tenant_id, j.kind, j.version, j.priority, j.state, j.created_at,
        row_number() over (partition by j.kind, j.version, j.tenant_id,
            case when j.priority > 0 then 1 when j.priority < 0 then -1 else 0 end
          order by j.priority desc, j.created_at, j.id) as turn
      from outbox o join jobs j on j.id = o.job_id
      where o.due_at = ${HELD_DUE_AT}) h
    where turn <= ${perTenant}
    order by turn, created_at, id
    limit ${limit}`.execute(db);
  return rows.rows.map((r) => ({
    id: r.id,
    tenantId: r.tenant_id,
    kind: r.kind,
    version: r.version,
    priority: Number(r.priority),
    state: r.state as JobState,
    turn: Number(r.turn),
  }));
}

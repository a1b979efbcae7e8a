// Jobs a bounded-depth runtime (Valkey Streams with fair dispatch) did not take yet: its stream
// already holds as many undelivered entries as it may. Such a job stays `queued` with its outbox
// row, whose due time is set to `HELD_DUE_AT`: far in the future, so the reconciler's due-row pass
// (`dueOutboxRows`) and the post-commit delete (compare-and-set on an earlier due time) both leave
// it alone, and only the fair feeder hands it out — round-robin across tenants, when there is room.
// A worker's retry row (an upsert with its own due time) replaces the mark: it is due as usual.

import type { JobState } from '@sluice/contracts';
import { CompiledQuery } from 'kysely';
import type { Db } from '../database.js';
import { isPostgres, rowsPerStatement } from '../dialect.js';
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

/** The priority bands of a stream (high, normal, low) as inclusive ranges of the index. */
const BANDS = `values (1, 1, 2147483647), (0, 0, 0), (-1, -2147483648, -1)`;

/** Is this queued job held (its outbox row carries the held mark)? */
const HELD = `exists (select 1 from outbox o where o.job_id = j.id and o.due_at = '${HELD_DUE_AT}')`;

/**
 * PostgreSQL: `t` skips along the `jobs_queued` index (kind, version, tenant_id, priority desc,
 * created_at) to each (kind, version, tenant) with queued jobs — one probe each — and a LATERAL
 * read per (kind, version, tenant, band) walks that tenant's queued rows in order to its first
 * `$1` held ones. A tenant's backlog costs its first rows, not all of them.
 */
const PG_HELD = `with recursive t as (
  (select kind, version, tenant_id from jobs where state = 'queued'
    order by kind, version, tenant_id limit 1)
  union all
  select n.kind, n.version, n.tenant_id from t cross join lateral (select kind, version, tenant_id
    from jobs where state = 'queued' and (kind, version, tenant_id) > (t.kind, t.version, t.tenant_id)
    order by kind, version, tenant_id limit 1) n),
h as (select p.*, row_number() over (partition by p.kind, p.version, p.tenant_id, p.band
    order by p.priority desc, p.created_at, p.id) as turn
  from t cross join (${BANDS}) b(band, lo, hi) cross join lateral (
    select j.id, j.tenant_id, j.kind, j.version, j.priority, j.state, j.created_at, b.band
    from jobs j where j.state = 'queued' and j.kind = t.kind and j.version = t.version
      and j.tenant_id = t.tenant_id and j.priority between b.lo and b.hi and ${HELD}
    order by j.priority desc, j.created_at, j.id limit $1) p)
select id, tenant_id, kind, version, priority, state, turn from h
order by turn, created_at, id limit $2`;

/**
 * SQLite (no LATERAL): the same skip, carrying the id of each (kind, version, tenant)'s first
 * queued row (a row-value step along the index), then each band's first `perTenant` held rows through a
 * correlated `IN (… LIMIT)` — one statement for the whole tenant set (parameters in text order).
 */
const SQLITE_HELD = `with recursive t(id) as (
  select (select id from jobs where state = 'queued' order by kind, version, tenant_id limit 1)
  union all
  select (select n.id from jobs n where n.state = 'queued'
      and (n.kind, n.version, n.tenant_id) > (select kind, version, tenant_id from jobs where id = t.id)
      order by n.kind, n.version, n.tenant_id limit 1)
  from t where t.id is not null),
g as (select f.kind, f.version, f.tenant_id from t join jobs f on f.id = t.id),
b(band, lo, hi) as (${BANDS}),
h as (select j.id, j.tenant_id, j.kind, j.version, j.priority, j.state, j.created_at,
    row_number() over (partition by j.kind, j.version, j.tenant_id, b.band
      order by j.priority desc, j.created_at, j.id) as turn
  from g cross join b join jobs j on j.id in (select j.id from jobs j where j.state = 'queued'
    and j.kind = g.kind and j.version = g.version and j.tenant_id = g.tenant_id
    and j.priority between b.lo and b.hi and ${HELD}
    order by j.priority desc, j.created_at, j.id limit ?))
select id, tenant_id, kind, version, priority, state, turn from h
order by turn, created_at, id limit ?`;

type HeldRow = {
  id: string;
  tenant_id: string;
  kind: string;
  version: string;
  priority: number | string;
  state: string;
  turn: number | string;
};

/**
 * Held jobs in fair order: each tenant's first held job of a (kind, version, priority band)
 * (highest priority, then oldest), then each tenant's second, …; at most `perTenant` per tenant
 * and band, and `limit` in all. Only `queued` jobs: a held row whose job ended is
 * `endedHeldJobs`'s. Reads per tenant through the `jobs_queued` index (see PG_HELD): the cost
 * grows with the number of tenants and the rows ahead of each tenant's first held ones, not with
 * the size of a backlog.
 */
export async function heldJobsFair(db: Db, perTenant: number, limit: number): Promise<HeldJob[]> {
  const text = isPostgres(db) ? PG_HELD : SQLITE_HELD;
  const rows = await db.executeQuery<HeldRow>(CompiledQuery.raw(text, [perTenant, limit]));
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

/**
 * Held rows whose job is no longer queued (cancelled while held): their mark is only to be
 * removed. Reads every held row, so the feeder runs it now and then, not on every pass.
 */
export async function endedHeldJobs(db: Db, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('outbox as o')
    .innerJoin('jobs as j', 'j.id', 'o.job_id')
    .select('o.job_id')
    .where('o.due_at', '=', HELD_DUE_AT)
    .where('j.state', '!=', 'queued')
    .limit(limit)
    .execute();
  return rows.map((r) => r.job_id);
}

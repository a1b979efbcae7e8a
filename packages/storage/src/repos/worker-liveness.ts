// Worker liveness, apart from job leases: each worker process beats its row about once a second;
// any live worker (or anything else holding the database) reaps, i.e. ends the leases of the
// running jobs whose holder's row lapsed. The claim path then takes those jobs at a new epoch as
// it takes any lapsed lease (the epoch fence keeps a holder that was only slow from writing), so
// a dead worker's jobs resume within seconds whatever id the next process has. A worker without a
// row (an older version, or one that stopped cleanly) is bound by its leases alone.

import type { Db } from '../database.js';
import { dialectOf } from '../dialect/storage-dialect.js';
import { isoIn, isoNow } from '../json.js';

/** Rows dead this long are dropped: their jobs were reaped long before. */
export const LIVENESS_FORGET_MS = 10 * 60_000;

/** Records that `workerId` is alive for another `aliveMs`. */
export async function beatLiveness(
  db: Db,
  workerId: string,
  aliveMs: number,
  now = Date.now(),
): Promise<void> {
  const until = isoIn(aliveMs, now);
  await db
    .insertInto('worker_liveness')
    .values({ worker_id: workerId, alive_until: until, started_at: isoNow(now) })
    .onConflict((oc) => oc.column('worker_id').doUpdateSet({ alive_until: until }))
    .execute();
}

/** Withdraws the row (clean stop: whatever it still held was drained or given back). */
export async function dropLiveness(db: Db, workerId: string): Promise<void> {
  await db.deleteFrom('worker_liveness').where('worker_id', '=', workerId).execute();
}

/**
 * Worker ids whose row lapsed (not yet forgotten), among `ids` when given (ids without a row
 * are not known dead); at most 500.
 */
export async function lapsedWorkers(
  db: Db,
  ids: readonly string[] | undefined,
  now = Date.now(),
): Promise<string[]> {
  if (ids?.length === 0) return [];
  let q = db
    .selectFrom('worker_liveness')
    .select('worker_id')
    .where('alive_until', '<=', isoNow(now))
    .orderBy('worker_id')
    .limit(500);
  if (ids) q = q.where('worker_id', 'in', [...new Set(ids)].slice(0, 500));
  const rows = await q.execute();
  return rows.map((r) => r.worker_id);
}

/**
 * Ends the lease of every running job whose holder's liveness lapsed. Returns the ids of the jobs
 * now claimable. Rows are locked in id order where the database has row locks, like every
 * multi-job write.
 */
export async function reapLapsedWorkers(db: Db, now = Date.now()): Promise<string[]> {
  const nowIso = isoNow(now);
  const rows = await db
    .updateTable('jobs')
    .set({ lease_until: nowIso })
    .where('state', '=', 'running')
    .where('lease_until', '>', nowIso)
    .where('id', 'in', (eb) => {
      const q = eb
        .selectFrom('jobs')
        .select('id')
        .where('state', '=', 'running')
        .where('lease_until', '>', nowIso)
        .where('lease_owner', 'in', (inner) =>
          inner
            .selectFrom('worker_liveness')
            .select('worker_id')
            .where('alive_until', '<=', nowIso),
        )
        .orderBy('id');
      return dialectOf(db).capabilities.rowLocks ? q.forUpdate() : q;
    })
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}

/**
 * Drops the rows dead for `LIVENESS_FORGET_MS`: their jobs were reaped long before. Apart from
 * the reap so that a beat does not pay a DELETE every second for rows that only appear on a crash.
 */
export async function forgetDeadWorkers(db: Db, now = Date.now()): Promise<void> {
  await db
    .deleteFrom('worker_liveness')
    .where('alive_until', '<', isoIn(-LIVENESS_FORGET_MS, now))
    .execute();
}

// The leases of running jobs: the renewal tick, the ownership check, and the id-ordered row
// locks every transaction that writes several jobs takes first (where the database has row
// locks: PostgreSQL; SQLite and D1 serialise writers, so there is nothing to order).

import type { Db } from '../database.js';
import { dialectOf, rowsPerStatement } from '../dialect/storage-dialect.js';
import { isoIn } from '../json.js';

/**
 * Locks job rows in id order where the database has row locks (a no-op where it serialises
 * writers instead: SQLite's IMMEDIATE transactions, D1's single statements). Every transaction
 * that writes several jobs takes its locks this way first, so two of them can never wait on
 * each other in a cycle (a deadlock).
 */
export async function lockJobs(tx: Db, ids: readonly string[]): Promise<void> {
  if (ids.length === 0 || !dialectOf(tx).capabilities.rowLocks) return;
  const sorted = [...new Set(ids)].sort();
  for (let i = 0; i < sorted.length; i += 500) {
    await tx
      .selectFrom('jobs')
      .select('id')
      .where('id', 'in', sorted.slice(i, i + 500))
      .orderBy('id')
      .forUpdate()
      .execute();
  }
}

/**
 * The renewal tick: extends the lease of every (id, epoch) attempt that still owns a running job
 * and returns their ids. An attempt missing from the answer was cancelled, finished or reclaimed.
 */
export async function extendLeases(
  db: Db,
  attempts: readonly { id: string; epoch: number }[],
  leaseMs: number,
  now = Date.now(),
): Promise<Set<string>> {
  if (attempts.length === 0) return new Set();
  const out = new Set<string>();
  // One statement here; chunks only where the database binds few parameters (D1).
  const per = rowsPerStatement(db, attempts.length, 3, 2);
  for (let c = 0; c < attempts.length; c += per) {
    const chunk = attempts.slice(c, c + per);
    const rows = await db
      .updateTable('jobs')
      .set({ lease_until: isoIn(leaseMs, now) })
      .where('state', '=', 'running')
      .where((eb) =>
        eb.or(chunk.map((a) => eb.and([eb('id', '=', a.id), eb('epoch', '=', a.epoch)]))),
      )
      // Row locks in id order, like every multi-job write (see lockJobs).
      .where('id', 'in', (eb) => {
        const q = eb
          .selectFrom('jobs')
          .select('id')
          .where(
            'id',
            'in',
            chunk.map((a) => a.id),
          )
          .orderBy('id');
        return dialectOf(db).capabilities.rowLocks ? q.forUpdate() : q;
      })
      .returning('id')
      .execute();
    for (const r of rows) out.add(r.id);
  }
  return out;
}

/** Which of these (id, epoch) attempts still own a running job: renewal and cancellation check. */
export async function stillRunning(
  db: Db,
  attempts: readonly { id: string; epoch: number }[],
): Promise<Set<string>> {
  const owned = new Set<string>();
  if (attempts.length === 0) return owned;
  const epochs = new Map<string, number>();
  const per = rowsPerStatement(db, attempts.length, 1, 1);
  for (let c = 0; c < attempts.length; c += per) {
    const rows = await db
      .selectFrom('jobs')
      .select(['id', 'epoch'])
      .where(
        'id',
        'in',
        attempts.slice(c, c + per).map((a) => a.id),
      )
      .where('state', '=', 'running')
      .execute();
    for (const r of rows) epochs.set(r.id, Number(r.epoch));
  }
  for (const a of attempts) if (epochs.get(a.id) === a.epoch) owned.add(a.id);
  return owned;
}

// Reads of job rows: tenant-scoped for the API (another tenant's job reads as missing), by id for
// workers, and by idempotency key for the accept path.

import type { Db } from '../database.js';
import { rowsPerStatement } from '../dialect/storage-dialect.js';
import { toJobRow, type JobRow } from './job-row.js';

/** A job of this tenant; another tenant's job is indistinguishable from a missing one. */
export async function getJob(db: Db, tenantId: string, id: string): Promise<JobRow | undefined> {
  const row = await db
    .selectFrom('jobs')
    .selectAll()
    .where('id', '=', id)
    .where('tenant_id', '=', tenantId)
    .executeTakeFirst();
  return row ? toJobRow(row) : undefined;
}

/** Unscoped read, for workers (they act on pointers that already name the tenant). */
export async function getJobById(db: Db, id: string): Promise<JobRow | undefined> {
  const row = await db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toJobRow(row) : undefined;
}

export async function getJobsByIds(db: Db, ids: readonly string[]): Promise<Map<string, JobRow>> {
  const out = new Map<string, JobRow>();
  if (ids.length === 0) return out;
  const perStatement = rowsPerStatement(db, ids.length, 1);
  for (let c = 0; c < ids.length; c += perStatement) {
    const chunk = ids.slice(c, c + perStatement);
    const rows = await db.selectFrom('jobs').selectAll().where('id', 'in', chunk).execute();
    for (const r of rows) out.set(r.id, toJobRow(r));
  }
  return out;
}

export async function findByIdempotencyKey(
  db: Db,
  tenantId: string,
  key: string,
): Promise<JobRow | undefined> {
  const row = await db
    .selectFrom('jobs')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('idempotency_key', '=', key)
    .executeTakeFirst();
  return row ? toJobRow(row) : undefined;
}

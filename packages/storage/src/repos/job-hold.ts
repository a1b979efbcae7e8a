// The legal hold: a job under one is never removed by retention, whatever its state and age.
// Setting or lifting it is one statement on every database (D1 included) and leaves `updated_at`
// alone: retention counts from when the job entered its state, so lifting a hold on an old job
// makes it removable at the next sweep rather than starting its clock again.

import type { Db } from '../database.js';

/** Sets or lifts the hold of a tenant's job; undefined when the tenant has no such job. */
export async function setJobHold(
  db: Db,
  tenantId: string,
  id: string,
  hold: boolean,
): Promise<{ id: string; hold: boolean } | undefined> {
  const row = await db
    .updateTable('jobs')
    .set({ hold: hold ? 1 : 0 })
    .where('id', '=', id)
    .where('tenant_id', '=', tenantId)
    .returning(['id', 'hold'])
    .executeTakeFirst();
  return row ? { id: row.id, hold: Number(row.hold) === 1 } : undefined;
}

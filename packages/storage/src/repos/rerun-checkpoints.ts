// The checkpoints of a job in the order they were stored, and their removal: what a rerun from a
// unit needs (the plan of what to drop is the gateway's, operator/rerun-plan.ts). Never the
// provider-call ledger: a call that was answered is answered from it on the rerun, so no rerun
// can pay for a call twice.

import type { Db } from '../database.js';

/** The job's checkpoint keys (step names), in the order they were stored. */
export async function checkpointKeys(db: Db, jobId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('units')
    .select(['unit_key', 'created_at'])
    .where('job_id', '=', jobId)
    .orderBy('created_at')
    .orderBy('unit_key')
    .execute();
  return rows.map((r) => r.unit_key);
}

/** Deletes these checkpoints of a job (inside the rerun's transaction); how many went. */
export async function dropCheckpoints(
  tx: Db,
  jobId: string,
  keys: readonly string[],
): Promise<number> {
  if (keys.length === 0) return 0;
  const r = await tx
    .deleteFrom('units')
    .where('job_id', '=', jobId)
    .where('unit_key', 'in', [...keys])
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}

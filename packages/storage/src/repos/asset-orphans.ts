// Bytes at an asset's final key with no asset row, left where no attempt will ever adopt them:
// an attempt published and then lost its row (a crash between publish and row, or on D1 a
// takeover between the check and the fenced batch) and the job ended without any later attempt
// writing that asset. The ownership row names every such key, so the candidates are found from
// the database, never by listing the blob store.
//
// Only jobs in a FINAL state qualify (succeeded, failed, cancelled, stale): they never run again,
// so no attempt can come to adopt the bytes. Parked jobs (needs_review, dead_lettered) may be
// requeued and are left alone. The claim is released by ONE conditional statement (D1 included)
// that re-checks all of it at that instant; only then may the caller delete the blob.
import { FINAL_STATES } from '@sluice/contracts';
import { sql } from 'kysely';
import type { Db } from '../database.js';

export interface AssetClaim {
  finalKey: string;
  jobId: string;
  attemptId: string;
}

const finalStates = sql.join(FINAL_STATES.map((s) => sql`${s}`));

/** Ownership rows of ended jobs whose final key never got an asset row. */
export async function orphanedAssetClaims(db: Db, limit = 500): Promise<AssetClaim[]> {
  const r = await sql<{ final_key: string; job_id: string; attempt_id: string }>`
    select o.final_key, o.job_id, o.attempt_id from asset_owners o
    join jobs j on j.id = o.job_id
    where j.state in (${finalStates})
      and not exists (select 1 from assets a where a.final_key = o.final_key)
    order by o.final_key limit ${limit}`.execute(db);
  return r.rows.map((x) => ({ finalKey: x.final_key, jobId: x.job_id, attemptId: x.attempt_id }));
}

/**
 * Deletes the ownership row if it is still exactly this claim, its job is still final and no
 * asset row exists: true when released (the caller may then delete the blob at the key).
 */
export async function releaseAssetClaim(db: Db, c: AssetClaim): Promise<boolean> {
  const r = await sql<{ final_key: string }>`
    delete from asset_owners where final_key = ${c.finalKey} and attempt_id = ${c.attemptId}
      and job_id = ${c.jobId}
      and exists (select 1 from jobs where id = ${c.jobId} and state in (${finalStates}))
      and not exists (select 1 from assets where final_key = ${c.finalKey})
    returning final_key`.execute(db);
  return r.rows.length > 0;
}

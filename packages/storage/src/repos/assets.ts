// Asset ownership and publication. The protocol (worker): ownership row → stream bytes to this
// attempt's staging key → in ONE transaction, if the ownership row is still this attempt's, the
// attempt still owns the job, and no asset row exists: publish the blob write-if-absent and insert
// the asset row. These are the conditional steps; the worker runs them in that order. Without
// interactive transactions (D1) each step is one conditional statement (assets-single.ts).

import type { Db } from '../database.js';
import { dialectOf } from '../dialect/storage-dialect.js';
import { isoNow } from '../json.js';
import { getAsset, toAssetRow, type AssetRow, type Ownership } from './asset-row.js';
import { claimAssetOwnershipOnce } from './assets-single.js';

export * from './asset-row.js';

async function ownsJob(db: Db, jobId: string, attemptId: string, epoch: number): Promise<boolean> {
  const r = await db
    .selectFrom('jobs')
    .select('id')
    .where('id', '=', jobId)
    .where('epoch', '=', epoch)
    .where('attempt_id', '=', attemptId)
    .where('state', '=', 'running')
    .executeTakeFirst();
  return r !== undefined;
}

/**
 * Step 1, in a transaction: 'published' when the final key already has an asset (reuse it);
 * 'fenced' when this attempt no longer owns the job; else the live attempt takes the ownership
 * row (a dead attempt's row is replaced) and gets 'owned'.
 */
export async function claimAssetOwnership(
  tx: Db,
  o: Ownership,
  now = Date.now(),
): Promise<'owned' | 'published' | 'fenced'> {
  // No transaction around the checks (D1): the checks go into the write itself.
  if (dialectOf(tx).atomicBatch) return claimAssetOwnershipOnce(tx, o, now);
  if (await getAsset(tx, o.finalKey)) return 'published';
  if (!(await ownsJob(tx, o.jobId, o.attemptId, o.epoch))) return 'fenced';
  const values = {
    final_key: o.finalKey,
    job_id: o.jobId,
    unit_key: o.unitKey,
    name: o.name,
    attempt_id: o.attemptId,
    epoch: o.epoch,
    staging_key: o.stagingKey,
    created_at: isoNow(now),
  };
  await tx
    .insertInto('asset_owners')
    .values(values)
    .onConflict((oc) =>
      oc.column('final_key').doUpdateSet({
        attempt_id: o.attemptId,
        epoch: o.epoch,
        staging_key: o.stagingKey,
        created_at: values.created_at,
      }),
    )
    .execute();
  return 'owned';
}

/** Step 3's check, in the publishing transaction. */
export async function checkPublishable(
  tx: Db,
  o: Pick<Ownership, 'finalKey' | 'jobId' | 'attemptId' | 'epoch'>,
): Promise<'ok' | 'published' | 'not_owner'> {
  if (await getAsset(tx, o.finalKey)) return 'published';
  const owner = await tx
    .selectFrom('asset_owners')
    .select(['attempt_id', 'epoch'])
    .where('final_key', '=', o.finalKey)
    .executeTakeFirst();
  if (!owner || owner.attempt_id !== o.attemptId || Number(owner.epoch) !== o.epoch)
    return 'not_owner';
  return (await ownsJob(tx, o.jobId, o.attemptId, o.epoch)) ? 'ok' : 'not_owner';
}

export async function insertAsset(
  tx: Db,
  a: Omit<AssetRow, 'createdAt'>,
  now = Date.now(),
): Promise<AssetRow> {
  const row = await tx
    .insertInto('assets')
    .values({
      final_key: a.finalKey,
      job_id: a.jobId,
      tenant_id: a.tenantId,
      unit_key: a.unitKey,
      name: a.name,
      size: a.size,
      sha256: a.sha256,
      content_type: a.contentType,
      attempt_id: a.attemptId,
      created_at: isoNow(now),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toAssetRow(row);
}

export async function assetsForJob(db: Db, jobId: string): Promise<AssetRow[]> {
  return (
    await db
      .selectFrom('assets')
      .selectAll()
      .where('job_id', '=', jobId)
      .orderBy('final_key')
      .execute()
  ).map(toAssetRow);
}

/** The attempt currently owning a job, for the staging sweeper: any other attempt is dead. */
export async function liveAttemptOf(
  db: Db,
  jobId: string,
): Promise<{ attemptId: string | null; state: string } | undefined> {
  const r = await db
    .selectFrom('jobs')
    .select(['attempt_id', 'state'])
    .where('id', '=', jobId)
    .executeTakeFirst();
  return r ? { attemptId: r.state === 'running' ? r.attempt_id : null, state: r.state } : undefined;
}

/** Staging keys named in ownership rows of live attempts: the sweeper never touches these. */
export async function ownedStagingKeys(db: Db, jobId: string): Promise<Set<string>> {
  const rows = await db
    .selectFrom('asset_owners')
    .innerJoin('jobs', 'jobs.id', 'asset_owners.job_id')
    .select('asset_owners.staging_key')
    .where('asset_owners.job_id', '=', jobId)
    .where('jobs.state', '=', 'running')
    .whereRef('jobs.attempt_id', '=', 'asset_owners.attempt_id')
    .execute();
  return new Set(rows.map((r) => r.staging_key).filter((k): k is string => k !== null));
}

// The asset protocol's two database writes as single conditional statements, for a database
// without interactive transactions (D1) where a check and the write after it cannot share a
// transaction: the checks move into the statement's WHERE, so the write happens exactly when
// they hold at that instant. An outcome other than a write is then classified by reading (the
// statement already decided; the read only names why).
//
// The claim is used on D1 as is; the publish step's D1 form is assets-batch.ts (its row and the
// read-back in one atomic batch). `insertAssetIfOwner` is the same fenced insert as one statement
// with a separate read after it. A crash or a lost race between the blob and the row leaves the
// case the protocol already handles: a final key with bytes and no row, adopted by the next attempt.
import { sql, type Selectable } from 'kysely';
import type { Db } from '../database.js';
import { isoNow } from '../json.js';
import type { AssetsTable } from '../schema.js';
import { getAsset, toAssetRow, type AssetRow, type Ownership } from './asset-row.js';

const ownsJobSql = (o: { jobId: string; attemptId: string; epoch: number }) =>
  sql`exists (select 1 from jobs where id = ${o.jobId} and epoch = ${o.epoch}
    and attempt_id = ${o.attemptId} and state = 'running')`;

/** `claimAssetOwnership` in ONE statement (same outcomes). */
export async function claimAssetOwnershipOnce(
  db: Db,
  o: Ownership,
  now = Date.now(),
): Promise<'owned' | 'published' | 'fenced'> {
  const at = isoNow(now);
  const r = await sql<{ final_key: string }>`
    insert into asset_owners (final_key, job_id, unit_key, name, attempt_id, epoch, staging_key, created_at)
    select ${o.finalKey}, ${o.jobId}, ${o.unitKey}, ${o.name}, ${o.attemptId}, ${o.epoch}, ${o.stagingKey}, ${at}
    where not exists (select 1 from assets where final_key = ${o.finalKey}) and ${ownsJobSql(o)}
    on conflict (final_key) do update set attempt_id = excluded.attempt_id, epoch = excluded.epoch,
      staging_key = excluded.staging_key, created_at = excluded.created_at
    returning final_key`.execute(db);
  if (r.rows.length > 0) return 'owned';
  return (await getAsset(db, o.finalKey)) ? 'published' : 'fenced';
}

/**
 * `checkPublishable` + `insertAsset` in ONE statement: the row is inserted only while no asset
 * row exists, the ownership row is this attempt's, and the attempt still owns the job.
 */
export async function insertAssetIfOwner(
  db: Db,
  a: Omit<AssetRow, 'createdAt'>,
  owner: { epoch: number },
  now = Date.now(),
): Promise<{ outcome: 'inserted'; row: AssetRow } | { outcome: 'published' | 'not_owner' }> {
  const at = isoNow(now);
  const o = { jobId: a.jobId, attemptId: a.attemptId, epoch: owner.epoch };
  const r = await sql<Selectable<AssetsTable>>`
    insert into assets (final_key, job_id, tenant_id, unit_key, name, size, sha256, content_type, attempt_id, created_at)
    select ${a.finalKey}, ${a.jobId}, ${a.tenantId}, ${a.unitKey}, ${a.name}, ${a.size}, ${a.sha256},
      ${a.contentType}, ${a.attemptId}, ${at}
    where exists (select 1 from asset_owners where final_key = ${a.finalKey}
        and attempt_id = ${a.attemptId} and epoch = ${owner.epoch})
      and ${ownsJobSql(o)}
    on conflict (final_key) do nothing
    returning *`.execute(db);
  const row = r.rows[0];
  if (row) return { outcome: 'inserted', row: toAssetRow(row) };
  return { outcome: (await getAsset(db, a.finalKey)) ? 'published' : 'not_owner' };
}

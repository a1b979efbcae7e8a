// The asset protocol's publish for a database without interactive transactions (D1), where the
// transactional form (check → publish → insert in one transaction, assets.ts) cannot run:
//
//   1. `checkPublishableOnce`: ONE statement reads the three facts the check needs (asset row,
//      ownership row, the job as this attempt knows it) from one snapshot.
//   2. the caller publishes the staged blob write-if-absent (R2 `onlyIf: etagDoesNotMatch '*'`).
//   3. `recordAssetFenced`: ONE atomic `batch()`: the asset row, inserted only while the
//      ownership row is this attempt's AND the job still runs at this attempt's epoch (the same
//      fence every attempt write carries), then a read of what the batch left, so the answer
//      names the state the insert saw and not a later one.
//
// A stale attempt that passed step 1 just before a takeover may still publish in step 2: its
// row is refused in step 3, and the bytes it left at the final key (never overwritten, since the
// key is write-if-absent) are adopted by the live attempt exactly as the bytes of a crash
// between publish and row are. On a database with transactions the same functions run their
// statements on the transaction handle they are given (the shared suites run them everywhere).
import { sql, type CompiledQuery, type Selectable } from 'kysely';
import type { Db } from '../database.js';
import { dialectOf } from '../dialect/storage-dialect.js';
import { isoNow } from '../json.js';
import type { AssetsTable } from '../schema.js';
import { toAssetRow, type AssetRow, type Ownership } from './asset-row.js';

type Fence = Pick<Ownership, 'finalKey' | 'jobId' | 'attemptId' | 'epoch'>;

const ownsJob = (o: Fence) =>
  sql`exists (select 1 from jobs where id = ${o.jobId} and epoch = ${o.epoch}
    and attempt_id = ${o.attemptId} and state = 'running')`;

const ownsKey = (o: Fence) =>
  sql`exists (select 1 from asset_owners where final_key = ${o.finalKey}
    and attempt_id = ${o.attemptId} and epoch = ${o.epoch})`;

/** Small integers as booleans on every dialect (pg answers `exists` as boolean, SQLite as 0/1). */
const truthy = (v: unknown): boolean => v === true || v === 1 || v === '1' || v === 't';

/** `checkPublishable` as ONE statement: the same three answers from one snapshot. */
export async function checkPublishableOnce(
  db: Db,
  o: Fence,
): Promise<'ok' | 'published' | 'not_owner'> {
  const r = await sql<{ published: unknown; owner: unknown; job: unknown }>`
    select exists (select 1 from assets where final_key = ${o.finalKey}) as published,
      ${ownsKey(o)} as owner, ${ownsJob(o)} as job`.execute(db);
  const row = r.rows[0];
  if (!row) return 'not_owner';
  if (truthy(row.published)) return 'published';
  return truthy(row.owner) && truthy(row.job) ? 'ok' : 'not_owner';
}

export type RecordAssetResult =
  /** This call inserted the row. */
  | { outcome: 'inserted'; row: AssetRow }
  /** A row was there already (this attempt's earlier try, or an adopter's): reuse it. */
  | { outcome: 'published'; row: AssetRow }
  /** Refused: the ownership row or the job is no longer this attempt's. Nothing was written. */
  | { outcome: 'not_owner' };

/**
 * The asset row, fenced by ownership and epoch, and what the write left, as ONE atomic batch on
 * D1 (the dialect's `atomicBatch`); elsewhere the two statements on the handle given (a transaction).
 */
export async function recordAssetFenced(
  db: Db,
  a: Omit<AssetRow, 'createdAt'>,
  owner: { epoch: number },
  now = Date.now(),
): Promise<RecordAssetResult> {
  const o: Fence = {
    finalKey: a.finalKey,
    jobId: a.jobId,
    attemptId: a.attemptId,
    epoch: owner.epoch,
  };
  const insert = sql`
    insert into assets (final_key, job_id, tenant_id, unit_key, name, size, sha256, content_type, attempt_id, created_at)
    select ${a.finalKey}, ${a.jobId}, ${a.tenantId}, ${a.unitKey}, ${a.name}, ${a.size}, ${a.sha256},
      ${a.contentType}, ${a.attemptId}, ${isoNow(now)}
    where ${ownsKey(o)} and ${ownsJob(o)}
    on conflict (final_key) do nothing`.compile(db);
  // The row as the batch left it: the insert's change count says whether this call put it there.
  const read = db.selectFrom('assets').selectAll().where('final_key', '=', a.finalKey).compile();
  const batch = dialectOf(db).atomicBatch;
  let rows: Selectable<AssetsTable>[];
  let inserted: boolean;
  if (batch) {
    const [ins, got] = await batch.run<Selectable<AssetsTable>>([
      insert as CompiledQuery,
      read as CompiledQuery,
    ]);
    inserted = Number(ins?.numAffectedRows ?? 0) > 0;
    rows = got?.rows ?? [];
  } else {
    const ins = await db.executeQuery(insert);
    inserted = Number(ins.numAffectedRows ?? 0) > 0;
    rows = (await db.executeQuery<Selectable<AssetsTable>>(read)).rows;
  }
  const row = rows[0];
  if (!row) return { outcome: 'not_owner' };
  return { outcome: inserted ? 'inserted' : 'published', row: toAssetRow(row) };
}

// Unit checkpoints. A unit's result is stored the moment it exists, by the live attempt only
// (fenced by the job's epoch in the same statement), and the first stored result wins: every
// later attempt reuses it instead of running the unit (and paying for it) again.

import { sql } from 'kysely';
import type { Db } from '../database.js';
import { rowsPerStatement } from '../dialect/storage-dialect.js';
import { fromJson, isoNow, toJson } from '../json.js';

export interface UnitCheckpoint {
  unitKey: string;
  result: unknown;
  assetKey: string | null;
  attemptId: string;
  epoch: number;
  createdAt: string;
}

export interface StoreUnit {
  jobId: string;
  unitKey: string;
  result?: unknown;
  assetKey?: string | null;
  attemptId: string;
  epoch: number;
}

export type StoreUnitOutcome = 'stored' | 'exists' | 'fenced';

/** 'stored'; 'exists' when an earlier attempt already stored this unit; 'fenced' for a stale attempt. */
export async function storeUnitResult(
  db: Db,
  u: StoreUnit,
  now = Date.now(),
): Promise<StoreUnitOutcome> {
  const at = isoNow(now);
  const result = u.result === undefined ? null : toJson(u.result);
  const inserted = await sql<{ job_id: string }>`
    insert into units (job_id, unit_key, result, asset_key, attempt_id, epoch, created_at)
    select id, ${u.unitKey}, ${result}, ${u.assetKey ?? null}, ${u.attemptId}, epoch, ${at}
    from jobs where id = ${u.jobId} and epoch = ${u.epoch} and state = 'running'
    on conflict (job_id, unit_key) do nothing
    returning job_id`.execute(db);
  if (inserted.rows.length > 0) return 'stored';
  return (await getUnit(db, u.jobId, u.unitKey)) ? 'exists' : 'fenced';
}

function toCheckpoint(r: {
  unit_key: string;
  result: unknown;
  asset_key: string | null;
  attempt_id: string;
  epoch: number;
  created_at: string;
}): UnitCheckpoint {
  return {
    unitKey: r.unit_key,
    result: r.result === null ? null : fromJson(r.result),
    assetKey: r.asset_key,
    attemptId: r.attempt_id,
    epoch: Number(r.epoch),
    createdAt: r.created_at,
  };
}

/** Checkpoints are looked up by job AND unit key, never by job alone. */
export async function getUnit(
  db: Db,
  jobId: string,
  unitKey: string,
): Promise<UnitCheckpoint | undefined> {
  const r = await db
    .selectFrom('units')
    .selectAll()
    .where('job_id', '=', jobId)
    .where('unit_key', '=', unitKey)
    .executeTakeFirst();
  return r ? toCheckpoint(r) : undefined;
}

/** Every checkpoint of a job, keyed by unit key: one query at the start of an attempt. */
export async function getUnits(db: Db, jobId: string): Promise<Map<string, UnitCheckpoint>> {
  const rows = await db.selectFrom('units').selectAll().where('job_id', '=', jobId).execute();
  return new Map(rows.map((r) => [r.unit_key, toCheckpoint(r)]));
}

const STORE_CHUNK = 500;

/** `getUnits` of many jobs in one query per 500 jobs (the retried jobs of one read batch). */
export async function getUnitsOfJobs(
  db: Db,
  jobIds: readonly string[],
): Promise<Map<string, Map<string, UnitCheckpoint>>> {
  const byJob = new Map<string, Map<string, UnitCheckpoint>>(jobIds.map((id) => [id, new Map()]));
  const ids = [...byJob.keys()];
  const chunk = rowsPerStatement(db, STORE_CHUNK, 1);
  for (let i = 0; i < ids.length; i += chunk) {
    const rows = await db
      .selectFrom('units')
      .selectAll()
      .where('job_id', 'in', ids.slice(i, i + chunk))
      .execute();
    for (const r of rows) byJob.get(r.job_id)?.set(r.unit_key, toCheckpoint(r));
  }
  return byJob;
}

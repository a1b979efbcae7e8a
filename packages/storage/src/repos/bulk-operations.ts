// Tracked bulk operations: one row per (tenant, operation key) with its filter, progress and the
// cursor it resumes from. The runner that holds an operation's lease advances it batch by batch,
// each advance in the same transaction as the batch's job changes and fenced by the lease, so a
// batch is applied exactly once whatever gateway crashes when; a gateway that finds a lapsed
// lease takes the operation over from its stored cursor.

import { randomToken } from '@sluice/contracts';
import { sql, type Selectable } from 'kysely';
import type { Db } from '../database.js';
import { fromJson, isoIn, isoNow, toJson } from '../json.js';
import type { BulkOperationsTable } from '../schema.js';

export interface BulkOperationRow {
  id: string;
  tenantId: string;
  operationKey: string;
  action: string;
  filter: Record<string, unknown>;
  params: Record<string, unknown>;
  note: string | null;
  state: 'running' | 'succeeded' | 'failed';
  total: number;
  processed: number;
  applied: number;
  skipped: number;
  failed: number;
  cursor: string | null;
  until: string;
  createdBy: string | null;
  error: string | null;
  createdAt: string;
  updatedAt: string;
  finishedAt: string | null;
}

function toRow(r: Selectable<BulkOperationsTable>): BulkOperationRow {
  return {
    id: r.id,
    tenantId: r.tenant_id,
    operationKey: r.operation_key,
    action: r.action,
    filter: fromJson<Record<string, unknown>>(r.filter) ?? {},
    params: fromJson<Record<string, unknown>>(r.params) ?? {},
    note: r.note,
    state: r.state as BulkOperationRow['state'],
    total: Number(r.total),
    processed: Number(r.processed),
    applied: Number(r.applied),
    skipped: Number(r.skipped),
    failed: Number(r.failed),
    cursor: r.cursor,
    until: r.until,
    createdBy: r.created_by,
    error: r.error,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    finishedAt: r.finished_at,
  };
}

/** What a caller gives to start an operation; the rest starts empty (or now). */
export type NewBulkOperation = Pick<
  BulkOperationRow,
  'tenantId' | 'operationKey' | 'action' | 'filter' | 'params' | 'note' | 'total' | 'createdBy'
>;

/** The operation, new (`isDuplicate` false) or the one this key already names. */
export async function insertBulkOperation(
  db: Db,
  op: NewBulkOperation,
  now = Date.now(),
): Promise<{ op: BulkOperationRow; isDuplicate: boolean }> {
  const at = isoNow(now);
  const row = await db
    .insertInto('bulk_operations')
    .values({
      id: `bo_${randomToken()}`,
      tenant_id: op.tenantId,
      operation_key: op.operationKey,
      action: op.action,
      filter: toJson(op.filter),
      params: toJson(op.params),
      note: op.note,
      state: 'running',
      total: op.total,
      processed: 0,
      applied: 0,
      skipped: 0,
      failed: 0,
      cursor: null,
      until: at,
      created_by: op.createdBy,
      error: null,
      lease_owner: null,
      lease_until: null,
      created_at: at,
      updated_at: at,
      finished_at: null,
    })
    .onConflict((oc) => oc.columns(['tenant_id', 'operation_key']).doNothing())
    .returningAll()
    .executeTakeFirst();
  if (row) return { op: toRow(row), isDuplicate: false };
  const existing = await db
    .selectFrom('bulk_operations')
    .selectAll()
    .where('tenant_id', '=', op.tenantId)
    .where('operation_key', '=', op.operationKey)
    .executeTakeFirstOrThrow();
  return { op: toRow(existing), isDuplicate: true };
}

export async function getBulkOperation(
  db: Db,
  tenantId: string,
  id: string,
): Promise<BulkOperationRow | undefined> {
  const r = await db
    .selectFrom('bulk_operations')
    .selectAll()
    .where('id', '=', id)
    .where('tenant_id', '=', tenantId)
    .executeTakeFirst();
  return r ? toRow(r) : undefined;
}

export async function listBulkOperations(
  db: Db,
  tenantId: string,
  limit: number,
): Promise<BulkOperationRow[]> {
  const rows = await db
    .selectFrom('bulk_operations')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map(toRow);
}

/**
 * Takes the lease of the oldest running operation nobody holds (or whose holder's lease lapsed):
 * one conditional UPDATE, so two gateways never both hold it.
 */
export async function leaseBulkOperation(
  db: Db,
  owner: string,
  leaseMs: number,
  now = Date.now(),
): Promise<BulkOperationRow | undefined> {
  const at = isoNow(now);
  const free = sql<boolean>`(lease_until is null or lease_until < ${at})`;
  const r = await db
    .updateTable('bulk_operations')
    .set({ lease_owner: owner, lease_until: isoIn(leaseMs, now), updated_at: at })
    .where('id', '=', (eb) =>
      eb
        .selectFrom('bulk_operations')
        .select('id')
        .where('state', '=', 'running')
        .where(free)
        .orderBy('created_at')
        .limit(1),
    )
    .where('state', '=', 'running')
    .where(free)
    .returningAll()
    .executeTakeFirst();
  return r ? toRow(r) : undefined;
}

export interface BulkProgress {
  cursor: string | null;
  processed: number;
  applied: number;
  skipped: number;
  failed: number;
}

/**
 * Records a batch done (counts added, cursor moved, lease renewed), only while `owner` holds the
 * lease; false when it lost it (the caller's transaction must then roll the batch back).
 */
export async function advanceBulkOperation(
  tx: Db,
  id: string,
  owner: string,
  p: BulkProgress,
  leaseMs: number,
  now = Date.now(),
): Promise<boolean> {
  const r = await tx
    .updateTable('bulk_operations')
    .set((eb) => ({
      cursor: p.cursor,
      processed: eb('processed', '+', p.processed),
      applied: eb('applied', '+', p.applied),
      skipped: eb('skipped', '+', p.skipped),
      failed: eb('failed', '+', p.failed),
      lease_until: isoIn(leaseMs, now),
      updated_at: isoNow(now),
    }))
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .where('state', '=', 'running')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Ends the operation (fenced by the lease); false when `owner` no longer holds it. */
export async function finishBulkOperation(
  db: Db,
  id: string,
  owner: string,
  state: 'succeeded' | 'failed',
  error: string | null,
  now = Date.now(),
): Promise<boolean> {
  const at = isoNow(now);
  const r = await db
    .updateTable('bulk_operations')
    .set({ state, error, lease_owner: null, lease_until: null, updated_at: at, finished_at: at })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .where('state', '=', 'running')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Hands the lease back (a gateway shutting down), so another takes over at once. */
export async function releaseBulkOperation(db: Db, id: string, owner: string): Promise<void> {
  await db
    .updateTable('bulk_operations')
    .set({ lease_owner: null, lease_until: null })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .execute();
}

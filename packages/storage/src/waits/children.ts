// Child jobs, the storage half. A parent's attempt starts a child in ONE transaction that locks
// the parent row and checks that the attempt still holds it (`running` at its epoch): a zombie
// parent starts nothing. The child's idempotency key derives from the parent and the child's
// key, so a parent that runs again (a retry, a replay after a resume, a crash between the start
// and anything after it) finds the child it started and never starts a second one. The child is
// written `scheduled`, due at once: the gateway's due-job scheduler hands it to the runtime like
// any delayed job, on every runtime that can redispatch.

import type { JobState } from '@sluice/contracts';
import type { Db, SluiceDatabase } from '../database.js';
import { insertJob, transitionJob } from '../repos/jobs.js';
import type { NewJob } from '../repos/job-row.js';
import type { StoredEvent } from '../repos/event-rows.js';
import { inTransaction, lockJob } from './wait-rows.js';

/** The idempotency key of a parent's child: one child per (parent, key), whatever runs again. */
export function childIdempotencyKey(parentId: string, key: string): string {
  return `child:${parentId}:${key}`;
}

export interface StartChildRequest {
  parentId: string;
  /** The parent attempt's epoch: it must still hold the parent. */
  parentEpoch: number;
  /** The child's key within the parent (deterministic across the parent's runs). */
  key: string;
  child: Omit<NewJob, 'idempotencyKey' | 'parentId'>;
}

export type StartChildAnswer =
  { kind: 'started'; id: string; existing: boolean; events: StoredEvent[] } | { kind: 'fenced' };

export async function startChild(
  database: SluiceDatabase,
  req: StartChildRequest,
  now = Date.now(),
): Promise<StartChildAnswer> {
  return inTransaction(database, async (tx) => {
    const parent = await lockJob(tx, req.parentId);
    if (!parent || parent.state !== 'running' || parent.epoch !== req.parentEpoch)
      return { kind: 'fenced' };
    const idempotencyKey = childIdempotencyKey(req.parentId, req.key);
    const existing = await tx
      .selectFrom('jobs')
      .select('id')
      .where('tenant_id', '=', parent.tenantId)
      .where('idempotency_key', '=', idempotencyKey)
      .executeTakeFirst();
    if (existing) return { kind: 'started', id: existing.id, existing: true, events: [] };
    const inserted = await insertJob(
      tx,
      { ...req.child, tenantId: parent.tenantId, idempotencyKey, parentId: req.parentId },
      now,
    );
    const scheduled = await transitionJob(
      tx,
      { id: inserted.job.id, event: 'schedule', runAfter: new Date(now).toISOString() },
      now,
    );
    const events = [inserted.event, ...(scheduled.ok ? [scheduled.event] : [])];
    return { kind: 'started', id: inserted.job.id, existing: false, events };
  });
}

export interface ChildRow {
  id: string;
  kind: string;
  state: JobState;
  detached: boolean;
  createdAt: string;
}

/** A parent's children, oldest first, tenant-scoped. */
export async function listChildren(
  db: Db,
  tenantId: string,
  parentId: string,
): Promise<ChildRow[]> {
  const rows = await db
    .selectFrom('jobs')
    .select(['id', 'kind', 'state', 'detached', 'created_at'])
    .where('parent_id', '=', parentId)
    .where('tenant_id', '=', tenantId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((r) => ({
    id: r.id,
    kind: r.kind,
    state: r.state as JobState,
    detached: Number(r.detached) === 1,
    createdAt: r.created_at,
  }));
}

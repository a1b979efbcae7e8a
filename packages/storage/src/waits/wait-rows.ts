// Shared pieces of the wait repositories: the job row read under its lock, a wait row as the
// code sees it, and the one write that resolves a wait and queues its job again.
//
// Every write here runs inside ONE transaction that first locks the job row (PostgreSQL
// `FOR UPDATE`; SQLite's transactions begin IMMEDIATE, one writer at a time), so a signal, a
// suspend, a timeout and a cancel of the same job are serialised: each sees the others' effects
// whole. That is what makes the write-then-check on both sides free of lost wakeups.

import type { JobState, WaitKind, WaitStatus } from '@sluice/contracts';
import type { Selectable } from 'kysely';
import type { Db, SluiceDatabase } from '../database.js';
import { dialectOf } from '../dialect/storage-dialect.js';
import { fromJson, isoNow, toJson } from '../json.js';
import type { StoredEvent } from '../repos/event-rows.js';
import { transitionJob } from '../repos/jobs.js';
import type { JobWaitsTable } from '../schema.js';

export interface LockedJob {
  id: string;
  tenantId: string;
  kind: string;
  version: string;
  state: JobState;
  epoch: number;
  lastSeq: number;
  attempts: number;
  priority: number;
  parentId: string | null;
}

/** The job row, locked for the rest of the transaction where the database has row locks. */
export async function lockJob(
  tx: Db,
  id: string,
  tenantId?: string,
): Promise<LockedJob | undefined> {
  let q = tx
    .selectFrom('jobs')
    .select([
      'id',
      'tenant_id',
      'kind',
      'version',
      'state',
      'epoch',
      'last_seq',
      'attempts',
      'priority',
      'parent_id',
    ])
    .where('id', '=', id);
  if (tenantId !== undefined) q = q.where('tenant_id', '=', tenantId);
  if (dialectOf(tx).capabilities.rowLocks) q = q.forUpdate();
  const r = await q.executeTakeFirst();
  if (!r) return undefined;
  return {
    id: r.id,
    tenantId: r.tenant_id,
    kind: r.kind,
    version: r.version,
    state: r.state as JobState,
    epoch: Number(r.epoch),
    lastSeq: Number(r.last_seq),
    attempts: Number(r.attempts),
    priority: Number(r.priority ?? 0),
    parentId: r.parent_id ?? null,
  };
}

export interface WaitRow {
  jobId: string;
  waitKey: string;
  kind: WaitKind;
  event: string | null;
  dueAt: string | null;
  status: WaitStatus;
  result: unknown;
  children: string[] | null;
  mode: 'all' | 'any' | null;
  createdAt: string;
}

export function toWaitRow(r: Selectable<JobWaitsTable>): WaitRow {
  return {
    jobId: r.job_id,
    waitKey: r.wait_key,
    kind: r.kind as WaitKind,
    event: r.event,
    dueAt: r.due_at,
    status: r.status as WaitStatus,
    result: r.result === null ? null : fromJson(r.result),
    children: r.children === null ? null : fromJson<string[]>(r.children),
    mode: (r.mode as 'all' | 'any' | null) ?? null,
    createdAt: r.created_at,
  };
}

export async function getWait(db: Db, jobId: string, waitKey: string) {
  const r = await db
    .selectFrom('job_waits')
    .selectAll()
    .where('job_id', '=', jobId)
    .where('wait_key', '=', waitKey)
    .executeTakeFirst();
  return r ? toWaitRow(r) : undefined;
}

/** Stores a wait's value (`resolved` or `timed_out`); only an open wait moves. */
export async function settleWait(
  tx: Db,
  jobId: string,
  waitKey: string,
  status: 'resolved' | 'timed_out',
  result: unknown,
  now: number,
): Promise<boolean> {
  const r = await tx
    .updateTable('job_waits')
    .set({ status, result: toJson(result ?? null), resolved_at: isoNow(now) })
    .where('job_id', '=', jobId)
    .where('wait_key', '=', waitKey)
    .where('status', '=', 'open')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Closes the open waits of a job that left `waiting` for good (a cancel): the sweep skips them. */
export async function closeWaits(db: Db, jobId: string, now = Date.now()): Promise<void> {
  await db
    .updateTable('job_waits')
    .set({ status: 'cancelled', resolved_at: isoNow(now) })
    .where('job_id', '=', jobId)
    .where('status', '=', 'open')
    .execute();
}

/** A job queued again by its wait's end, with what the dispatch path needs. */
export interface ResumedJob {
  pointer: {
    jobId: string;
    kind: string;
    version: string;
    tenantId: string;
    priority: number;
  };
  event: StoredEvent;
}

/**
 * waiting → queued (`resume`), in the caller's transaction, with the job's event. Its run
 * starts from the top; the settled wait returns its value at once.
 */
export async function resumeJob(
  tx: Db,
  job: LockedJob,
  now: number,
): Promise<ResumedJob | undefined> {
  const r = await transitionJob(
    tx,
    { id: job.id, event: 'resume', reason: null, runAfter: null },
    now,
  );
  if (!r.ok) return undefined;
  return {
    pointer: {
      jobId: job.id,
      kind: job.kind,
      version: job.version,
      tenantId: job.tenantId,
      priority: job.priority,
    },
    event: r.event,
  };
}

/** `database.transaction(fn)`, refused where there is none: waits need the row lock. */
export function inTransaction<T>(database: SluiceDatabase, fn: (tx: Db) => Promise<T>): Promise<T> {
  if (!database.capabilities.interactiveTransactions)
    throw new Error('durable waits need a database with interactive transactions');
  return database.transaction(fn);
}

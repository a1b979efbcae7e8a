// Read-side queries over jobs: tenant-scoped pages with an opaque cursor, and counts for metrics.

import { JOB_STATES, type JobState } from '@sluice/contracts';
import { sql } from 'kysely';
import type { Db } from '../database.js';
import { decodeJobCursor, encodeJobCursor } from './job-cursor.js';
import { toJobRow, type JobRow } from './job-row.js';

export interface ListJobsOptions {
  state?: JobState | undefined;
  kind?: string | undefined;
  /** From a previous page's `nextCursor`. */
  cursor?: string | null | undefined;
  limit: number;
}

/** Newest first. An unreadable cursor starts from the top rather than failing. */
export async function listJobs(
  db: Db,
  tenantId: string,
  opts: ListJobsOptions,
): Promise<{ items: JobRow[]; nextCursor: string | null }> {
  let q = db.selectFrom('jobs').selectAll().where('tenant_id', '=', tenantId);
  if (opts.state) q = q.where('state', '=', opts.state);
  if (opts.kind) q = q.where('kind', '=', opts.kind);
  const after = opts.cursor ? decodeJobCursor(opts.cursor) : undefined;
  if (after) {
    q = q.where((eb) =>
      eb.or([
        eb('created_at', '<', after.createdAt),
        eb.and([eb('created_at', '=', after.createdAt), eb('id', '<', after.id)]),
      ]),
    );
  }
  const rows = await q
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(opts.limit + 1)
    .execute();
  const items = rows.slice(0, opts.limit).map(toJobRow);
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > opts.limit && last ? encodeJobCursor(last) : null };
}

/** Jobs per state over every tenant (all states present, zeros included). */
export async function countJobsByState(db: Db): Promise<Record<JobState, number>> {
  const rows = await db
    .selectFrom('jobs')
    .select(['state', sql<number>`count(*)`.as('n')])
    .groupBy('state')
    .execute();
  const out = Object.fromEntries(JOB_STATES.map((s) => [s, 0])) as Record<JobState, number>;
  for (const r of rows) if (r.state in out) out[r.state as JobState] = Number(r.n);
  return out;
}

/** Queued jobs of a (kind, version) not updated since `beforeIso`: the unroutable-grace sweep. */
export async function queuedBefore(
  db: Db,
  kind: string,
  version: string,
  beforeIso: string,
  limit = 100,
): Promise<string[]> {
  const rows = await db
    .selectFrom('jobs')
    .select('id')
    .where('state', '=', 'queued')
    .where('kind', '=', kind)
    .where('version', '=', version)
    .where('updated_at', '<', beforeIso)
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

/** Versions of a kind that have queued jobs (for the unroutable-version sweep). */
export async function queuedVersions(db: Db, kind: string): Promise<string[]> {
  const rows = await db
    .selectFrom('jobs')
    .select('version')
    .distinct()
    .where('state', '=', 'queued')
    .where('kind', '=', kind)
    .execute();
  return rows.map((r) => r.version);
}

export interface DispatchableJob {
  id: string;
  tenantId: string;
  kind: string;
  version: string;
  state: JobState;
  /** Routes the dispatch (a Streams priority band). */
  priority: number;
}

const NON_TERMINAL: JobState[] = ['accepted', 'queued', 'running'];

function toDispatchable(r: {
  id: string;
  tenant_id: string;
  kind: string;
  version: string;
  state: string;
  priority: number;
}): DispatchableJob {
  return {
    id: r.id,
    tenantId: r.tenant_id,
    kind: r.kind,
    version: r.version,
    state: r.state as JobState,
    priority: Number(r.priority),
  };
}

/** One page of every non-terminal job, by id (the full re-dispatch after a Redis data loss). */
export async function nonTerminalJobsPage(
  db: Db,
  afterId: string,
  limit: number,
): Promise<DispatchableJob[]> {
  const rows = await db
    .selectFrom('jobs')
    .select(['id', 'tenant_id', 'kind', 'version', 'state', 'priority'])
    .where('state', 'in', NON_TERMINAL)
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map(toDispatchable);
}

/**
 * One page of jobs that look forgotten by the transport: accepted or queued and untouched (and
 * due) since `quietBeforeIso`, or running with a lease that passed before `leaseBeforeIso`.
 */
export async function forgottenJobsPage(
  db: Db,
  quietBeforeIso: string,
  leaseBeforeIso: string,
  afterId: string,
  limit: number,
): Promise<DispatchableJob[]> {
  const rows = await db
    .selectFrom('jobs')
    .select(['id', 'tenant_id', 'kind', 'version', 'state', 'priority'])
    .where('id', '>', afterId)
    .where((eb) =>
      eb.or([
        eb.and([
          eb('state', 'in', ['accepted', 'queued']),
          eb('updated_at', '<', quietBeforeIso),
          eb.or([eb('run_after', 'is', null), eb('run_after', '<', quietBeforeIso)]),
        ]),
        eb.and([
          eb('state', '=', 'running'),
          eb.or([
            eb('lease_until', '<', leaseBeforeIso),
            eb.and([eb('lease_until', 'is', null), eb('updated_at', '<', leaseBeforeIso)]),
          ]),
        ]),
      ]),
    )
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map(toDispatchable);
}

/** A run the runtime may have lost: what the run recovery needs to decide and to fence. */
export interface QuietRun extends DispatchableJob {
  epoch: number;
  attempts: number;
  maxAttempts: number;
  /** The last write of the job (a state change, progress, a finished unit). */
  updatedAt: string;
}

/**
 * One page of queued or running jobs with no write since `quietBeforeIso` (in id order after
 * `afterId`): the candidates of a runtime's run recovery, which then asks the runtime about each.
 * A delayed job waits in `scheduled` and is never one.
 */
export async function quietRunsPage(
  db: Db,
  quietBeforeIso: string,
  afterId: string,
  limit: number,
): Promise<QuietRun[]> {
  const rows = await db
    .selectFrom('jobs')
    .select([
      'id',
      'tenant_id',
      'kind',
      'version',
      'state',
      'priority',
      'epoch',
      'attempts',
      'max_attempts',
      'updated_at',
    ])
    .where('id', '>', afterId)
    .where('state', 'in', ['queued', 'running'])
    .where('updated_at', '<', quietBeforeIso)
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    ...toDispatchable(r),
    epoch: Number(r.epoch),
    attempts: Number(r.attempts),
    maxAttempts: Number(r.max_attempts),
    updatedAt: String(r.updated_at),
  }));
}

// Jobs: inserts, tenant-scoped reads, and compare-and-set transitions through the contracts
// state machine. A transition and its event (with the next per-job sequence number) are written
// in one transaction, so a watcher never sees a state without its event or the other way round.

import {
  isFinalState,
  randomToken,
  sourceStates,
  TRANSITIONS,
  type JobError,
  type JobEvent,
  type JobState,
  type JobTransition,
} from '@sluice/contracts';
import type { Updateable } from 'kysely';
import type { Db } from '../database.js';
import { atomicBatchOf, isPostgres, rowsPerStatement } from '../dialect.js';
import { isoIn, isoNow, toJson } from '../json.js';
import type { JobsTable } from '../schema.js';
import { insertEvents, type StoredEvent } from './events.js';
import {
  appendAttemptEventsBatched,
  insertJobBatched,
  transitionJobBatched,
} from './jobs-batched.js';
import { toJobRow, type JobRow } from './job-row.js';
import { transitionEvent, type TransitionDetails } from './transition-event.js';

export interface NewJob {
  id: string;
  tenantId: string;
  kind: string;
  version: string;
  input: unknown;
  inputHash: string;
  idempotencyKey?: string | null | undefined;
  fileIds?: readonly string[] | undefined;
  maxAttempts: number;
  /** W3C `traceparent` of the submit (validated by the gateway). */
  traceContext?: string | null | undefined;
  /** Higher is handed out first (default 0). */
  priority?: number | undefined;
  /** The API key id that submitted the job (per-key start limits). */
  apiKeyId?: string | null | undefined;
}

/** The row of a new job in `accepted` (every dialect's insert writes exactly this). */
export function newJobRow(job: NewJob, at: string) {
  return {
    id: job.id,
    tenant_id: job.tenantId,
    kind: job.kind,
    version: job.version,
    state: 'accepted',
    input: toJson(job.input),
    output: null,
    error: null,
    reason: null,
    idempotency_key: job.idempotencyKey ?? null,
    input_hash: job.inputHash,
    file_ids: toJson(job.fileIds ?? []),
    attempts: 0,
    max_attempts: job.maxAttempts,
    epoch: 0,
    attempt_id: null,
    last_seq: 1,
    run_after: null,
    lease_until: null,
    created_at: at,
    updated_at: at,
    finished_at: null,
    trace_context: job.traceContext ?? null,
    priority: job.priority ?? 0,
    priority_at: null,
    api_key_id: job.apiKeyId ?? null,
    waiting: null,
  };
}

/** Inserts a job in `accepted` with its first event (seq 1). */
export async function insertJob(
  tx: Db,
  job: NewJob,
  now = Date.now(),
): Promise<{ job: JobRow; event: StoredEvent }> {
  const batch = atomicBatchOf(tx);
  if (batch) return insertJobBatched(tx, batch, job, now);
  const at = isoNow(now);
  const row = await tx
    .insertInto('jobs')
    .values(newJobRow(job, at))
    .returningAll()
    .executeTakeFirstOrThrow();
  const event = transitionEvent(job.id, 1, at, null, 'accepted', 0, {});
  const [stored] = await insertEvents(tx, [{ tenantId: job.tenantId, kind: job.kind, event }]);
  return { job: toJobRow(row), event: stored as StoredEvent };
}

/** A job of this tenant; another tenant's job is indistinguishable from a missing one. */
export async function getJob(db: Db, tenantId: string, id: string): Promise<JobRow | undefined> {
  const row = await db
    .selectFrom('jobs')
    .selectAll()
    .where('id', '=', id)
    .where('tenant_id', '=', tenantId)
    .executeTakeFirst();
  return row ? toJobRow(row) : undefined;
}

/** Unscoped read, for workers (they act on pointers that already name the tenant). */
export async function getJobById(db: Db, id: string): Promise<JobRow | undefined> {
  const row = await db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toJobRow(row) : undefined;
}

export async function getJobsByIds(db: Db, ids: readonly string[]): Promise<Map<string, JobRow>> {
  const out = new Map<string, JobRow>();
  if (ids.length === 0) return out;
  const perStatement = rowsPerStatement(db, ids.length, 1);
  for (let c = 0; c < ids.length; c += perStatement) {
    const chunk = ids.slice(c, c + perStatement);
    const rows = await db.selectFrom('jobs').selectAll().where('id', 'in', chunk).execute();
    for (const r of rows) out.set(r.id, toJobRow(r));
  }
  return out;
}

export async function findByIdempotencyKey(
  db: Db,
  tenantId: string,
  key: string,
): Promise<JobRow | undefined> {
  const row = await db
    .selectFrom('jobs')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('idempotency_key', '=', key)
    .executeTakeFirst();
  return row ? toJobRow(row) : undefined;
}

export interface TransitionRequest extends TransitionDetails {
  id: string;
  event: JobTransition;
  /** Fencing token: apply only if the job is still at this epoch. */
  epoch?: number | undefined;
  output?: unknown;
  /** Stored on the row (and put on the event); `null` clears it. */
  error?: JobError | null | undefined;
  /** Earliest next dispatch (retry backoff), ISO text. */
  runAfter?: string | null | undefined;
  /** For approve/requeue: reset the attempt budget. */
  resetAttempts?: boolean | undefined;
  /** For start/reclaim: how long the new attempt holds the job (`lease_until`). */
  leaseMs?: number | undefined;
}

export type TransitionOutcome =
  { ok: true; job: JobRow; event: StoredEvent } | { ok: false; job: JobRow | undefined };

/**
 * Compare-and-set: moves the job only if it is in a state the event may leave from (and, when
 * given, still at `epoch`). `start` and `reclaim` open a new attempt: attempts + 1, epoch + 1,
 * a fresh attempt id, a lease of `leaseMs`; `reclaim` only once the previous attempt's lease has
 * passed. Leaving `running` clears the lease. Run it inside a transaction; on a database without
 * interactive transactions (D1) it is a read and one fenced batch (jobs-batched.ts).
 */
export async function transitionJob(
  tx: Db,
  req: TransitionRequest,
  now = Date.now(),
): Promise<TransitionOutcome> {
  const batch = atomicBatchOf(tx);
  if (batch) return transitionJobBatched(tx, batch, req, now);
  const sources = sourceStates(req.event);
  // With one possible source state the update itself is the whole check; with several, the
  // observed state is read first and the update is conditional on exactly it.
  let from: JobState = sources[0] as JobState;
  if (sources.length > 1) {
    const cur = await tx
      .selectFrom('jobs')
      .select('state')
      .where('id', '=', req.id)
      .executeTakeFirst();
    if (!cur || !(sources as readonly string[]).includes(cur.state))
      return { ok: false, job: await getJobById(tx, req.id) };
    from = cur.state as JobState;
  }
  const at = isoNow(now);
  const to = TRANSITIONS[req.event].to as JobState;
  const q = transitionUpdate(tx, req, from, now);
  const row = await q.returningAll().executeTakeFirst();
  if (!row) return { ok: false, job: await getJobById(tx, req.id) };
  const job = toJobRow(row);
  const event = transitionEvent(job.id, job.lastSeq, at, from, to, job.attempts, {
    ...req,
    error: req.error ?? undefined,
  });
  const [stored] = await insertEvents(tx, [{ tenantId: job.tenantId, kind: job.kind, event }]);
  return { ok: true, job, event: stored as StoredEvent };
}

/**
 * The compare-and-set UPDATE of a transition from `from` (no RETURNING yet): shared by the
 * transaction form above and the batch form (jobs-batched.ts), which adds its own fence.
 */
export function transitionUpdate(db: Db, req: TransitionRequest, from: JobState, now: number) {
  const to = TRANSITIONS[req.event].to as JobState;
  const at = isoNow(now);
  const opensAttempt = req.event === 'start' || req.event === 'reclaim';
  const set: Updateable<JobsTable> = { state: to, updated_at: at };
  if (req.output !== undefined) set.output = toJson(req.output);
  if (req.error !== undefined) set.error = req.error === null ? null : toJson(req.error);
  if (req.reason !== undefined) set.reason = req.reason;
  if (req.runAfter !== undefined) set.run_after = req.runAfter;
  if (isFinalState(to)) set.finished_at = at;
  if (opensAttempt) {
    set.attempt_id = randomToken();
    set.lease_until = req.leaseMs === undefined ? null : isoIn(req.leaseMs, now);
  } else if (to !== 'running') {
    set.lease_until = null;
  }
  let q = db
    .updateTable('jobs')
    .set(set)
    .set((eb) => ({
      last_seq: eb('last_seq', '+', 1),
      ...(opensAttempt ? { attempts: eb('attempts', '+', 1), epoch: eb('epoch', '+', 1) } : {}),
      // Opening an attempt always counts it; a reset applies to approve/requeue.
      ...(req.resetAttempts && !opensAttempt ? { attempts: eb.val(0) } : {}),
    }))
    .where('id', '=', req.id)
    .where('state', '=', from);
  if (req.epoch !== undefined) q = q.where('epoch', '=', req.epoch);
  if (req.event === 'reclaim')
    q = q.where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', at)]));
  return q;
}

export type AttemptEvent =
  | { type: 'progress'; data: unknown }
  | { type: 'unit_done'; unitKey: string; reused?: boolean | undefined }
  | { type: 'waiting'; reason: 'rate_limited' | 'concurrency_limited'; by: string };

/**
 * Appends progress or unit events of a running attempt, fenced by its epoch. Returns the stored
 * events, or `undefined` when the attempt no longer owns the job (cancelled, reclaimed).
 */
export async function appendAttemptEvents(
  tx: Db,
  id: string,
  epoch: number,
  events: readonly AttemptEvent[],
  now = Date.now(),
): Promise<StoredEvent[] | undefined> {
  if (events.length === 0) return [];
  const batch = atomicBatchOf(tx);
  if (batch) return appendAttemptEventsBatched(tx, batch, id, epoch, events, now);
  const at = isoNow(now);
  const row = await tx
    .updateTable('jobs')
    .set((eb) => ({ last_seq: eb('last_seq', '+', events.length), updated_at: at }))
    .where('id', '=', id)
    .where('state', '=', 'running')
    .where('epoch', '=', epoch)
    .returning(['last_seq', 'tenant_id', 'kind'])
    .executeTakeFirst();
  if (!row) return undefined;
  const first = Number(row.last_seq) - events.length + 1;
  const built: JobEvent[] = events.map(
    (e, i) => ({ ...e, jobId: id, seq: first + i, at }) as JobEvent,
  );
  return insertEvents(
    tx,
    built.map((event) => ({ tenantId: row.tenant_id, kind: row.kind, event })),
  );
}

/**
 * Locks job rows in id order (PostgreSQL; a no-op on SQLite, whose IMMEDIATE transactions
 * already serialise writers). Every transaction that writes several jobs takes its locks this
 * way first, so two of them can never wait on each other in a cycle (a deadlock).
 */
export async function lockJobs(tx: Db, ids: readonly string[]): Promise<void> {
  if (ids.length === 0 || !isPostgres(tx)) return;
  const sorted = [...new Set(ids)].sort();
  for (let i = 0; i < sorted.length; i += 500) {
    await tx
      .selectFrom('jobs')
      .select('id')
      .where('id', 'in', sorted.slice(i, i + 500))
      .orderBy('id')
      .forUpdate()
      .execute();
  }
}

/**
 * The renewal tick: extends the lease of every (id, epoch) attempt that still owns a running job
 * and returns their ids. An attempt missing from the answer was cancelled, finished or reclaimed.
 */
export async function extendLeases(
  db: Db,
  attempts: readonly { id: string; epoch: number }[],
  leaseMs: number,
  now = Date.now(),
): Promise<Set<string>> {
  if (attempts.length === 0) return new Set();
  const out = new Set<string>();
  // One statement here; chunks only where the database binds few parameters (D1).
  const per = rowsPerStatement(db, attempts.length, 3, 2);
  for (let c = 0; c < attempts.length; c += per) {
    const chunk = attempts.slice(c, c + per);
    const rows = await db
      .updateTable('jobs')
      .set({ lease_until: isoIn(leaseMs, now) })
      .where('state', '=', 'running')
      .where((eb) =>
        eb.or(chunk.map((a) => eb.and([eb('id', '=', a.id), eb('epoch', '=', a.epoch)]))),
      )
      // Row locks in id order, like every multi-job write (see lockJobs).
      .where('id', 'in', (eb) => {
        const q = eb
          .selectFrom('jobs')
          .select('id')
          .where(
            'id',
            'in',
            chunk.map((a) => a.id),
          )
          .orderBy('id');
        return isPostgres(db) ? q.forUpdate() : q;
      })
      .returning('id')
      .execute();
    for (const r of rows) out.add(r.id);
  }
  return out;
}

/** Which of these (id, epoch) attempts still own a running job: renewal and cancellation check. */
export async function stillRunning(
  db: Db,
  attempts: readonly { id: string; epoch: number }[],
): Promise<Set<string>> {
  const owned = new Set<string>();
  if (attempts.length === 0) return owned;
  const epochs = new Map<string, number>();
  const per = rowsPerStatement(db, attempts.length, 1, 1);
  for (let c = 0; c < attempts.length; c += per) {
    const rows = await db
      .selectFrom('jobs')
      .select(['id', 'epoch'])
      .where(
        'id',
        'in',
        attempts.slice(c, c + per).map((a) => a.id),
      )
      .where('state', '=', 'running')
      .execute();
    for (const r of rows) epochs.set(r.id, Number(r.epoch));
  }
  for (const a of attempts) if (epochs.get(a.id) === a.epoch) owned.add(a.id);
  return owned;
}

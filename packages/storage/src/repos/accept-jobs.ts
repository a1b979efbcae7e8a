// Group commit of accepted jobs: many new jobs written by one multi-row statement per table, each
// directly in the state the accept path gives it (`queued`, or `dead_lettered` when no worker
// serves its version) with the same two events `insertJob` + `transitionJob` would have written
// (seq 1 `accepted`, seq 2 the move), stored as ONE event row (seq 1..2, event-rows.ts). Job rows
// are identical to the row-by-row path (accept-jobs.test.ts compares them column by column).
//
// The jobs insert is `ON CONFLICT DO NOTHING`: a job whose idempotency key another transaction
// stored meanwhile is skipped (and reported), never failing the others in the statement.

import type { JobState } from '@sluice/contracts';
import { CompiledQuery } from 'kysely';
import type { Db, SluiceDatabase } from '../database.js';
import { isPostgres, rowsPerStatement } from '../dialect.js';
import { isoNow, toJson } from '../json.js';
import { insertAcceptedJobsD1 } from './accept-jobs-d1.js';
import { eventRowColumns } from './event-rows.js';
import type { EventToInsert, StoredEvent } from './events.js';
import type { NewJob } from './jobs.js';
import { toJobRow, type JobRow } from './job-row.js';
import { transitionEvent } from './transition-event.js';

/** Where an accepted job lands in the same transaction. */
export type AcceptedOutcome =
  | { to: 'queued' }
  /** A delayed job: waits until `runAt` (ISO), then the due-job scheduler dispatches it. */
  | { to: 'scheduled'; runAt: string }
  | { to: 'dead_lettered'; reason: string; detail?: string | undefined };

/** The `run_after` column of an accepted job: its due time when scheduled. */
export function acceptedRunAfter(outcome: AcceptedOutcome): string | null {
  return outcome.to === 'scheduled' ? outcome.runAt : null;
}

export interface AcceptedJob extends NewJob {
  outcome: AcceptedOutcome;
}

export interface AcceptedWrite {
  /** Ids of the jobs written (a skipped job lost its idempotency key to another writer). */
  inserted: Set<string>;
  /** Events of the written jobs, in insertion order (per job: seq 1, then seq 2). */
  events: StoredEvent[];
  /** The queued jobs' outbox rows were written with them (D1, `outbox: true`). */
  outboxWritten?: boolean | undefined;
}

// Rows per statement, inside both dialects' parameter limits (SQLite 32,766; PostgreSQL 65,535).
const CHUNK = 250;

const JOB_COLUMNS =
  'id, tenant_id, kind, version, state, input, output, error, reason, idempotency_key, ' +
  'input_hash, file_ids, attempts, max_attempts, epoch, attempt_id, last_seq, run_after, ' +
  'lease_until, created_at, updated_at, finished_at, trace_context, priority, api_key_id';

/**
 * Statement text and its parameters. Written out rather than built with the query builder: on
 * the submit hot path the builder's per-value nodes cost more than the insert itself.
 */
function statement(tx: Db) {
  const pg = isPostgres(tx);
  const params: unknown[] = [];
  const p = (value: unknown): string => {
    params.push(value);
    return pg ? `$${params.length}` : '?';
  };
  return {
    pg,
    params,
    p,
    /** A value used in every row: sent once on PostgreSQL (`$n` repeats), per use on SQLite. */
    shared(value: unknown): () => string {
      if (!pg) return () => p(value);
      const mark = p(value);
      return () => mark;
    },
  };
}

/** The two events of an accepted job (seq 1 `accepted`, seq 2 the move). */
function eventsOf(job: AcceptedJob, at: string): EventToInsert[] {
  const o = job.outcome;
  const base = { tenantId: job.tenantId, kind: job.kind };
  return [
    { ...base, event: transitionEvent(job.id, 1, at, null, 'accepted', 0, {}) },
    {
      ...base,
      event: transitionEvent(job.id, 2, at, 'accepted', o.to, 0, {
        ...(o.to === 'dead_lettered' ? { reason: o.reason, detail: o.detail } : {}),
      }),
    },
  ];
}

/** `insert into jobs … values …` for these jobs (no conflict clause). */
function jobsInsert(q: Statement, jobs: readonly AcceptedJob[], at: string): string {
  const t = q.shared(at);
  const rows = jobs.map((job) => {
    const o = job.outcome;
    // No accepted state is final (a dead letter can be requeued): no finished_at.
    return (
      `(${q.p(job.id)}, ${q.p(job.tenantId)}, ${q.p(job.kind)}, ${q.p(job.version)}, ` +
      `${q.p(o.to satisfies JobState)}, ${q.p(toJson(job.input))}, null, null, ` +
      `${q.p(o.to === 'dead_lettered' ? o.reason : null)}, ${q.p(job.idempotencyKey ?? null)}, ` +
      `${q.p(job.inputHash)}, ${q.p(toJson(job.fileIds ?? []))}, 0, ${q.p(job.maxAttempts)}, ` +
      `0, null, 2, ${q.p(acceptedRunAfter(o))}, null, ${t()}, ${t()}, null, ` +
      `${q.p(job.traceContext ?? null)}, ${q.p(job.priority ?? 0)}, ${q.p(job.apiKeyId ?? null)})`
    );
  });
  return `insert into jobs (${JOB_COLUMNS}) values ${rows.join(', ')}`;
}

const EVENT_COLUMNS = 'job_id, tenant_id, kind, seq, seq_end, type, payload, created_at';

export type EventIdRow = { job_id: string; event_id: number | string | null; seq: number | null };

/** A job's events as one row: both accept events share it (seq 1, seq_end 2). */
function rowsOf(events: readonly EventToInsert[]) {
  const byJob = new Map<string, EventToInsert[]>();
  for (const e of events) byJob.set(e.event.jobId, [...(byJob.get(e.event.jobId) ?? []), e]);
  return [...byJob.values()].map((group) => {
    const first = group[0] as EventToInsert;
    const cols = eventRowColumns({
      jobId: first.event.jobId,
      tenantId: first.tenantId,
      kind: first.kind,
      events: group.map((g) => g.event),
    });
    return { jobId: first.event.jobId, tenantId: first.tenantId, kind: first.kind, ...cols };
  });
}

/** Stored events in insertion order, row ids matched by job (RETURNING order is unspecified). */
export function storedAcceptEvents(events: readonly EventToInsert[], rows: readonly EventIdRow[]) {
  const ids = new Map<string, number>();
  for (const r of rows) if (r.event_id !== null) ids.set(r.job_id, Number(r.event_id));
  const out: StoredEvent[] = [];
  for (const e of events) {
    const id = ids.get(e.event.jobId);
    if (id !== undefined) out.push({ id, ...e });
  }
  return out;
}

type Statement = ReturnType<typeof statement>;

/** The accept events of these jobs and their event rows (one row per job). */
export function acceptEventRows(jobs: readonly AcceptedJob[], at: string) {
  const events = jobs.flatMap((job) => eventsOf(job, at));
  return { events, rows: rowsOf(events) };
}

/**
 * Accepts the jobs atomically on any database: inside one transaction where there is one, as
 * ONE `batch()` per chunk on D1 (accept-jobs-d1.ts). Same rows and events either way.
 */
export async function acceptJobs(
  database: SluiceDatabase,
  jobs: readonly AcceptedJob[],
  now = Date.now(),
  /**
   * `outbox`: on D1, the queued jobs' outbox rows go in the same batch (a Worker stopped right
   * after the accept cannot leave a queued job the reconciler does not know of). Elsewhere the
   * caller stages them inside its own transaction. `outboxScheduled`: the scheduled jobs' rows
   * too (a runtime whose run waits for the due time itself, `delaysInRun`, is sent them now).
   */
  opts: { outbox?: boolean | undefined; outboxScheduled?: boolean | undefined } = {},
): Promise<AcceptedWrite> {
  if (jobs.length === 0) return { inserted: new Set(), events: [] };
  const native = database.native;
  if (native.dialect === 'd1') {
    return insertAcceptedJobsD1(native.d1, jobs, isoNow(now), opts.outbox === true, {
      scheduled: opts.outboxScheduled === true,
    });
  }
  return database.transaction((tx) => insertAcceptedJobs(tx, jobs, now));
}

/** Inserts the jobs with both events; returns what was written. Run it inside a transaction. */
export async function insertAcceptedJobs(
  tx: Db,
  jobs: readonly AcceptedJob[],
  now = Date.now(),
): Promise<AcceptedWrite> {
  const at = isoNow(now);
  const written: AcceptedWrite = { inserted: new Set(), events: [] };
  for (let c = 0; c < jobs.length; c += CHUNK) {
    const chunk = jobs.slice(c, c + CHUNK);
    const events = chunk.flatMap((job) => eventsOf(job, at));
    const q = statement(tx);
    let rows: EventIdRow[];
    if (q.pg) {
      // One round trip: the events insert reads which jobs the jobs insert wrote.
      const t = q.shared(at);
      const values = rowsOf(events).map(
        (r, i) =>
          `(${q.p(r.jobId)}, ${q.p(r.tenantId)}, ${q.p(r.kind)}, ${q.p(r.seq)}::int, ` +
          `${q.p(r.seqEnd)}::int, ${q.p(r.type)}, ${q.p(r.payload)}::jsonb, ${t()}, ${i})`,
      );
      const text =
        `with j as (${jobsInsert(q, chunk, at)} on conflict do nothing returning id), ` +
        `e as (insert into job_events (${EVENT_COLUMNS}) select ${EVENT_COLUMNS} ` +
        `from (values ${values.join(', ')}) as v(${EVENT_COLUMNS}, ord) ` +
        'where job_id in (select id from j) order by ord returning id, job_id, seq) ' +
        'select id as job_id, null::bigint as event_id, null::int as seq from j ' +
        'union all select job_id, id, seq from e';
      rows = (await tx.executeQuery<EventIdRow>(CompiledQuery.raw(text, q.params))).rows;
    } else {
      const text = `${jobsInsert(q, chunk, at)} on conflict do nothing returning id`;
      const ids = await tx.executeQuery<{ id: string }>(CompiledQuery.raw(text, q.params));
      rows = ids.rows.map((r) => ({ job_id: r.id, event_id: null, seq: null }));
      const inserted = new Set(rows.map((r) => r.job_id));
      rows.push(
        ...(await insertEventRows(
          tx,
          events.filter((e) => inserted.has(e.event.jobId)),
          at,
        )),
      );
    }
    for (const r of rows) if (r.event_id === null) written.inserted.add(r.job_id);
    written.events.push(...storedAcceptEvents(events, rows));
  }
  return written;
}

/** The events insert on its own (SQLite: no data-modifying CTEs). */
async function insertEventRows(
  tx: Db,
  events: readonly EventToInsert[],
  at: string,
): Promise<EventIdRow[]> {
  if (events.length === 0) return [];
  const q = statement(tx);
  const t = q.shared(at);
  const rows = rowsOf(events).map(
    (r) =>
      `(${q.p(r.jobId)}, ${q.p(r.tenantId)}, ${q.p(r.kind)}, ${q.p(r.seq)}, ${q.p(r.seqEnd)}, ` +
      `${q.p(r.type)}, ${q.p(r.payload)}, ${t()})`,
  );
  const result = await tx.executeQuery<{ id: number; job_id: string; seq: number }>(
    CompiledQuery.raw(
      `insert into job_events (${EVENT_COLUMNS}) values ${rows.join(', ')} ` +
        'returning id, job_id, seq',
      q.params,
    ),
  );
  return result.rows.map((r) => ({ job_id: r.job_id, event_id: r.id, seq: r.seq }));
}

export interface IdempotencyRef {
  tenantId: string;
  key: string;
}

/** `tenantId \0 key`: the map key of `findByIdempotencyKeys`. */
export function idempotencyRefKey(ref: IdempotencyRef): string {
  return `${ref.tenantId}\u0000${ref.key}`;
}

/** The stored jobs of these (tenant, key) pairs, by `idempotencyRefKey`. */
export async function findByIdempotencyKeys(
  db: Db,
  refs: readonly IdempotencyRef[],
): Promise<Map<string, JobRow>> {
  const out = new Map<string, JobRow>();
  const unique = [...new Map(refs.map((r) => [idempotencyRefKey(r), r])).values()];
  const perStatement = rowsPerStatement(db, CHUNK, 2);
  for (let c = 0; c < unique.length; c += perStatement) {
    const chunk = unique.slice(c, c + perStatement);
    // An OR of (tenant, key) equalities: both dialects answer it from the unique index.
    const rows = await db
      .selectFrom('jobs')
      .selectAll()
      .where((eb) =>
        eb.or(
          chunk.map((r) =>
            eb.and([eb('tenant_id', '=', r.tenantId), eb('idempotency_key', '=', r.key)]),
          ),
        ),
      )
      .execute();
    for (const row of rows) {
      const job = toJobRow(row);
      if (job.idempotencyKey !== null)
        out.set(idempotencyRefKey({ tenantId: job.tenantId, key: job.idempotencyKey }), job);
    }
  }
  return out;
}

/**
 * Which of these files exist for the tenant that names them, as `tenantId \0 fileId`: another
 * tenant's file is reported exactly like a missing one.
 */
export async function ownedFileRefs(
  db: Db,
  refs: readonly { tenantId: string; fileId: string }[],
): Promise<Set<string>> {
  const owned = new Set<string>();
  const ids = [...new Set(refs.map((r) => r.fileId))];
  const perStatement = rowsPerStatement(db, 500, 1);
  for (let c = 0; c < ids.length; c += perStatement) {
    const rows = await db
      .selectFrom('files')
      .select(['id', 'tenant_id'])
      .where('id', 'in', ids.slice(c, c + perStatement))
      .execute();
    for (const r of rows) owned.add(`${r.tenant_id}\u0000${r.id}`);
  }
  return owned;
}

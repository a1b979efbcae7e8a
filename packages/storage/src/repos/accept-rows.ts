// What every dialect's accept statements share: the accepted job and its outcome, the rows the
// group commit writes (a job row straight in its accepted state, and ONE event row holding its
// `accepted` event and the move after it, seq 1..2), the multi-row statement text, and how the
// ids a statement returned are matched back to the events. Pure: no database handle here; the
// statements run in dialect/*/accept-*.ts.

import { snapshotWithInput, type JobState, type PointerSnapshot } from '@sluice/contracts';
import { toJson } from '../json.js';
import { eventRowColumns, type EventToInsert, type StoredEvent } from './event-rows.js';
import type { NewJob } from './job-row.js';
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

/**
 * The input's JSON text as the accept writes it, serialized once per job: the insert and the
 * pointer's snapshot (which carries the same text) both read it. Keyed by the job object, which
 * the accept path passes to both unchanged.
 */
const inputTexts = new WeakMap<object, string>();
export function acceptedInputJson(job: AcceptedJob): string {
  let text = inputTexts.get(job);
  if (text === undefined) inputTexts.set(job, (text = toJson(job.input)));
  return text;
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

/** What an accept statement returned: a job it wrote (event_id null) or that job's event row. */
export type EventIdRow = { job_id: string; event_id: number | string | null; seq: number | null };

export const JOB_COLUMNS =
  'id, tenant_id, kind, version, state, input, output, error, reason, idempotency_key, ' +
  'input_hash, file_ids, attempts, max_attempts, epoch, attempt_id, last_seq, run_after, ' +
  'lease_until, created_at, updated_at, finished_at, trace_context, priority, api_key_id, hold, ' +
  'tags, metadata';

export const EVENT_COLUMNS = 'job_id, tenant_id, kind, seq, seq_end, type, payload, created_at';

/**
 * Statement text and its parameters, written out rather than built with the query builder: on
 * the submit hot path the builder's per-value nodes cost more than the insert itself. `?`
 * parameters (SQLite): a value used in every row is sent once per use. PostgreSQL sends a
 * chunk's rows as JSON parameters instead (dialect/postgres/accept-insert.ts).
 */
export function acceptStatement() {
  const params: unknown[] = [];
  const p = (value: unknown): string => {
    params.push(value);
    return '?';
  };
  return {
    params,
    p,
    /** A value used in every row. */
    shared(value: unknown): () => string {
      return () => p(value);
    },
  };
}

export type AcceptStatement = ReturnType<typeof acceptStatement>;

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

/** `last_seq` of an accepted job: its two events (`accepted`, then the move). */
export const ACCEPTED_LAST_SEQ = 2;

/**
 * The row this accept wrote for a job it queued, as its pointer carries it (a first delivery
 * starts from it without reading the row back): epoch 0, no attempt yet, `last_seq` 2. None for
 * a job with files: the worker checks they still exist, which needs the database anyway.
 */
export function acceptedSnapshot(job: AcceptedJob, createdAt: string): PointerSnapshot | undefined {
  if (job.outcome.to !== 'queued' || (job.fileIds?.length ?? 0) > 0) return undefined;
  return snapshotWithInput(
    {
      epoch: 0,
      lastSeq: ACCEPTED_LAST_SEQ,
      attempts: 0,
      maxAttempts: job.maxAttempts,
      createdAt,
      ...(job.traceContext ? { traceContext: job.traceContext } : {}),
      ...(job.apiKeyId ? { apiKeyId: job.apiKeyId } : {}),
    },
    acceptedInputJson(job),
  );
}

/** `insert into jobs … values …` for these jobs (no conflict clause). */
export function jobsInsert(q: AcceptStatement, jobs: readonly AcceptedJob[], at: string): string {
  const t = q.shared(at);
  const rows = jobs.map((job) => {
    const o = job.outcome;
    // No accepted state is final (a dead letter can be requeued): no finished_at.
    return (
      `(${q.p(job.id)}, ${q.p(job.tenantId)}, ${q.p(job.kind)}, ${q.p(job.version)}, ` +
      `${q.p(o.to satisfies JobState)}, ${q.p(acceptedInputJson(job))}, null, null, ` +
      `${q.p(o.to === 'dead_lettered' ? o.reason : null)}, ${q.p(job.idempotencyKey ?? null)}, ` +
      `${q.p(job.inputHash)}, ${q.p(toJson(job.fileIds ?? []))}, 0, ${q.p(job.maxAttempts)}, ` +
      `0, null, ${ACCEPTED_LAST_SEQ}, ${q.p(acceptedRunAfter(o))}, null, ${t()}, ${t()}, null, ` +
      `${q.p(job.traceContext ?? null)}, ${q.p(job.priority ?? 0)}, ${q.p(job.apiKeyId ?? null)}, ` +
      `${job.hold ? 1 : 0}, ${q.p(toJson(job.tags ?? []))}, ${q.p(toJson(job.metadata ?? {}))})`
    );
  });
  return `insert into jobs (${JOB_COLUMNS}) values ${rows.join(', ')}`;
}

/** A job's events as one row: both accept events share it (seq 1, seq_end 2). */
export function acceptEventRowsOf(events: readonly EventToInsert[]) {
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

/** One job's accept event row, as the statements insert it. */
export type AcceptEventRow = ReturnType<typeof acceptEventRowsOf>[number];

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

/** The accept events of these jobs and their event rows (one row per job). */
export function acceptEventRows(jobs: readonly AcceptedJob[], at: string) {
  const events = jobs.flatMap((job) => eventsOf(job, at));
  return { events, rows: acceptEventRowsOf(events) };
}

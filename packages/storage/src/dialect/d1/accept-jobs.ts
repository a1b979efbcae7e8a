// The accept path's group commit on D1: ONE `batch()` per chunk, two statements, no read
// between them. The jobs insert takes the rows as one JSON parameter (D1 binds at most 100
// parameters per statement; one array fits any chunk) and skips a row whose idempotency key is
// already stored (`on conflict do nothing`), as on the other dialects. The events insert then
// writes the accept events of exactly the jobs that statement wrote: a job row always lands
// together with its event row, so "the job exists and has no event row yet" names them, inside
// the batch where nothing else interleaves. With `outbox`, a third statement writes the outbox row
// of every queued job the batch wrote (its id is fresh: it exists only if this batch inserted it),
// so a job and its dispatch obligation land together or not at all.
import { toJson } from '../../json.js';
import {
  acceptEventRows,
  acceptedInputJson,
  acceptedRunAfter,
  storedAcceptEvents,
  type AcceptedJob,
  type AcceptedWrite,
} from '../../repos/accept-rows.js';
import type { D1Like } from './d1-like.js';

// Jobs per batch: keeps each JSON parameter well under D1's 2 MB per bound value for typical inputs.
const CHUNK = 100;

const JOBS = `insert into jobs (id, tenant_id, kind, version, state, input, output, error, reason,
  idempotency_key, input_hash, file_ids, attempts, max_attempts, epoch, attempt_id, last_seq,
  run_after, lease_until, created_at, updated_at, finished_at, trace_context, priority, hold, tags,
  metadata)
select j.value ->> 'id', j.value ->> 'tenant', j.value ->> 'kind', j.value ->> 'version',
  j.value ->> 'state', j.value ->> 'input', null, null, j.value ->> 'reason', j.value ->> 'key',
  j.value ->> 'hash', j.value ->> 'files', 0, j.value ->> 'max', 0, null, 2, j.value ->> 'runAfter',
  null, ?2, ?2, null,
  j.value ->> 'trace', j.value ->> 'priority', coalesce(j.value ->> 'hold', 0),
  j.value ->> 'tags', j.value ->> 'meta'
from json_each(?1) j where true
on conflict do nothing returning id`;

const EVENTS = `insert into job_events (job_id, tenant_id, kind, seq, seq_end, type, payload, created_at)
select e.value ->> 'job', e.value ->> 'tenant', e.value ->> 'kind', e.value ->> 'seq',
  e.value ->> 'seqEnd', e.value ->> 'type', e.value ->> 'payload', ?2
from json_each(?1) e
where exists (select 1 from jobs where id = e.value ->> 'job')
  and not exists (select 1 from job_events x where x.job_id = e.value ->> 'job')
returning id, job_id, seq`;

const OUTBOX = `insert into outbox (job_id, due_at, created_at)
select j.value ->> 'id', ?2, ?2 from json_each(?1) j
where (j.value ->> 'state' = 'queued' or (?3 = 1 and j.value ->> 'state' = 'scheduled'))
  and exists (select 1 from jobs where id = j.value ->> 'id')
on conflict (job_id) do update set due_at = excluded.due_at`;

export async function insertAcceptedJobsD1(
  d1: D1Like,
  jobs: readonly AcceptedJob[],
  at: string,
  outbox = false,
  /** Outbox rows for the scheduled jobs too (`delaysInRun`: dispatched before they are due). */
  also: { scheduled: boolean } = { scheduled: false },
): Promise<AcceptedWrite> {
  const written: AcceptedWrite = { inserted: new Set(), events: [], outboxWritten: outbox };
  for (let c = 0; c < jobs.length; c += CHUNK) {
    const chunk = jobs.slice(c, c + CHUNK);
    const rows = chunk.map((job) => ({
      id: job.id,
      tenant: job.tenantId,
      kind: job.kind,
      version: job.version,
      state: job.outcome.to,
      input: acceptedInputJson(job),
      reason: job.outcome.to === 'dead_lettered' ? job.outcome.reason : null,
      key: job.idempotencyKey ?? null,
      hash: job.inputHash,
      files: toJson(job.fileIds ?? []),
      max: job.maxAttempts,
      runAfter: acceptedRunAfter(job.outcome),
      trace: job.traceContext ?? null,
      priority: job.priority ?? 0,
      hold: job.hold ? 1 : 0,
      tags: toJson(job.tags ?? []),
      meta: toJson(job.metadata ?? {}),
    }));
    const { events, rows: eventRows } = acceptEventRows(chunk, at);
    const [inserted, stored] = await d1.batch([
      d1.prepare(JOBS).bind(JSON.stringify(rows), at),
      d1.prepare(EVENTS).bind(
        JSON.stringify(
          eventRows.map((r) => ({
            job: r.jobId,
            tenant: r.tenantId,
            kind: r.kind,
            seq: r.seq,
            seqEnd: r.seqEnd,
            type: r.type,
            payload: r.payload,
          })),
        ),
        at,
      ),
      ...(outbox
        ? [d1.prepare(OUTBOX).bind(JSON.stringify(rows), at, also.scheduled ? 1 : 0)]
        : []),
    ]);
    for (const r of (inserted?.results ?? []) as { id: string }[]) written.inserted.add(r.id);
    const ids = ((stored?.results ?? []) as { id: number; job_id: string; seq: number }[]).map(
      (r) => ({ job_id: r.job_id, event_id: r.id, seq: r.seq }),
    );
    written.events.push(...storedAcceptEvents(events, ids));
  }
  return written;
}

// The accept group commit's statement on PostgreSQL: ONE round trip per chunk. The events insert
// is a data-modifying CTE that reads which jobs the jobs insert wrote (`on conflict do nothing`
// skips a job whose idempotency key another transaction stored), so a skipped job gets no event
// row.
//
// The chunk travels as two JSON parameters (`json_to_recordset`: the jobs, their event rows) and
// the text is the same whatever the chunk's size. Why: written as `values (…), (…)` with a
// parameter per value (~20 per job), PostgreSQL parsed and planned ~1,300 parameters per 64-job
// chunk, and planning was three quarters of the backend's CPU for the statement. On a private
// cluster (bench/src/tools/terminal-cost.ts `accept`: 20,000 jobs, 64 a transaction, load1 5-6):
// 147.6 → 82.0 ms of backend CPU per 1,000 accepted jobs, planning 111.2 → 4.3 ms; WAL (1,585
// bytes, 10.2 records) and buffers (19.7) per job unchanged. The jsonb columns travel as JSON
// text and are cast as before (`'null'` stays a JSON null, not SQL NULL).

import { CompiledQuery } from 'kysely';
import type { Db } from '../../database.js';
import {
  ACCEPTED_LAST_SEQ,
  acceptedInputJson,
  acceptedRunAfter,
  EVENT_COLUMNS,
  JOB_COLUMNS,
  type AcceptedJob,
  type AcceptEventRow,
  type EventIdRow,
} from '../../repos/accept-rows.js';
import { toJson } from '../../json.js';

const ACCEPT_SQL = `
with j as (
  insert into jobs (${JOB_COLUMNS})
  select r.id, r.tenant_id, r.kind, r.version, r.state, r.input::jsonb, null, null, r.reason,
    r.idempotency_key, r.input_hash, r.file_ids::jsonb, 0, r.max_attempts, 0, null,
    ${ACCEPTED_LAST_SEQ}, r.run_after, null, $3, $3, null, r.trace_context, r.priority,
    r.api_key_id, r.hold, r.tags::jsonb, r.metadata::jsonb
  from json_to_recordset($1::json) as r(id text, tenant_id text, kind text, version text,
    state text, input text, reason text, idempotency_key text, input_hash text, file_ids text,
    max_attempts int, run_after text, trace_context text, priority int, api_key_id text,
    hold int, tags text, metadata text)
  on conflict do nothing returning id
),
e as (
  insert into job_events (${EVENT_COLUMNS})
  select v.job_id, v.tenant_id, v.kind, v.seq, v.seq_end, v.type, v.payload::jsonb, $3
  from json_to_recordset($2::json) as v(job_id text, tenant_id text, kind text,
    seq int, seq_end int, type text, payload text, ord int)
  where v.job_id in (select id from j) order by v.ord
  returning id, job_id, seq
)
select id as job_id, null::bigint as event_id, null::int as seq from j
union all select job_id, id, seq from e`;

export async function insertAcceptedPg(
  tx: Db,
  jobs: readonly AcceptedJob[],
  events: readonly AcceptEventRow[],
  at: string,
): Promise<EventIdRow[]> {
  const jobRows = jobs.map((job) => {
    const o = job.outcome;
    // No accepted state is final (a dead letter can be requeued): no finished_at.
    return {
      id: job.id,
      tenant_id: job.tenantId,
      kind: job.kind,
      version: job.version,
      state: o.to,
      input: acceptedInputJson(job),
      reason: o.to === 'dead_lettered' ? o.reason : null,
      idempotency_key: job.idempotencyKey ?? null,
      input_hash: job.inputHash,
      file_ids: toJson(job.fileIds ?? []),
      max_attempts: job.maxAttempts,
      run_after: acceptedRunAfter(o),
      trace_context: job.traceContext ?? null,
      priority: job.priority ?? 0,
      api_key_id: job.apiKeyId ?? null,
      hold: job.hold ? 1 : 0,
      tags: toJson(job.tags ?? []),
      metadata: toJson(job.metadata ?? {}),
    };
  });
  const eventRows = events.map((r, ord) => ({
    job_id: r.jobId,
    tenant_id: r.tenantId,
    kind: r.kind,
    seq: r.seq,
    seq_end: r.seqEnd,
    type: r.type,
    payload: r.payload,
    ord,
  }));
  const params = [JSON.stringify(jobRows), JSON.stringify(eventRows), at];
  return (await tx.executeQuery<EventIdRow>(CompiledQuery.raw(ACCEPT_SQL, params))).rows;
}

// The job row as the rest of the code sees it (camelCase, parsed JSON, typed state).

import type { JobError, JobState, JobWaiting } from '@sluice/contracts';
import type { Selectable } from 'kysely';
import { fromJson, toJson } from '../json.js';
import type { JobsTable } from '../schema.js';

export interface JobRow {
  id: string;
  tenantId: string;
  kind: string;
  version: string;
  state: JobState;
  input: unknown;
  output: unknown;
  error: JobError | null;
  reason: string | null;
  idempotencyKey: string | null;
  inputHash: string;
  fileIds: string[];
  attempts: number;
  maxAttempts: number;
  epoch: number;
  attemptId: string | null;
  lastSeq: number;
  runAfter: string | null;
  leaseUntil: string | null;
  createdAt: string;
  updatedAt: string;
  finishedAt: string | null;
  /** W3C `traceparent` the job was submitted under. */
  traceContext: string | null;
  /** Higher is handed out first (raised by aging while it waits). */
  priority: number;
  /** The API key that submitted the job (null: none). */
  apiKeyId: string | null;
  /** The limit holding the queued job (null: none). */
  waiting: JobWaiting | null;
  /** A legal hold: retention never removes the job while it is set. */
  hold: boolean;
  /** A child job's parent (null: submitted by a client). */
  parentId: string | null;
  /** A child its parent's cancel leaves alone. */
  detached: boolean;
  /** The submitter's tags and metadata (searchable). */
  tags: string[];
  metadata: Record<string, unknown>;
}

export function toJobRow(row: Selectable<JobsTable>): JobRow {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    kind: row.kind,
    version: row.version,
    state: row.state as JobState,
    input: fromJson(row.input),
    output: row.output === null ? null : fromJson(row.output),
    error: row.error === null ? null : fromJson<JobError>(row.error),
    reason: row.reason,
    idempotencyKey: row.idempotency_key,
    inputHash: row.input_hash,
    fileIds: fromJson<string[]>(row.file_ids) ?? [],
    attempts: Number(row.attempts),
    maxAttempts: Number(row.max_attempts),
    epoch: Number(row.epoch),
    attemptId: row.attempt_id,
    traceContext: row.trace_context ?? null,
    priority: Number(row.priority ?? 0),
    apiKeyId: row.api_key_id ?? null,
    waiting: row.waiting ? (fromJson<JobWaiting>(row.waiting) ?? null) : null,
    hold: Number(row.hold ?? 0) === 1,
    parentId: row.parent_id ?? null,
    detached: Number(row.detached ?? 0) === 1,
    tags: row.tags === undefined ? [] : (fromJson<string[]>(row.tags) ?? []),
    metadata:
      row.metadata === undefined ? {} : (fromJson<Record<string, unknown>>(row.metadata) ?? {}),
    lastSeq: Number(row.last_seq),
    runAfter: row.run_after,
    leaseUntil: row.lease_until,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    finishedAt: row.finished_at,
  };
}

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
  /** Under a legal hold from the start (retention never removes it while set). */
  hold?: boolean | undefined;
  /** A child job's parent and whether the parent's cancel leaves it alone. */
  parentId?: string | null | undefined;
  detached?: boolean | undefined;
  tags?: readonly string[] | undefined;
  metadata?: Record<string, unknown> | undefined;
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
    hold: job.hold ? 1 : 0,
    parent_id: job.parentId ?? null,
    detached: job.detached ? 1 : 0,
    tags: toJson(job.tags ?? []),
    metadata: toJson(job.metadata ?? {}),
  };
}

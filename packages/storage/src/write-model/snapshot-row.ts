// The job row as the worker's hot path needs it: what a delivery is decided on and an attempt
// runs with (no output, error or timestamps it never reads). Every dialect's fixed statements
// select `SNAPSHOT_COLUMNS` and hand back `SnapshotRow`s; `toSnapshot` reads them the same way.

import type { JobState, JobWaiting } from '@sluice/contracts';
import { fromJson } from '../json.js';

export interface JobSnapshot {
  id: string;
  tenantId: string;
  kind: string;
  version: string;
  state: JobState;
  input: unknown;
  fileIds: string[];
  attempts: number;
  maxAttempts: number;
  epoch: number;
  lastSeq: number;
  attemptId: string | null;
  runAfter: string | null;
  leaseUntil: string | null;
  leaseOwner: string | null;
  /** When the job was accepted (with `runAfter`: when it became due, for dispatch→start). */
  createdAt: string;
  /** W3C `traceparent` of the submit that created the job, when there was one. */
  traceContext: string | null;
  /** The API key that submitted the job (per-key start limits). */
  apiKeyId: string | null;
  /** The limit that held the job last (cleared by the attempt's first write). */
  waiting: JobWaiting | null;
}

export interface SnapshotRow {
  id: string;
  tenant_id: string;
  kind: string;
  version: string;
  state: string;
  input: unknown;
  file_ids: unknown;
  attempts: number | string;
  max_attempts: number | string;
  epoch: number | string;
  last_seq: number | string;
  attempt_id: string | null;
  run_after: string | null;
  lease_until: string | null;
  lease_owner: string | null;
  created_at: string;
  trace_context: string | null;
  api_key_id?: string | null;
  waiting?: unknown;
}

export const SNAPSHOT_COLUMNS =
  'id, tenant_id, kind, version, state, input, file_ids, attempts, max_attempts, epoch, ' +
  'last_seq, attempt_id, run_after, lease_until, lease_owner, created_at, trace_context, api_key_id, waiting';

export function toSnapshot(r: SnapshotRow): JobSnapshot {
  return {
    id: r.id,
    tenantId: r.tenant_id,
    kind: r.kind,
    version: r.version,
    state: r.state as JobState,
    input: fromJson(r.input),
    fileIds: fromJson<string[]>(r.file_ids) ?? [],
    attempts: Number(r.attempts),
    maxAttempts: Number(r.max_attempts),
    epoch: Number(r.epoch),
    lastSeq: Number(r.last_seq),
    attemptId: r.attempt_id,
    runAfter: r.run_after,
    leaseUntil: r.lease_until,
    leaseOwner: r.lease_owner,
    createdAt: r.created_at,
    traceContext: r.trace_context ?? null,
    apiKeyId: r.api_key_id ?? null,
    waiting: r.waiting ? (fromJson<JobWaiting>(r.waiting) ?? null) : null,
  };
}

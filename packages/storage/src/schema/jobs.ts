// The job rows: the job itself, its event log, and the rows triggers on `jobs` keep for search
// (tags, metadata keys) and for the uploads it references.

import type { Generated } from 'kysely';

/** A JSON column: written as `JSON.stringify` text, read back as text (SQLite) or parsed (pg). */
export type JsonColumn = unknown;

export interface JobsTable {
  id: string;
  tenant_id: string;
  kind: string;
  version: string;
  state: string;
  input: JsonColumn;
  output: JsonColumn | null;
  error: JsonColumn | null;
  /** Why the job is parked or stale: VERSION_NOT_ROUTABLE, MAX_ATTEMPTS, FILE_MISSING, … */
  reason: string | null;
  idempotency_key: string | null;
  /** sha256 of the canonical input: same key + different input is a CONFLICT. */
  input_hash: string;
  file_ids: JsonColumn;
  /** Attempts started, counted once per attempt in the database (not by the transport). */
  attempts: number;
  max_attempts: number;
  /** Fencing token: bumped by every start or reclaim; writes of an older attempt are rejected. */
  epoch: number;
  attempt_id: string | null;
  /** Sequence number of the job's newest event. */
  last_seq: number;
  /** Earliest time the job may be dispatched again (retry backoff). */
  run_after: string | null;
  /**
   * While running: until when the current attempt holds the job. Renewed by its worker; another
   * attempt may `reclaim` the job only after it passed, so a duplicate delivery never steals a
   * job from a live holder.
   */
  lease_until: string | null;
  /** While running: the worker id of the attempt (a restarted worker takes its own jobs back). */
  lease_owner: string | null;
  /** W3C `traceparent` the job was submitted under (its trace continues in the worker). */
  trace_context: string | null;
  /** Higher is handed out first; raised one level per aging period while the job waits. */
  priority: number;
  /** When `priority` last changed (null: at creation). */
  priority_at: string | null;
  /** The API key id that submitted the job (null: no key — a schedule, an internal caller). */
  api_key_id: string | null;
  /** JSON `JobWaiting` while a start or provider limit holds the queued job; null otherwise. */
  waiting: string | null;
  /** 1: a legal hold — retention never removes the job while it is set. */
  hold: number;
  /** A child job's parent (`ctx.children.start`); null for a job submitted by a client. */
  parent_id: string | null;
  /** 1: a child the parent's cancel leaves alone. */
  detached: number;
  /** JSON array of the submitter's tags (copied into `job_tags` by a trigger). */
  tags: JsonColumn;
  /** JSON object of the submitter's metadata (copied into `job_meta` by a trigger). */
  metadata: JsonColumn;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

export interface JobEventsTable {
  /** Global order of insertion, for tailers. */
  id: Generated<number>;
  job_id: string;
  tenant_id: string;
  kind: string;
  /** Sequence number of the (first) event in the row. */
  seq: number;
  /** Sequence number of the last event when the row holds several (null: one event). */
  seq_end: number | null;
  /** Type of the row's last event. */
  type: string;
  /** The event (a contracts `JobEvent`), or an array of a job's consecutive events. */
  payload: JsonColumn;
  created_at: string;
}

/** One tag of a job (kept by a trigger on `jobs`): searched by (tenant, tag) newest first. */
export interface JobTagsTable {
  job_id: string;
  tenant_id: string;
  tag: string;
  created_at: string;
}

/** One top-level metadata key of a job, its value as text (kept by a trigger on `jobs`). */
export interface JobMetaTable {
  job_id: string;
  tenant_id: string;
  key: string;
  value: string;
  created_at: string;
}

/** Which jobs reference which uploads (kept by a trigger on `jobs` from its `file_ids`). */
export interface JobFilesTable {
  job_id: string;
  file_id: string;
}

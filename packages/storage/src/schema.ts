// The database schema as kysely sees it. One migration set builds it on SQLite and PostgreSQL.
// Timestamps are ISO-8601 UTC text with milliseconds on both (they sort as text and need no
// driver-specific parsing); JSON is text on SQLite and jsonb on PostgreSQL (see `json.ts`).

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

export interface FilesTable {
  id: string;
  tenant_id: string;
  blob_key: string;
  size: number;
  sha256: string;
  content_type: string;
  filename: string | null;
  created_at: string;
  /** Uploads never attached to a job expire; attaching clears it. */
  expires_at: string | null;
}

export interface ApiKeysTable {
  id: string;
  tenant_id: string;
  /** sha256 (hex) of the whole key; the key itself is shown once and never stored. */
  secret_hash: string;
  label: string | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  /** Space-separated scopes (`jobs:submit jobs:read`); see @sluice/contracts `API_KEY_SCOPES`. */
  scopes: Generated<string>;
  /** ISO time after which the key no longer verifies; null: never. */
  expires_at: string | null;
}

/** Jobs to dispatch (again) to a runtime whose queue is not in this database. */
export interface OutboxTable {
  job_id: string;
  due_at: string;
  created_at: string;
}

/** Named leases for singletons across replicas (the reconciler). */
export interface LocksTable {
  name: string;
  owner: string;
  expires_at: string;
}

/** Which worker serves which (kind, version), refreshed by heartbeat. */
export interface ServedVersionsTable {
  worker_id: string;
  kind: string;
  version: string;
  expires_at: string;
}

/** Unit checkpoints: a unit's result, stored the moment it exists and reused by every later attempt. */
export interface UnitsTable {
  job_id: string;
  unit_key: string;
  /** Small results inline (JSON); large ones as an asset (`asset_key`). */
  result: JsonColumn | null;
  asset_key: string | null;
  attempt_id: string;
  epoch: number;
  created_at: string;
}

/** The provider-call ledger: every attempt is written before the request leaves. */
export interface ProviderCallsTable {
  id: string;
  job_id: string;
  tenant_id: string;
  unit_key: string;
  /** Name of the declaration in the job definition (`providers.<name>`). */
  call_name: string;
  attempt_id: string;
  epoch: number;
  attempt: number;
  stage: string;
  provider: string;
  modality: string;
  call_class: string;
  /** The idempotency key sent with the request, when the call is retry-safe. */
  request_key: string | null;
  external_id: string | null;
  /** pending | succeeded | never_sent | rejected | server_error | timeout | connection_dropped | refused | authorised */
  outcome: string;
  /** Small successful answers, so a crash before the checkpoint never pays twice. */
  response: JsonColumn | null;
  error: JsonColumn | null;
  authorised_by: string | null;
  note: string | null;
  created_at: string;
  updated_at: string;
}

/** Who may publish an asset's deterministic final key: one attempt at a time. */
export interface AssetOwnersTable {
  final_key: string;
  job_id: string;
  unit_key: string;
  name: string;
  attempt_id: string;
  epoch: number;
  staging_key: string | null;
  created_at: string;
}

export interface AssetsTable {
  final_key: string;
  job_id: string;
  tenant_id: string;
  unit_key: string;
  name: string;
  size: number;
  sha256: string;
  content_type: string;
  attempt_id: string;
  created_at: string;
}

/** A recurring schedule: fires one `kind` job with `input` at every tick of `cron` in `timezone`. */
export interface SchedulesTable {
  id: string;
  tenant_id: string;
  /** Optional, unique per tenant. */
  name: string | null;
  kind: string;
  input: JsonColumn;
  cron: string;
  /** IANA zone the cron expression is read in (`UTC`, `Asia/Seoul`). */
  timezone: string;
  /** After downtime: `skip` fires only the latest missed tick; `catch_up` fires each, up to the limit. */
  missed: string;
  catch_up_limit: number;
  /** 1 while paused (no tick fires; none is owed on resume). */
  paused: number;
  /** The next tick to fire (UTC ISO); null when the expression has no future tick. */
  next_fire_at: string | null;
  last_fire_at: string | null;
  /** Jobs fired so far (duplicates of a tick count once). */
  fired: number;
  created_at: string;
  updated_at: string;
}

/** Which jobs reference which uploads (kept by a trigger on `jobs` from its `file_ids`). */
export interface JobFilesTable {
  job_id: string;
  file_id: string;
}

/** The jobs one retention batch removes, inside that batch's transaction only. */
export interface RetentionMarksTable {
  sweep: string;
  job_id: string;
  state: string;
  updated_at: string;
}

/** Blob keys whose rows retention removed and whose bytes are still to delete. */
export interface RetentionBlobsTable {
  key: string;
  size: number;
  created_at: string;
}

/** A flow-control key's serialisation row and its open job (migration-flow-control.ts). */
export interface FlowKeysTable {
  tenant_id: string;
  kind: string;
  flow: string;
  key: string;
  job_id: string | null;
  opened_at: string | null;
  closes_at: string | null;
  size: number;
  updated_at: string;
}

/** Singleton jobs held in `queue` mode until their key frees. */
export interface FlowWaitingTable {
  job_id: string;
  tenant_id: string;
  kind: string;
  key: string;
  created_at: string;
}

/** A wait of a job (`job_waits`): open while the job waits, then its value for the replay. */
export interface JobWaitsTable {
  job_id: string;
  wait_key: string;
  kind: string;
  event: string | null;
  due_at: string | null;
  status: string;
  result: JsonColumn | null;
  /** A children wait: the child ids it waits for. */
  children: JsonColumn | null;
  /** A children wait: `all` or `any`. */
  mode: string | null;
  created_at: string;
  resolved_at: string | null;
}

/** An event sent to a job, kept until a wait consumes it. */
export interface JobSignalsTable {
  job_id: string;
  signal_id: string;
  name: string;
  payload: JsonColumn | null;
  consumed_by: string | null;
  created_at: string;
}

/** An approval token: only its sha256 is stored. */
export interface JobTokensTable {
  token_hash: string;
  tenant_id: string;
  job_id: string;
  token_key: string;
  event: string;
  status: string;
  expires_at: string;
  created_at: string;
  used_at: string | null;
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

/** A tracked bulk action over a filter (repos/bulk-operations.ts). */
export interface BulkOperationsTable {
  id: string;
  tenant_id: string;
  operation_key: string;
  action: string;
  filter: JsonColumn;
  params: JsonColumn;
  note: string | null;
  /** running | succeeded | failed | cancelled */
  state: string;
  /** The dry-run count when it started. */
  total: number;
  processed: number;
  applied: number;
  skipped: number;
  failed: number;
  /** The job listing's cursor after the last batch done (null: from the top). */
  cursor: string | null;
  /** Only jobs created at or before this time: the set does not grow while it runs. */
  until: string;
  created_by: string | null;
  error: string | null;
  lease_owner: string | null;
  lease_until: string | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

/** An operator action (append-only: no UPDATE, DELETE only below a recorded prune horizon). */
export interface AuditLogTable {
  id: string;
  tenant_id: string;
  at: string;
  key_id: string | null;
  key_label: string | null;
  action: string;
  target: string | null;
  note: string | null;
  details: JsonColumn;
}

/** Every move of the audit log's prune horizon, with who moved it (append-only). */
export interface AuditPrunesTable {
  before: string;
  at: string;
  by: string;
}

/** A worker process's heartbeat: alive until `alive_until` (host/liveness.ts). */
export interface WorkerLivenessTable {
  worker_id: string;
  alive_until: string;
  started_at: string;
}

export interface Database {
  job_waits: JobWaitsTable;
  job_signals: JobSignalsTable;
  job_tokens: JobTokensTable;
  jobs: JobsTable;
  schedules: SchedulesTable;
  job_events: JobEventsTable;
  files: FilesTable;
  api_keys: ApiKeysTable;
  outbox: OutboxTable;
  locks: LocksTable;
  served_versions: ServedVersionsTable;
  worker_liveness: WorkerLivenessTable;
  units: UnitsTable;
  provider_calls: ProviderCallsTable;
  asset_owners: AssetOwnersTable;
  assets: AssetsTable;
  job_files: JobFilesTable;
  retention_marks: RetentionMarksTable;
  retention_blobs: RetentionBlobsTable;
  flow_keys: FlowKeysTable;
  flow_waiting: FlowWaitingTable;
  job_tags: JobTagsTable;
  job_meta: JobMetaTable;
  bulk_operations: BulkOperationsTable;
  audit_log: AuditLogTable;
  audit_prunes: AuditPrunesTable;
}

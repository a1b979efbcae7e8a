// The database schema as kysely sees it. One migration set builds it on SQLite and PostgreSQL.
// Timestamps are ISO-8601 UTC text with milliseconds on both (they sort as text and need no
// driver-specific parsing); JSON is text on SQLite and jsonb on PostgreSQL (see `json.ts`).
// The tables are declared by area in `schema/`; `Database` names them all.

import type {
  JobsTable,
  JobEventsTable,
  JobTagsTable,
  JobMetaTable,
  JobFilesTable,
} from './schema/jobs.js';
import type {
  UnitsTable,
  ProviderCallsTable,
  AssetOwnersTable,
  AssetsTable,
  FilesTable,
} from './schema/work.js';
import type { JobWaitsTable, JobSignalsTable, JobTokensTable } from './schema/waits.js';
import type {
  OutboxTable,
  SchedulesTable,
  FlowKeysTable,
  FlowWaitingTable,
  LocksTable,
  ServedVersionsTable,
  WorkerLivenessTable,
} from './schema/dispatch.js';
import type {
  ApiKeysTable,
  BulkOperationsTable,
  AuditLogTable,
  AuditPrunesTable,
  RetentionMarksTable,
  RetentionBlobsTable,
} from './schema/operator.js';

export type * from './schema/jobs.js';
export type * from './schema/work.js';
export type * from './schema/waits.js';
export type * from './schema/dispatch.js';
export type * from './schema/operator.js';

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

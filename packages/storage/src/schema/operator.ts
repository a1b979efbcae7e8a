// Operator-facing rows: API keys, tracked bulk actions, the append-only audit log, and the
// bookkeeping of retention sweeps.

import type { Generated } from 'kysely';
import type { JsonColumn } from './jobs.js';

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

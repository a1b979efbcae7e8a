// What attempts leave behind, written so a later attempt never repeats paid work: unit
// checkpoints, the provider-call ledger, asset ownership and published assets; and the uploads
// jobs read.

import type { JsonColumn } from './jobs.js';

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

// Durable waits: what a suspended job waits for, the events sent to it, approval tokens.

import type { JsonColumn } from './jobs.js';

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

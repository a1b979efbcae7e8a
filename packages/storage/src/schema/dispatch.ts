// Getting jobs to run: the outbox, recurring schedules, flow-control keys, and the liveness
// rows (locks, served versions, worker heartbeats) that decide who runs what.

import type { JsonColumn } from './jobs.js';

/** Jobs to dispatch (again) to a runtime whose queue is not in this database. */
export interface OutboxTable {
  job_id: string;
  due_at: string;
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

/** A worker process's heartbeat: alive until `alive_until` (host/liveness.ts). */
export interface WorkerLivenessTable {
  worker_id: string;
  alive_until: string;
  started_at: string;
}

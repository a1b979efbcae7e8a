// Worker liveness (migration 0018): one row per worker process, its heartbeat. A worker beats
// about once a second, far more often than it renews job leases, so a process that died (a
// SIGKILL, a lost machine) is known dead within seconds while a live worker stuck in its job
// code is still bounded by the lease. `alive_until` is the last beat plus the time a beat counts.
// The running jobs of a worker whose row lapsed are handed to the claim path
// (repos/worker-liveness.ts), which takes them at a new epoch as it takes any lapsed lease.

import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations see an untyped schema
type AnyDb = Kysely<any>;

export function workerLiveness(): Migration {
  return {
    async up(db: AnyDb) {
      await sql`create table worker_liveness (worker_id text primary key,
        alive_until text not null, started_at text not null)`.execute(db);
      await sql`create index worker_liveness_alive on worker_liveness (alive_until)`.execute(db);
      // The reap reads running rows by their holder.
      await sql`create index jobs_lease_owner on jobs (lease_owner) where state = 'running'`.execute(
        db,
      );
    },
  };
}

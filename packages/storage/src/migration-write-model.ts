// Migration 0005: the write model (worker hot path).
//
// - `jobs.lease_owner`: the worker id holding a running job. A worker restarted under the same
//   id takes its own running jobs back at once (a new epoch fences the dead incarnation) instead
//   of waiting out the lease it held before.
// - The jobs table is the embedded runtime's queue: a claim is one UPDATE of queued rows (no
//   separate queue table, so no second row write per job). Rows still in the old queue table keep
//   their due time in `run_after`; the table goes.
// - Partial indexes: only rows in an active or parked state sit in the state indexes, so the
//   terminal write of a job (the common one: to `succeeded`) inserts into two indexes (primary key
//   and tenant listing) instead of five. PostgreSQL cannot make that update HOT (any index that
//   mentions `state`, in its columns or its predicate, blocks HOT), but it skips every partial
//   index whose predicate the new row version does not satisfy.
// - `job_events.seq_end`: one row may hold a job's consecutive events written together (an
//   attempt's `running`, progress, unit and terminal events in one row): `seq` is the first
//   sequence number, `seq_end` the last (null: a single event), `payload` a JSON array then.

import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { SqlDialect } from './dialect/storage-dialect.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations see an untyped schema
type AnyDb = Kysely<any>;

/** PostgreSQL channel notified when jobs are inserted (embedded workers wake on it). */
export const JOBS_CHANNEL = 'sluice_jobs';

/** States a job leaves by itself: only these rows are in the active/parked indexes. */
const OPEN_STATES = "('accepted', 'queued', 'running', 'needs_review', 'dead_lettered')";

export function writeModel(dialect: SqlDialect): Migration {
  return {
    async up(db: AnyDb) {
      const exec = (text: string) => sql.raw(text).execute(db);
      await exec('alter table jobs add column lease_owner text');
      await exec('alter table job_events add column seq_end integer');
      // Standard SQL on every database (PostgreSQL shipped an `update … from` of the same effect:
      // `queue.job_id` is the queue's primary key, so each subquery finds at most one row).
      await exec(
        `update jobs set run_after = (select q.available_at from queue q
           where q.job_id = jobs.id and q.lease_owner is null)
         where state = 'queued' and exists (select 1 from queue q
           where q.job_id = jobs.id and q.lease_owner is null)`,
      );
      await exec('drop table queue');
      await exec('drop index jobs_state');
      await exec('drop index jobs_tenant_state');
      await exec('drop index jobs_idempotency');
      // NULL keys never collide; rows without a key stay out of the index entirely.
      await exec(
        `create unique index jobs_idempotency on jobs (tenant_id, idempotency_key)
         where idempotency_key is not null`,
      );
      // The embedded claim: queued rows of the served (kind, version)s, oldest first.
      await exec(
        "create index jobs_queued on jobs (kind, version, created_at) where state = 'queued'",
      );
      // Reclaims (expired leases) and a restarted worker's own running jobs.
      await exec("create index jobs_running on jobs (lease_until) where state = 'running'");
      await exec(
        `create index jobs_tenant_open on jobs (tenant_id, state, created_at)
         where state in ${OPEN_STATES}`,
      );
      if (dialect.capabilities.listenNotify) {
        // Embedded workers LISTEN for new jobs instead of polling for them (the same session
        // switch as the events trigger: sessions started with sluice.notify=off skip it).
        await exec(`create function sluice_notify_jobs() returns trigger language plpgsql as $$
          begin
            if coalesce(current_setting('sluice.notify', true), 'on') = 'off' then return null; end if;
            perform pg_notify('${JOBS_CHANNEL}', '');
            return null;
          end $$`);
        await exec(`create trigger jobs_notify after insert on jobs
          for each statement execute function sluice_notify_jobs()`);
      }
    },
  };
}

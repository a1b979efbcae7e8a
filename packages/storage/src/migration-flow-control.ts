// Flow control at submit (migration 0017): debounce windows, singleton keys and open batches.
//
// - `flow_keys`: one row per (tenant, kind, flow, key), the serialisation point of every submit of
//   that key. A submit's transaction upserts it first, which takes the row's lock (PostgreSQL) or
//   the write lock (SQLite), so two gateways deciding for one key decide one after the other.
//   `job_id` is the key's open job: a debounce window's job, the batch being filled, or the
//   singleton's current job. `opened_at` is when the window or batch opened; `closes_at` when a
//   leading debounce window closes; `size` counts a batch's inputs. A row whose job is gone
//   (retention removed it with the job) reads like a free key.
// - `flow_waiting`: singleton jobs held in `queue` mode (state `scheduled`, no due time) until
//   their key frees; the due-job scheduler releases the oldest of a key when its current job has
//   reached a final state.

import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations see an untyped schema
type AnyDb = Kysely<any>;

export function flowControl(): Migration {
  return {
    async up(db: AnyDb) {
      const exec = (text: string) => sql.raw(text).execute(db);
      await exec(`create table flow_keys (tenant_id text not null, kind text not null,
        flow text not null, key text not null, job_id text, opened_at text, closes_at text,
        size integer not null default 0, updated_at text not null,
        primary key (tenant_id, kind, flow, key))`);
      await exec('create index flow_keys_job on flow_keys (job_id)');
      await exec(`create table flow_waiting (job_id text primary key, tenant_id text not null,
        kind text not null, key text not null, created_at text not null)`);
      await exec(
        'create index flow_waiting_key on flow_waiting (tenant_id, kind, key, created_at)',
      );
    },
  };
}

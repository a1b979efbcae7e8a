// Durable waits and child jobs (migration 0017): what a suspended job waits for, the signals
// sent to it, approval tokens, and the parent link of a child job.
//
// - `job_waits`: one row per wait of a job, keyed by the wait's deterministic key (`event:<name>#n`,
//   `sleep#n`, `children#n`): `open` while the job waits, then `resolved` or `timed_out` with the
//   value the replay returns. `due_at` is the timeout or wake time; `job_waits_due` (open rows
//   with a due time only) and `job_waits_open` are what the due sweep reads, so settled waits
//   cost it nothing.
// - `job_signals`: events sent to a job, kept until a wait consumes one (`consumed_by` = that
//   wait's key), so a signal sent before the wait is never lost. `signal_id` makes a send
//   idempotent per job.
// - `job_tokens`: approval tokens, only the sha256 of the token stored; a completion sends the
//   token's event to its job once (`status` open → used). `token_key` is the token's key in the
//   job's run: a replay finds the token it created and makes no second one.
// - `jobs.parent_id`, `jobs.detached`: a child job's parent and whether a parent's cancel leaves
//   it alone; `jobs_parent` finds a parent's children.

import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { SqlDialect } from './dialect/storage-dialect.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations see an untyped schema
type AnyDb = Kysely<any>;

export function waits(dialect: SqlDialect): Migration {
  const json = dialect.jsonType;
  return {
    async up(db: AnyDb) {
      const exec = (text: string) => sql.raw(text).execute(db);
      await exec(`create table job_waits (job_id text not null, wait_key text not null,
        kind text not null, event text, due_at text, status text not null, result ${json},
        children ${json}, mode text, created_at text not null, resolved_at text,
        primary key (job_id, wait_key))`);
      await exec(
        `create index job_waits_due on job_waits (due_at) where status = 'open' and due_at is not null`,
      );
      // The sweep's children read walks the open children waits only: settled waits, the many,
      // and the open waits of other kinds are not in this index.
      await exec(`create index job_waits_open on job_waits (kind, job_id) where status = 'open'`);
      await exec(`create table job_signals (job_id text not null, signal_id text not null,
        name text not null, payload ${json}, consumed_by text, created_at text not null,
        primary key (job_id, signal_id))`);
      // Signals no wait took yet (sent before their wait): what the sweep's belt reads.
      await exec(
        'create index job_signals_unconsumed on job_signals (job_id) where consumed_by is null',
      );
      await exec(`create table job_tokens (token_hash text primary key, tenant_id text not null,
        job_id text not null, token_key text not null, event text not null, status text not null,
        expires_at text not null, created_at text not null, used_at text)`);
      await exec('create unique index job_tokens_job on job_tokens (job_id, token_key)');
      await exec('alter table jobs add column parent_id text');
      await exec('alter table jobs add column detached integer not null default 0');
      await exec('create index jobs_parent on jobs (parent_id) where parent_id is not null');
    },
  };
}

// Retention (migration 0016): what the sweeper needs to remove ended jobs in bounded batches
// (retention/retention-sweep.ts).
//
// - `jobs.hold`: a legal hold (1): retention never removes the job while it is set.
// - `jobs_retention`: the removable jobs (ended, not held) by (state, kind, tenant, updated_at),
//   so the sweep finds each (kind, tenant) group's oldest row with one probe and reads a group's
//   expired rows as one ordered range — whatever the other groups' rules are, it never steps over
//   rows that are not expired. `updated_at` is the time the job entered its state (every write
//   sets it; a hold does not). Partial: the hot path's writes of live jobs never touch it; the
//   terminal write adds one entry. Its predicate lists the states as ORed equalities: SQLite then
//   proves a query's `state = 'failed' and hold = 0` implies it (an `in (…)` list would need the
//   same list in the query, and with it SQLite no longer reads the index in order).
// - `job_files`: which jobs reference which uploads (a file may serve several jobs), kept by an
//   insert trigger on `jobs` from its `file_ids` (so no accept path changes), filled here for the
//   jobs already stored. The sweep removes a file only with the last job that references it.
// - `asset_owners_job`: the ownership rows of a job, found without a scan.
// - `retention_marks`: the jobs one batch removes, written and cleared inside that batch's
//   transaction (or D1 batch), so every statement of it names the same jobs.
// - `retention_blobs`: blob keys whose rows are gone and whose bytes are still to delete. Written
//   in the same transaction that deletes the rows, emptied as the bytes go: a crash between the
//   two leaves the keys here for the next sweep, never a row without its bytes or bytes nobody
//   knows of.

import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { SqlDialect } from './dialect/storage-dialect.js';
import { JOB_STATES, RETENTION_STATES, type JobState } from '@sluice/contracts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations see an untyped schema
type AnyDb = Kysely<any>;

/**
 * `state in (…)` over these states in `JOB_STATES` order (`alias.state` with an alias): the same
 * set always gives the same text, which is what lets SQLite match it to the index's predicate.
 */
export function statesList(states: readonly string[], alias?: string): string {
  const column = alias ? `${alias}.state` : 'state';
  const ordered = [...new Set(states)].sort(
    (a, b) => JOB_STATES.indexOf(a as JobState) - JOB_STATES.indexOf(b as JobState),
  );
  return `${column} in (${ordered.map((s) => `'${s.replace(/'/g, "''")}'`).join(', ')})`;
}

/** The predicate of `jobs_retention`. */
export const RETENTION_INDEX_PREDICATE = `hold = 0 and (${RETENTION_STATES.map((s) => `state = '${s}'`).join(' or ')})`;

export function retention(dialect: SqlDialect): Migration {
  return {
    async up(db: AnyDb) {
      const exec = (text: string) => sql.raw(text).execute(db);
      await exec('alter table jobs add column hold integer not null default 0');
      await exec(
        `create index jobs_retention on jobs (state, kind, tenant_id, updated_at)
         where ${RETENTION_INDEX_PREDICATE}`,
      );
      await exec(`create table job_files (job_id text not null, file_id text not null,
        primary key (job_id, file_id))`);
      await exec('create index job_files_file on job_files (file_id)');
      await exec(
        `insert into job_files (job_id, file_id) select distinct j.id, e.value
         from jobs j, ${dialect.jsonArrayElements('j.file_ids', 'e')} where j.file_ids <> '[]'`,
      );
      for (const statement of dialect.insertTrigger({
        name: 'jobs_files',
        table: 'jobs',
        when: "new.file_ids <> '[]'",
        statement: `insert into job_files (job_id, file_id) select distinct new.id, e.value
          from ${dialect.jsonArrayElements('new.file_ids', 'e')}`,
      }))
        await exec(statement);
      await exec('create index asset_owners_job on asset_owners (job_id)');
      await exec(`create table retention_marks (sweep text not null, job_id text not null,
        state text not null, updated_at text not null, primary key (sweep, job_id))`);
      await exec(`create table retention_blobs (key text primary key, size bigint not null,
        created_at text not null)`);
    },
  };
}

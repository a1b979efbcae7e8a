// The operator plane (migration 0017): what search, bulk operations and the audit log need.
//
// - `jobs.tags` (JSON array) and `jobs.metadata` (JSON object), written by the accept insert.
// - `job_tags` and `job_meta`: one row per tag and per top-level metadata key, kept by insert
//   triggers on `jobs` (as `job_files` is), so no accept path writes a second table itself.
//   They copy the job's tenant and creation time, so a search by tag or key/value reads ONE
//   range of (tenant, tag | key, value, created_at, job_id) newest first and stops at the page
//   size, whatever the number of jobs. Retention removes them with the job.
// - `bulk_operations`: a tracked bulk action (cancel, requeue, rerun, approve, discard) over a
//   filter: its progress and the cursor it resumes from after a gateway restart. One per
//   (tenant, operation key): repeating a start answers the same operation.
// - `audit_log`: every operator action, append-only. A trigger refuses every UPDATE and every
//   DELETE of a row newer than the last recorded prune horizon (`audit_prunes`, itself
//   append-only): the log is bounded by time through a prune that leaves its own trace, never by
//   the jobs it names (retention does not touch it).

import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import type { SqlDialect } from './dialect/storage-dialect.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations see an untyped schema
type AnyDb = Kysely<any>;

export function operator(dialect: SqlDialect): Migration {
  const json = dialect.jsonType;
  return {
    async up(db: AnyDb) {
      const exec = (text: string) => sql.raw(text).execute(db);
      await exec(`alter table jobs add column tags ${json} not null default '[]'`);
      await exec(`alter table jobs add column metadata ${json} not null default '{}'`);

      await exec(`create table job_tags (job_id text not null, tenant_id text not null,
        tag text not null, created_at text not null, primary key (job_id, tag))`);
      await exec('create index job_tags_search on job_tags (tenant_id, tag, created_at, job_id)');
      for (const statement of dialect.insertTrigger({
        name: 'jobs_tags',
        table: 'jobs',
        when: "new.tags <> '[]'",
        statement: `insert into job_tags (job_id, tenant_id, tag, created_at)
          select distinct new.id, new.tenant_id, e.value, new.created_at
          from ${dialect.jsonArrayElements('new.tags', 'e')}`,
      }))
        await exec(statement);

      await exec(`create table job_meta (job_id text not null, tenant_id text not null,
        key text not null, value text not null, created_at text not null,
        primary key (job_id, key))`);
      await exec(
        'create index job_meta_search on job_meta (tenant_id, key, value, created_at, job_id)',
      );
      for (const statement of dialect.insertTrigger({
        name: 'jobs_meta',
        table: 'jobs',
        when: "new.metadata <> '{}'",
        statement: `insert into job_meta (job_id, tenant_id, key, value, created_at)
          select new.id, new.tenant_id, e.key, e.value, new.created_at
          from ${dialect.jsonObjectEntries('new.metadata', 'e')}`,
      }))
        await exec(statement);

      await exec(`create table bulk_operations (id text primary key, tenant_id text not null,
        operation_key text not null, action text not null, filter ${json} not null,
        params ${json} not null, note text, state text not null, total integer not null,
        processed integer not null default 0, applied integer not null default 0,
        skipped integer not null default 0, failed integer not null default 0,
        cursor text, until text not null, created_by text, error text,
        lease_owner text, lease_until text,
        created_at text not null, updated_at text not null, finished_at text)`);
      await exec(
        'create unique index bulk_operations_key on bulk_operations (tenant_id, operation_key)',
      );
      await exec('create index bulk_operations_state on bulk_operations (state, lease_until)');

      await exec(`create table audit_prunes (before text not null, at text not null,
        by text not null)`);
      for (const statement of dialect.guardTrigger({ table: 'audit_prunes', deleteWhen: '1 = 0' }))
        await exec(statement);
      await exec(`create table audit_log (id text primary key, tenant_id text not null,
        at text not null, key_id text, key_label text, action text not null,
        target text, note text, details ${json} not null)`);
      await exec('create index audit_log_tenant on audit_log (tenant_id, at, id)');
      await exec('create index audit_log_at on audit_log (at)');
      for (const statement of dialect.guardTrigger({
        table: 'audit_log',
        deleteWhen: "old.at < (select coalesce(max(p.before), '') from audit_prunes p)",
      }))
        await exec(statement);
    },
  };
}

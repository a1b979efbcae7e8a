// The retention sweep's statements, one text for SQLite, PostgreSQL and D1. Values go in as SQL
// literals (kysely's `sql.lit` quotes them): a batch names hundreds of jobs, more than D1's 100
// bound parameters, and a state must be literal for the partial index `jobs_retention` to be
// chosen (a planner proves the index's predicate from the query's constants, not parameters).

import { sql, type RawBuilder } from 'kysely';
import { statesList } from '../migration-retention.js';

/** A job of a retention batch, as read: the fence its removal re-checks. */
export interface RetentionCandidate {
  id: string;
  tenant_id: string;
  kind: string;
  state: string;
  updated_at: string;
}

/** A (kind, tenant) group of removable jobs in one state, with its oldest row's time. */
export interface RetentionGroupRow {
  kind: string;
  tenant_id: string;
  oldest: string;
}

const lit = (value: string) => sql.lit(value);

/**
 * Jobs in `state` that are not held: for a state of the built-in list, exactly a range of
 * `jobs_retention` (any other state is found without it: a test's seeded bug, say).
 */
export function removable(state: string, alias = 'jobs'): RawBuilder<unknown> {
  const a = sql.raw(alias);
  return sql`${a}.state = ${lit(state)} and ${a}.hold = 0`;
}

/**
 * Every (kind, tenant) group with removable jobs in `state` and the time of its oldest: one
 * probe of the index per group, never a scan of a group's rows. Two recursive skips, the kinds
 * and then each kind's tenants, each step a `min()` over the rest of an index range; only
 * scalar subqueries, no join, so no planner can turn a step into a scan of `jobs`.
 */
export function groupsSql(state: string): RawBuilder<RetentionGroupRow> {
  const p = removable(state);
  return sql<RetentionGroupRow>`with recursive
  k(kind) as (
    select (select min(kind) from jobs where ${p})
    union all
    select (select min(kind) from jobs where ${p} and kind > k.kind) from k where k.kind is not null),
  t(kind, tenant_id) as (
    select k.kind, (select min(tenant_id) from jobs where ${p} and kind = k.kind)
    from k where k.kind is not null
    union all
    select t.kind, (select min(tenant_id) from jobs where ${p} and kind = t.kind
      and tenant_id > t.tenant_id) from t where t.tenant_id is not null)
  select kind, tenant_id, (select min(updated_at) from jobs where ${p} and kind = t.kind
    and tenant_id = t.tenant_id) as oldest
  from t where tenant_id is not null`;
}

export interface ExpiredGroup {
  kind: string;
  tenantId: string;
  /** ISO time: rows of the group updated before it are expired. */
  cutoff: string;
}

/**
 * Up to `limit` expired jobs of these groups, group after group: each one range of the index
 * (every row of it expired), oldest first, read until the limit (the ORDER BY is what makes
 * PostgreSQL walk the index and stop, rather than collect the whole range in a bitmap). The
 * caller can tell the groups it read to their end: fewer rows than `limit` came back.
 */
export function candidatesSql(
  state: string,
  groups: readonly ExpiredGroup[],
  limit: number,
): RawBuilder<RetentionCandidate> {
  const parts = groups.map(
    (g, i) => sql`select * from (select id, tenant_id, kind, state, updated_at from jobs
      where ${removable(state)} and kind = ${lit(g.kind)} and tenant_id = ${lit(g.tenantId)}
        and updated_at < ${lit(g.cutoff)}
      order by updated_at limit ${sql.lit(limit)}) as ${sql.raw(`g${i}`)}`,
  );
  return sql<RetentionCandidate>`${sql.join(parts, sql` union all `)} limit ${sql.lit(limit)}`;
}

/** `(select job_id from retention_marks where sweep = …)`: the jobs of one batch. */
export const marked = (sweep: string) =>
  sql`(select job_id from retention_marks where sweep = ${lit(sweep)})`;

/** Marks of a batch, in statements of at most `per` rows (D1 caps a statement's length). */
export function markSql(sweep: string, jobs: readonly RetentionCandidate[], per = 200) {
  const out: RawBuilder<unknown>[] = [];
  for (let i = 0; i < jobs.length; i += per) {
    const rows = jobs
      .slice(i, i + per)
      .map((j) => sql`(${lit(sweep)}, ${lit(j.id)}, ${lit(j.state)}, ${lit(j.updated_at)})`);
    out.push(sql`insert into retention_marks (sweep, job_id, state, updated_at)
      values ${sql.join(rows)}`);
  }
  return out;
}

/**
 * The fence: a mark whose job moved since it was read (requeued, held, written again) is dropped,
 * so the batch removes exactly the jobs that are still as the sweep saw them.
 */
export const fenceSql = (sweep: string, states: readonly string[]) =>
  sql`delete from retention_marks where sweep = ${lit(sweep)} and not exists (
    select 1 from jobs j where j.id = retention_marks.job_id and j.state = retention_marks.state
      and j.updated_at = retention_marks.updated_at and j.hold = 0
      and ${sql.raw(statesList(states, 'j'))})`;

/**
 * Files whose every referencing job is in the batch: they go with it. A submit naming one that
 * commits after this read (its file check read the row before) makes a job that ends stale with
 * FILE_MISSING when it runs, as after a `files.delete`: never a job run without its file.
 */
const ownFiles = (sweep: string) =>
  sql`select f.id from files f where f.id in (select file_id from job_files where job_id in ${marked(sweep)})
    and not exists (select 1 from job_files o where o.file_id = f.id
      and o.job_id not in ${marked(sweep)})`;

/**
 * The bytes the batch's rows name, queued for deletion in the same transaction that deletes the
 * rows: published assets, whatever an ownership row names (a final key whose row never landed, a
 * staging key), and the uploads only these jobs used.
 */
export const queueBlobsSql = (sweep: string, at: string) =>
  sql`insert into retention_blobs (key, size, created_at)
  select k.key, max(k.size), ${lit(at)} from (
    select final_key as key, size from assets where job_id in ${marked(sweep)}
    union all select final_key, 0 from asset_owners where job_id in ${marked(sweep)}
    union all select staging_key, 0 from asset_owners
      where job_id in ${marked(sweep)} and staging_key is not null
    union all select blob_key, size from files where id in (${ownFiles(sweep)})
  ) as k where true group by k.key
  on conflict (key) do nothing`;

/** The batch's rows, table by table (the jobs row last: the others are found through marks). */
export function deleteSql(sweep: string): [table: string, query: RawBuilder<unknown>][] {
  const m = marked(sweep);
  return [
    ['job_events', sql`delete from job_events where job_id in ${m}`],
    ['units', sql`delete from units where job_id in ${m}`],
    ['provider_calls', sql`delete from provider_calls where job_id in ${m}`],
    ['assets', sql`delete from assets where job_id in ${m}`],
    ['asset_owners', sql`delete from asset_owners where job_id in ${m}`],
    ['outbox', sql`delete from outbox where job_id in ${m}`],
    ['files', sql`delete from files where id in (${ownFiles(sweep)})`],
    ['job_files', sql`delete from job_files where job_id in ${m}`],
    // A key row naming a removed job reads as a free key; drop it with the job.
    ['flow_keys', sql`delete from flow_keys where job_id in ${m}`],
    ['flow_waiting', sql`delete from flow_waiting where job_id in ${m}`],
    ['job_waits', sql`delete from job_waits where job_id in ${m}`],
    ['job_signals', sql`delete from job_signals where job_id in ${m}`],
    ['job_tokens', sql`delete from job_tokens where job_id in ${m}`],
    ['job_tags', sql`delete from job_tags where job_id in ${m}`],
    ['job_meta', sql`delete from job_meta where job_id in ${m}`],
    ['jobs', sql`delete from jobs where id in ${m}`],
  ];
}

/** The tables a retention batch removes rows from. */
export const RETENTION_TABLES = deleteSql('').map(([table]) => table);

/** `in (…)` over literal values (job ids of a batch). */
export const inList = (values: readonly string[]) => sql`(${sql.join(values.map(lit))})`;

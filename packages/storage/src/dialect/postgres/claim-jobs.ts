// The embedded claim on PostgreSQL: ONE named statement (prepared once per connection) that picks
// the candidates `FOR UPDATE SKIP LOCKED` through the partial indexes of queued and running rows
// and starts them; and the unclaim, one statement fenced by epoch. The protocol and the claim
// order: write-model/claim-jobs.ts and fair-queued.ts.

import type pg from 'pg';
import type { JobState } from '@sluice/contracts';
import {
  runningCandidates,
  type ClaimedJob,
  type ClaimOptions,
} from '../../write-model/claim-shared.js';
import { SNAPSHOT_COLUMNS, toSnapshot, type SnapshotRow } from '../../write-model/snapshot-row.js';

const PG_SERVED = '(kind, version) in (select * from unnest($1::text[], $2::text[]))';
const PG_READY = `state = 'queued' and kind = t.kind and version = t.version`;
/**
 * Fair across tenants (fair-queued.ts): `t` skips along the queued index to each served version's
 * tenants; `q` reads each tenant's first rows (no locks) and ranks them round-robin within a
 * priority; `k` walks them in that order and locks each by primary key, skipping rows another
 * claimer holds (and re-checking each row against its newest version), until it has `limit`, so
 * concurrent claimers take successive rows and no candidate past the limit is locked. The walk is
 * a LATERAL on purpose: as a join of `q` to `jobs` the planner (estimating `q` at 64 rows per
 * 100 tenants) hash-joined a sequential scan of the whole table into every claim: 11 of 19 ms at
 * 20,000 queued jobs, against 0.7 ms for 64 primary-key probes. Its state check is written
 * `(j.state || '') = 'queued'` so that the `jobs_queued` partial index cannot serve the probe: with
 * statistics taken while no job was queued (a table analysed near-empty, then a burst) the planner
 * scanned that whole index for each of the 64 probes (~46,000 buffers, 165–205 ms a claim at
 * 20,000 queued jobs, until autovacuum analysed again) instead of looking the row up by key.
 *
 * One tenant with queued work (the walk `t` found a single served version and tenant): the fair
 * order is then that tenant's (priority desc, created_at) order, which is exactly the order of
 * the `jobs_queued` index under (kind, version, tenant_id), so `g` reads it as one ordered range
 * and locks as it goes, without ranking candidates and looking each up again. `g` and `q` are
 * gated on the walk's count (a one-time filter: only one of them runs).
 */
export const PG_CLAIM_SQL = `
with recursive t as (
  select v.kind, v.version, (select tenant_id from jobs where state = 'queued' and kind = v.kind
    and version = v.version order by tenant_id limit 1) as tenant_id
  from unnest($1::text[], $2::text[]) as v(kind, version)
  union all
  select t.kind, t.version, (select j.tenant_id from jobs j where j.state = 'queued'
    and j.kind = t.kind and j.version = t.version and j.tenant_id > t.tenant_id
    order by j.tenant_id limit 1)
  from t where t.tenant_id is not null),
s as (select kind, version, tenant_id from t where tenant_id is not null),
r as (${runningCandidates(PG_SERVED, '$3', '$4', '$5', 'not (id = any($8::text[]))')} for update skip locked),
g as (select id, state, priority, created_at, 0::bigint as rn from jobs
  where (select count(*) from s) = 1 and state = 'queued' and kind = (select kind from s)
    and version = (select version from s) and tenant_id = (select tenant_id from s)
    and (run_after is null or run_after <= $3) and attempts < max_attempts
  order by priority desc, created_at limit $5 for update skip locked),
q as (select p.*, row_number() over (partition by p.tenant_id, p.priority order by p.created_at) as rn
  from t cross join lateral (select id, priority, created_at, tenant_id from jobs where ${PG_READY}
    and tenant_id = t.tenant_id and (run_after is null or run_after <= $3)
    and attempts < max_attempts order by priority desc, created_at limit $5) p
  where (select count(*) from s) > 1),
k as (select l.id, l.state, q.priority, q.created_at, q.rn
  from (select * from q order by priority desc, rn, created_at) q
  cross join lateral (select j.id, j.state from jobs j where j.id = q.id and (j.state || '') = 'queued'
    and (j.run_after is null or j.run_after <= $3) and j.attempts < j.max_attempts
    for update skip locked) l
  order by q.priority desc, q.rn, q.created_at limit $5),
c as materialized (select id, state from (select id, state, priority, created_at, 0::bigint as rn,
  0 as band from r union all select *, 1 as band from k union all select *, 1 as band from g) x
  order by band, priority desc, rn, created_at limit $5)
update jobs j set state = 'running', epoch = j.epoch + 1, attempts = j.attempts + 1,
  attempt_id = replace(gen_random_uuid()::text, '-', ''), lease_until = $6, lease_owner = $7,
  updated_at = $3
where j.id = any(array(select id from c))
returning ${SNAPSHOT_COLUMNS.split(', ')
  .map((col) => `j.${col}`)
  .join(', ')}, (select c.state from c where c.id = j.id) as from_state`;

type ClaimRow = SnapshotRow & { from_state: string };

export async function claimJobsPg(
  pool: pg.Pool,
  opts: ClaimOptions,
  at: string,
  lease: string,
  own: string | null,
): Promise<ClaimedJob[]> {
  const r = await pool.query<ClaimRow>({
    name: 'sluice_claim_jobs_9',
    text: PG_CLAIM_SQL,
    values: [
      opts.versions.map((v) => v.kind),
      opts.versions.map((v) => v.version),
      at,
      own,
      opts.limit,
      lease,
      opts.owner,
      opts.exclude ?? [],
    ],
  });
  return r.rows.map((row) => ({ job: toSnapshot(row), from: row.from_state as JobState }));
}

const PG_UNCLAIM = `update jobs j set state = 'queued', attempts = j.attempts - 1,
  lease_until = null, lease_owner = null, run_after = $3, updated_at = $4
from unnest($1::text[], $2::int[]) as v(id, ep)
where j.id = v.id and j.epoch = v.ep and j.state = 'running'`;

export async function unclaimJobsPg(
  pool: pg.Pool,
  leases: readonly { jobId: string; epoch: number }[],
  due: string | null,
  at: string,
): Promise<number> {
  const r = await pool.query({
    name: 'sluice_unclaim_jobs_1',
    text: PG_UNCLAIM,
    values: [leases.map((l) => l.jobId), leases.map((l) => l.epoch), due, at],
  });
  return r.rowCount ?? 0;
}

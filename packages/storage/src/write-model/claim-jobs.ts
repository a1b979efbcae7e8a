// The embedded runtime's queue is the jobs table: a claim is the start of the attempts, ONE
// statement on PostgreSQL (an `UPDATE` of the candidates picked `FOR UPDATE SKIP LOCKED`
// through the partial indexes of queued and running rows), one immediate transaction on SQLite
// (a single writer: nothing to skip). A claimed row is `running` at a new epoch with a fresh
// attempt id and a lease held by `owner`; its `running` event is not written here: the attempt
// writes it with its first events (so a job that finishes fast writes ONE event row in all), and
// `last_seq` is left alone until then. D1: a read, then one UPDATE fenced by epoch (claim-jobs-d1.ts).
//
// Candidates: running rows whose lease lapsed (their holder died) and, while the owner recovers
// after a restart, running rows it held itself; then queued rows that are due, fair across
// tenants (fair-queued.ts: round-robin within a priority level). Rows with no attempts left are
// not claimed (the maintenance sweep dead-letters them).

import type SQLite from 'better-sqlite3';
import type { JobState, VersionKey } from '@sluice/contracts';
import { randomToken } from '@sluice/contracts';
import type { SluiceDatabase } from '../database.js';
import { isoIn, isoNow } from '../json.js';
import {
  SNAPSHOT_COLUMNS,
  toSnapshot,
  type JobSnapshot,
  type SnapshotRow,
} from './job-snapshot.js';
import { claimJobsD1, unclaimJobsD1 } from './claim-jobs-d1.js';
import { fairOrder, sqliteFairQueued, type FairCandidate } from './fair-queued.js';
import { immediately, prepared, withHandle } from './native-sqlite.js';

export interface ClaimOptions {
  versions: readonly VersionKey[];
  owner: string;
  leaseMs: number;
  limit: number;
  /** Also take back running jobs this owner still holds (after a restart under the same id). */
  includeOwn?: boolean | undefined;
  /** Jobs not to take back with `includeOwn` (the ones this process runs). */
  exclude?: readonly string[] | undefined;
  now?: number | undefined;
}

export interface ClaimedJob {
  /** The row as the claim left it: `running` at the new epoch. */
  job: JobSnapshot;
  /** Where it came from: `queued`, or `running` (a lapsed or own lease). */
  from: JobState;
}

/** `own` null: lapsed leases only (a plain range on the running rows' lease index). */
const RUNNING = (served: string, now: string, own: string | null, limit: string, mine: string) =>
  `select id, state, priority, created_at from jobs where state = 'running'
     and ${own === null ? `lease_until <= ${now}` : `(lease_until <= ${now} or (lease_owner = ${own} and ${mine}))`}
     and ${served} and attempts < max_attempts order by lease_until limit ${limit}`;

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
r as (${RUNNING(PG_SERVED, '$3', '$4', '$5', 'not (id = any($8::text[]))')} for update skip locked),
q as (select p.*, row_number() over (partition by p.tenant_id, p.priority order by p.created_at) as rn
  from t cross join lateral (select id, priority, created_at, tenant_id from jobs where ${PG_READY}
    and tenant_id = t.tenant_id and (run_after is null or run_after <= $3)
    and attempts < max_attempts order by priority desc, created_at limit $5) p),
k as (select l.id, l.state, q.priority, q.created_at, q.rn
  from (select * from q order by priority desc, rn, created_at) q
  cross join lateral (select j.id, j.state from jobs j where j.id = q.id and (j.state || '') = 'queued'
    and (j.run_after is null or j.run_after <= $3) and j.attempts < j.max_attempts
    for update skip locked) l
  order by q.priority desc, q.rn, q.created_at limit $5),
c as materialized (select id, state from (select id, state, priority, created_at, 0::bigint as rn,
  0 as band from r union all select *, 1 as band from k) x
  order by band, priority desc, rn, created_at limit $5)
update jobs j set state = 'running', epoch = j.epoch + 1, attempts = j.attempts + 1,
  attempt_id = replace(gen_random_uuid()::text, '-', ''), lease_until = $6, lease_owner = $7,
  updated_at = $3
where j.id = any(array(select id from c))
returning ${SNAPSHOT_COLUMNS.split(', ')
  .map((col) => `j.${col}`)
  .join(', ')}, (select c.state from c where c.id = j.id) as from_state`;

const SQLITE_SERVED =
  'exists (select 1 from json_each(@served) s where s.value ->> 0 = kind and s.value ->> 1 = version)';
const SQLITE_MINE = 'id not in (select value from json_each(@exclude))';
const SQLITE_RUNNING = RUNNING(SQLITE_SERVED, '@now', '@own', '@limit', SQLITE_MINE);
// SQLite plans the OR above as a scan of every running row (each checked against the served
// list) even when `@own` is null: outside a restart's recovery, the lapsed-only text is used.
const SQLITE_LAPSED = RUNNING(SQLITE_SERVED, '@now', null, '@limit', '');
const SQLITE_QUEUED = sqliteFairQueued(
  { kind: '@kind', version: '@version', now: '@now', limit: '@limit' },
  'j.id, j.state, j.priority, j.created_at, j.tenant_id',
);
const SQLITE_START = `update jobs set state = 'running', epoch = epoch + 1, attempts = attempts + 1,
  attempt_id = ?, lease_until = ?, lease_owner = ?, updated_at = ?
  where id = ? returning ${SNAPSHOT_COLUMNS}`;

type ClaimRow = SnapshotRow & { from_state: string };

export type Candidate = { id: string; state: string; priority: number; created_at: string };

export async function claimJobs(
  database: SluiceDatabase,
  opts: ClaimOptions,
): Promise<ClaimedJob[]> {
  if (opts.versions.length === 0 || opts.limit <= 0) return [];
  const now = opts.now ?? Date.now();
  const at = isoNow(now);
  const lease = isoIn(opts.leaseMs, now);
  const own = opts.includeOwn ? opts.owner : null;
  const native = database.native;
  if (native.dialect === 'postgres') {
    const r = await native.pool.query<ClaimRow>({
      name: 'sluice_claim_jobs_8',
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
  if (native.dialect === 'd1') return claimJobsD1(native.d1, opts, at, lease, own);
  const handle = native.handle;
  const params = {
    served: JSON.stringify(opts.versions.map((v) => [v.kind, v.version])),
    now: at,
    own,
    limit: opts.limit,
    exclude: JSON.stringify(opts.exclude ?? []),
  };
  // Running rows first (lapsed or own), then the served versions' due rows in claim order.
  const pick = (limit: number) => {
    const out = (
      own === null
        ? prepared(handle, SQLITE_LAPSED).all({ served: params.served, now: at, limit })
        : prepared(handle, SQLITE_RUNNING).all({ ...params, limit })
    ) as Candidate[];
    const room = limit - out.length;
    if (room <= 0) return out;
    const queued = opts.versions.flatMap(
      (v) =>
        prepared(handle, SQLITE_QUEUED).all({
          kind: v.kind,
          version: v.version,
          now: at,
          limit: room,
        }) as FairCandidate[],
    );
    return [...out, ...fairOrder(queued).slice(0, room)];
  };
  // Look before taking the write lock: an empty queue (the common answer to a woken wait) must
  // not serialise every other writer behind a BEGIN IMMEDIATE. One row answers that: the full
  // pick (up to `limit` rows per tenant) runs once, under the lock. Not after a claim of these
  // versions that filled up (a backlog: the look would find a row, at the cost of its
  // statements on every claim of a drain); a backlog that ran out costs one empty lock.
  let full = backlogged.get(handle);
  if (!full) backlogged.set(handle, (full = new Set()));
  if (!full.has(params.served) && (await withHandle(database, () => pick(1))).length === 0)
    return [];
  const claimed = await immediately(database, handle, () => {
    const picked = pick(opts.limit);
    const start = prepared(handle, SQLITE_START);
    return picked.map((p) => {
      const row = start.get(randomToken(), lease, opts.owner, at, p.id) as SnapshotRow;
      return { job: toSnapshot(row), from: p.state as JobState };
    });
  });
  if (claimed.length === opts.limit) full.add(params.served);
  else full.delete(params.served);
  return claimed;
}

/** Per SQLite handle, the served lists (as bound) whose last claim filled up. */
const backlogged = new WeakMap<SQLite.Database, Set<string>>();

const PG_UNCLAIM = `update jobs j set state = 'queued', attempts = j.attempts - 1,
  lease_until = null, lease_owner = null, run_after = $3, updated_at = $4
from unnest($1::text[], $2::int[]) as v(id, ep)
where j.id = v.id and j.epoch = v.ep and j.state = 'running'`;
const SQLITE_UNCLAIM = `update jobs set state = 'queued', attempts = attempts - 1,
  lease_until = null, lease_owner = null, run_after = ?, updated_at = ?
  where id = ? and epoch = ? and state = 'running'`;

/**
 * Gives claimed jobs that never ran back to the queue, due after `delayMs`: only rows still held
 * at the epoch their claim set (a later claim's row is left alone). The attempt the claim counted
 * is handed back; the epoch stays raised, so nothing of the returned claim can write any more.
 */
export async function unclaimJobs(
  database: SluiceDatabase,
  leases: readonly { jobId: string; epoch: number }[],
  delayMs: number,
  now = Date.now(),
): Promise<number> {
  if (leases.length === 0) return 0;
  const due = delayMs > 0 ? isoIn(delayMs, now) : null;
  const at = isoNow(now);
  const native = database.native;
  if (native.dialect === 'postgres') {
    const r = await native.pool.query({
      name: 'sluice_unclaim_jobs_1',
      text: PG_UNCLAIM,
      values: [leases.map((l) => l.jobId), leases.map((l) => l.epoch), due, at],
    });
    return r.rowCount ?? 0;
  }
  if (native.dialect === 'd1') return unclaimJobsD1(native.d1, leases, due, at);
  const handle = native.handle;
  return immediately(database, handle, () => {
    const stmt = prepared(handle, SQLITE_UNCLAIM);
    return leases.reduce((n, l) => n + stmt.run(due, at, l.jobId, l.epoch).changes, 0);
  });
}

// The embedded runtime's queue is the jobs table: a claim is the start of the attempts, ONE
// statement on PostgreSQL (`UPDATE … FROM` the candidates picked `FOR UPDATE SKIP LOCKED`
// through the partial indexes of queued and running rows), one immediate transaction on SQLite
// (a single writer: nothing to skip). A claimed row is `running` at a new epoch with a fresh
// attempt id and a lease held by `owner`; its `running` event is not written here: the attempt
// writes it with its first events (so a job that finishes fast writes ONE event row in all), and
// `last_seq` is left alone until then.
//
// Candidates: queued rows that are due, then running rows whose lease lapsed (their holder died)
// and, while the owner recovers after a restart, running rows it held itself. Rows with no
// attempts left are not claimed (the maintenance sweep dead-letters them).

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
import { immediately, prepared } from './native-sqlite.js';

export interface ClaimOptions {
  versions: readonly VersionKey[];
  owner: string;
  leaseMs: number;
  limit: number;
  /** Also take back running jobs this owner still holds (after a restart under the same id). */
  includeOwn?: boolean | undefined;
  now?: number | undefined;
}

export interface ClaimedJob {
  /** The row as the claim left it: `running` at the new epoch. */
  job: JobSnapshot;
  /** Where it came from: `queued`, or `running` (a lapsed or own lease). */
  from: JobState;
}

const RUNNING = (served: string, now: string, own: string, limit: string) =>
  `select id, state from jobs where state = 'running' and (lease_until <= ${now} or lease_owner = ${own})
     and ${served} and attempts < max_attempts order by lease_until limit ${limit}`;
const QUEUED = (served: string, now: string, limit: string) =>
  `select id, state from jobs where state = 'queued' and ${served}
     and (run_after is null or run_after <= ${now}) and attempts < max_attempts
     order by created_at limit ${limit}`;

const PG_SERVED = '(kind, version) in (select * from unnest($1::text[], $2::text[]))';
const PG_SQL = `
with r as (${RUNNING(PG_SERVED, '$3', '$4', '$5')} for update skip locked),
q as (${QUEUED(PG_SERVED, '$3', '$5')} for update skip locked),
c as (select * from r union all select * from q limit $5)
update jobs j set state = 'running', epoch = j.epoch + 1, attempts = j.attempts + 1,
  attempt_id = replace(gen_random_uuid()::text, '-', ''), lease_until = $6, lease_owner = $7,
  updated_at = $3
from c where j.id = c.id
returning ${SNAPSHOT_COLUMNS.split(', ')
  .map((col) => `j.${col}`)
  .join(', ')}, c.state as from_state`;

const SQLITE_SERVED =
  'exists (select 1 from json_each(@served) s where s.value ->> 0 = kind and s.value ->> 1 = version)';
const SQLITE_PICK = `select * from (select * from (${RUNNING(SQLITE_SERVED, '@now', '@own', '@limit')})
  union all select * from (${QUEUED(SQLITE_SERVED, '@now', '@limit')})) limit @limit`;
const SQLITE_START = `update jobs set state = 'running', epoch = epoch + 1, attempts = attempts + 1,
  attempt_id = ?, lease_until = ?, lease_owner = ?, updated_at = ?
  where id = ? returning ${SNAPSHOT_COLUMNS}`;

type ClaimRow = SnapshotRow & { from_state: string };

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
      name: 'sluice_claim_jobs_1',
      text: PG_SQL,
      values: [
        opts.versions.map((v) => v.kind),
        opts.versions.map((v) => v.version),
        at,
        own,
        opts.limit,
        lease,
        opts.owner,
      ],
    });
    return r.rows.map((row) => ({ job: toSnapshot(row), from: row.from_state as JobState }));
  }
  const handle = native.handle;
  const served = JSON.stringify(opts.versions.map((v) => [v.kind, v.version]));
  return immediately(database, handle, () => {
    const picked = prepared(handle, SQLITE_PICK).all({
      served,
      now: at,
      own,
      limit: opts.limit,
    }) as { id: string; state: string }[];
    const start = prepared(handle, SQLITE_START);
    return picked.map((p) => {
      const row = start.get(randomToken(), lease, opts.owner, at, p.id) as SnapshotRow;
      return { job: toSnapshot(row), from: p.state as JobState };
    });
  });
}

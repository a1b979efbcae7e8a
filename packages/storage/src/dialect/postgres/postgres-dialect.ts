// The PostgreSQL dialect of one open database: PostgreSQL's SQL (postgres-sql.ts) plus the write
// model's fixed statements as named statements on the pool (each prepared once per connection,
// one round trip each), LISTEN/NOTIFY as the work signal.

import type pg from 'pg';
import type { Db } from '../../database.js';
import { JOBS_CHANNEL } from '../../migration-write-model.js';
import { insertAcceptedJobs } from '../../repos/accept-jobs.js';
import { SNAPSHOT_COLUMNS, type SnapshotRow } from '../../write-model/snapshot-row.js';
import { exhaustedJobsSql } from '../../write-model/sweep-exhausted.js';
import type { ExhaustedJobRow, StorageDialect } from '../storage-dialect.js';
import { writeAttemptsPg } from './attempt-write.js';
import { claimJobsPg, unclaimJobsPg } from './claim-jobs.js';
import { acquireSlotPg, takeTokenPg, wakeWaitersPg } from './limits.js';
import { listenForWork } from './listen-for-work.js';
import { POSTGRES_SQL } from './postgres-sql.js';

// The ids reach the planner as a subquery's result, not as the parameter itself. Planned per run
// (open-postgres.ts), `any($1)` puts the 64 ids into the plan as a constant array, which the
// planner weighs id by id: it cost more backend CPU per read (64 ids, 20,000 jobs, paired on one
// private cluster: 0.71-0.88 → 0.46-0.62 ms), and at a few thousand rows it chose a scan of the
// whole table over 64 key probes. As one parameter the array is estimated at 10 ids, so the read
// probes the primary key at any table size (write-model/planner.test.ts).
export const PG_SNAPSHOTS_SQL = `select ${SNAPSHOT_COLUMNS} from jobs
  where id = any(array(select unnest($1::text[])))`;
const EXHAUSTED_SQL = exhaustedJobsSql('$1', '$2');

export function createPostgresDialect(pool: pg.Pool, db: Db): StorageDialect {
  return {
    ...POSTGRES_SQL,
    claimJobs: (opts, at, lease, own) => claimJobsPg(pool, opts, at, lease, own),
    unclaimJobs: (leases, due, at) => unclaimJobsPg(pool, leases, due, at),
    writeAttempts: (writes, at) => writeAttemptsPg(pool, writes, at),
    loadSnapshots: async (ids) =>
      (
        await pool.query<SnapshotRow>({
          name: 'sluice_load_snapshots_3',
          text: PG_SNAPSHOTS_SQL,
          values: [ids],
        })
      ).rows,
    exhaustedJobs: async (at, limit) =>
      (
        await pool.query<ExhaustedJobRow>({
          name: 'sluice_exhausted_1',
          text: EXHAUSTED_SQL,
          values: [at, limit],
        })
      ).rows,
    acquireSlot: (args) => acquireSlotPg(pool, args),
    takeToken: (args) => takeTokenPg(pool, args),
    wakeWaiters: (args) => wakeWaitersPg(pool, args),
    acceptJobs: (jobs, now) => db.transaction().execute((tx) => insertAcceptedJobs(tx, jobs, now)),
    watchWork: (wake) => listenForWork(pool, wake),
    notifyWork: async () => {
      await pool.query(`select pg_notify($1, '')`, [JOBS_CHANNEL]);
    },
    withDriver: (wrap, wrappedDb) => createPostgresDialect(wrap(pool), wrappedDb),
  };
}

// The SQLite dialect of one open database: SQLite's SQL (sqlite-sql.ts) plus the write model's
// fixed statements on the better-sqlite3 handle under kysely — prepared once per handle and
// text, run synchronously while kysely's connection is held (native-sqlite.ts), writes inside
// ONE immediate transaction.

import type SQLite from 'better-sqlite3';
import type { Db } from '../../database.js';
import { insertAcceptedJobs } from '../../repos/accept-jobs.js';
import type { SnapshotRow } from '../../write-model/snapshot-row.js';
import { exhaustedJobsSql } from '../../write-model/sweep-exhausted.js';
import type { ExhaustedJobRow, StorageDialect } from '../storage-dialect.js';
import { writeAttemptsSqlite } from './attempt-write.js';
import { claimJobsSqlite, unclaimJobsSqlite } from './claim-jobs.js';
import { acquireSlotSqlite, takeTokenSqlite, wakeWaitersSqlite } from './limits.js';
import { prepared, withHandle } from './native-sqlite.js';
import { SNAPSHOTS_SQL, SQLITE_SQL } from './sqlite-sql.js';
import { watchWal } from './watch-wal.js';

const EXHAUSTED_SQL = exhaustedJobsSql('?', '?');

/** `file`: the database file, watched for commits (undefined for `:memory:`: nothing to watch). */
export function createSqliteDialect(
  handle: SQLite.Database,
  db: Db,
  file: string | undefined,
): StorageDialect {
  return {
    ...SQLITE_SQL,
    claimJobs: (opts, at, lease, own) => claimJobsSqlite(handle, db, opts, at, lease, own),
    unclaimJobs: (leases, due, at) => unclaimJobsSqlite(handle, db, leases, due, at),
    writeAttempts: (writes, at) => writeAttemptsSqlite(handle, db, writes, at),
    loadSnapshots: (ids) =>
      withHandle(
        db,
        () => prepared(handle, SNAPSHOTS_SQL).all(JSON.stringify(ids)) as SnapshotRow[],
      ),
    exhaustedJobs: (at, limit) =>
      withHandle(db, () => prepared(handle, EXHAUSTED_SQL).all(at, limit) as ExhaustedJobRow[]),
    acquireSlot: (args) => acquireSlotSqlite(handle, db, args),
    takeToken: (args) => takeTokenSqlite(handle, db, args),
    wakeWaiters: (args) => wakeWaitersSqlite(handle, db, args),
    acceptJobs: (jobs, now) => db.transaction().execute((tx) => insertAcceptedJobs(tx, jobs, now)),
    watchWork: (wake) => (file ? watchWal(file, wake) : async () => {}),
    // Every commit appends to the write-ahead log, which the watchers see by themselves.
    notifyWork: async () => {},
    withDriver: (wrap, wrappedDb) => createSqliteDialect(wrap(handle), wrappedDb, file),
  };
}

// The D1 dialect of one binding: SQLite's SQL (D1 is SQLite behind a binding), no interactive
// transactions, an atomic `batch()` instead, and at most 100 bound parameters a statement. Every
// write that must land whole is ONE statement or ONE batch, each statement fenced by the row as
// the writer knew it: without a transaction to roll back, a statement whose
// fence fails must change nothing, and the batch's others are fenced the same way.

import type { CompiledQuery, QueryResult } from 'kysely';
import { isoNow } from '../../json.js';
import type { SnapshotRow } from '../../write-model/snapshot-row.js';
import { exhaustedJobsSql } from '../../write-model/sweep-exhausted.js';
import { SNAPSHOTS_SQL, SQLITE_SQL } from '../sqlite/sqlite-sql.js';
import type {
  AtomicBatch,
  ExhaustedJobRow,
  StorageCapabilities,
  StorageDialect,
} from '../storage-dialect.js';
import { insertAcceptedJobsD1 } from './accept-jobs.js';
import { writeAttemptsD1 } from './attempt-write.js';
import { claimJobsD1, unclaimJobsD1 } from './claim-jobs.js';
import { d1All, type D1Like } from './d1-like.js';
import { acquireSlotD1, takeTokenD1, wakeWaitersD1 } from './d1-limits.js';

const CAPABILITIES: StorageCapabilities = {
  // kysely's `transaction()` and SQL `BEGIN` both fail on D1.
  interactiveTransactions: false,
  atomicBatch: true,
  concurrentWriters: false,
  rowLocks: false,
  listenNotify: false,
  maxBoundParameters: 100,
};

const EXHAUSTED_SQL = exhaustedJobsSql('?1', '?2');

/** The binding's `batch()` for kysely's compiled queries (repositories' multi-statement writes). */
function atomicBatchOf(d1: D1Like): AtomicBatch {
  return {
    async run<R>(queries: readonly CompiledQuery[]): Promise<QueryResult<R>[]> {
      if (queries.length === 0) return [];
      const results = await d1.batch<R>(
        queries.map((q) => d1.prepare(q.sql).bind(...q.parameters)),
      );
      return results.map((r) => {
        const changes = r.meta.changes;
        return {
          rows: r.results,
          ...(changes !== undefined ? { numAffectedRows: BigInt(changes) } : {}),
        };
      });
    },
  };
}

export function createD1Dialect(d1: D1Like): StorageDialect {
  return {
    ...SQLITE_SQL,
    name: 'd1',
    capabilities: CAPABILITIES,
    atomicBatch: atomicBatchOf(d1),
    claimJobs: (opts, at, lease, own) => claimJobsD1(d1, opts, at, lease, own),
    unclaimJobs: (leases, due, at) => unclaimJobsD1(d1, leases, due, at),
    writeAttempts: (writes, at) => writeAttemptsD1(d1, writes, at),
    loadSnapshots: (ids) => d1All<SnapshotRow>(d1, SNAPSHOTS_SQL, JSON.stringify(ids)),
    exhaustedJobs: (at, limit) => d1All<ExhaustedJobRow>(d1, EXHAUSTED_SQL, at, limit),
    acquireSlot: (args) => acquireSlotD1(d1, args),
    takeToken: (args) => takeTokenD1(d1, args),
    wakeWaiters: (args) => wakeWaitersD1(d1, args),
    acceptJobs: (jobs, now, opts) =>
      insertAcceptedJobsD1(d1, jobs, isoNow(now), opts.outbox === true, {
        scheduled: opts.outboxScheduled === true,
      }),
    // No signal reaches a Worker: whatever waits on D1 polls.
    watchWork: () => async () => {},
    notifyWork: async () => {},
    withDriver: (wrap) => createD1Dialect(wrap(d1)),
  };
}

// Removing one retention batch, and then its bytes. The order, and why:
//
//   1. ONE transaction (D1: ONE batch): mark the batch's jobs, drop the marks of jobs that moved
//      since they were read (the fence), queue every blob key their rows name in
//      `retention_blobs`, delete their rows in every table, clear the marks.
//   2. Delete the queued blobs from the store.
//   3. Delete each queued key whose blob is gone.
//
// Rows go before bytes, so no row ever names bytes that are gone (a reader of an asset or an
// upload finds its row and its bytes, or neither). The keys are queued in the same transaction
// that deletes their rows, so no blob is ever forgotten: a crash after step 1 leaves them queued,
// and every sweep starts by draining the queue (step 2 and 3 again) — a blob outlives its rows by
// at most one sweep. A crash between 2 and 3 deletes an already-deleted blob once more, which is
// harmless. A crash inside step 1 rolls it back whole: nothing was marked, queued or deleted.
// Blob keys are never reused (they carry the job or file id), so a queued key names only bytes
// whose rows are gone.

import { randomToken, type JobState } from '@sluice/contracts';
import { sql, type CompiledQuery, type QueryResult } from 'kysely';
import type { BlobStore } from '../blobs/blob-store.js';
import type { SluiceDatabase } from '../database.js';
import { isoNow } from '../json.js';
import { lockJobs } from '../repos/job-leases.js';
import {
  deleteSql,
  fenceSql,
  inList,
  markSql,
  queueBlobsSql,
  type RetentionCandidate,
} from './retention-sql.js';

export interface RemovedBatch {
  /** The jobs removed (fewer than the candidates when some moved meanwhile). */
  jobs: { id: string; state: string }[];
  /** Rows deleted, by table. */
  rows: Record<string, number>;
  /** Blob keys queued for deletion. */
  queuedBlobs: number;
}

/** Runs the statements in one transaction, or one batch where there is no transaction (D1). */
async function atomically(
  database: SluiceDatabase,
  lockIds: readonly string[],
  queries: readonly CompiledQuery[],
): Promise<QueryResult<Record<string, unknown>>[]> {
  if (database.capabilities.interactiveTransactions) {
    return database.transaction(async (tx) => {
      // Row locks first (PostgreSQL): a hold or a requeue that commits after the fence would
      // otherwise change a job the rest of the transaction then deletes.
      await lockJobs(tx, lockIds);
      const out: QueryResult<Record<string, unknown>>[] = [];
      for (const q of queries) out.push(await tx.executeQuery<Record<string, unknown>>(q));
      return out;
    });
  }
  const batch = database.dialect.atomicBatch;
  if (!batch) throw new Error('this database has neither transactions nor an atomic batch');
  return batch.run<Record<string, unknown>>(queries);
}

/** Step 1: removes the candidates still as they were read, with every row hanging off them. */
export async function removeBatch(
  database: SluiceDatabase,
  candidates: readonly RetentionCandidate[],
  states: readonly JobState[],
  now = Date.now(),
): Promise<RemovedBatch> {
  const db = database.db;
  const sweep = randomToken();
  const marks = markSql(sweep, candidates).map((q) => q.compile(db));
  const deletes = deleteSql(sweep);
  const queries = [
    ...marks,
    fenceSql(sweep, states).compile(db),
    sql`select job_id, state from retention_marks where sweep = ${sql.lit(sweep)}`.compile(db),
    queueBlobsSql(sweep, isoNow(now)).compile(db),
    ...deletes.map(([, q]) => q.compile(db)),
    sql`delete from retention_marks where sweep = ${sql.lit(sweep)}`.compile(db),
  ];
  const results = await atomically(
    database,
    candidates.map((c) => c.id),
    queries,
  );
  const at = marks.length + 1;
  const removed = (results[at]?.rows ?? []) as { job_id: string; state: string }[];
  const rows: Record<string, number> = {};
  deletes.forEach(([table], i) => {
    rows[table] = Number(results[at + 2 + i]?.numAffectedRows ?? 0);
  });
  return {
    jobs: removed.map((r) => ({ id: r.job_id, state: r.state })),
    rows,
    queuedBlobs: Number(results[at + 1]?.numAffectedRows ?? 0),
  };
}

export interface DrainedBlobs {
  /** Blobs deleted from the store (a key already missing is not counted). */
  blobs: number;
  /** Their bytes, as their rows recorded them (staging bytes are not recorded: 0). */
  bytes: number;
  /** Keys still queued because the store refused (the next sweep tries again). */
  failed: number;
}

export interface DrainHooks {
  /** After a page of blobs was deleted and before their keys leave the queue (tests: a crash). */
  blobsDeleted?(keys: readonly string[]): void | Promise<void>;
}

/** Steps 2 and 3 for everything queued, page by page (this batch's keys and any a crash left). */
export async function drainRetentionBlobs(
  database: SluiceDatabase,
  blobs: BlobStore,
  hooks: DrainHooks = {},
  page = 200,
): Promise<DrainedBlobs> {
  const db = database.db;
  const out: DrainedBlobs = { blobs: 0, bytes: 0, failed: 0 };
  const skip = new Set<string>();
  for (;;) {
    const rows = await db
      .selectFrom('retention_blobs')
      .select(['key', 'size'])
      .orderBy('key')
      .limit(page + skip.size)
      .execute();
    const todo = rows.filter((r) => !skip.has(r.key)).slice(0, page);
    if (todo.length === 0) return out;
    const done: string[] = [];
    // A few deletes in flight at a time: fast on a remote store, gentle on its rate limits.
    for (let i = 0; i < todo.length; i += 16)
      await Promise.all(
        todo.slice(i, i + 16).map(async (r) => {
          try {
            if (await blobs.delete(r.key)) {
              out.blobs++;
              out.bytes += Number(r.size);
            }
            done.push(r.key);
          } catch {
            out.failed++;
            skip.add(r.key);
          }
        }),
      );
    await hooks.blobsDeleted?.(done);
    if (done.length > 0)
      await sql`delete from retention_blobs where key in ${inList(done)}`.execute(db);
  }
}

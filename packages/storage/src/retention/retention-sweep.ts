// One retention pass: remove every job whose time in its state passed its retention, in bounded
// batches, with everything hanging off it — events, units, provider-call ledger rows, asset
// ownership and asset rows with their bytes, the uploads only it used, its outbox row — and,
// with `archive`, a JSONL copy of each removed job written first. The caller runs one pass at a
// time across replicas (the gateway's sweeper holds the `retention` lock; a Worker's cron runs
// it the same way).
//
// A job is never removed while it is live or waits for a person (the policy's `states` hold only
// states a job rests in by itself), nor while it is held. Each batch re-checks every job as it
// was read (retention-remove.ts), so a job requeued, held or written meanwhile stays. The pass
// starts by deleting the bytes a crashed pass left queued, and pauses between batches so the
// database serves others in between. Its idempotency key goes with the job row: a later submit
// with the same key creates a new job.

import { randomToken, SluiceError, type JobState, type RetentionPolicy } from '@sluice/contracts';
import type { BlobStore } from '../blobs/blob-store.js';
import type { Db, SluiceDatabase } from '../database.js';
import { writeArchive } from './retention-archive.js';
import { expiredGroups, type RetentionGroup } from './retention-groups.js';
import { drainRetentionBlobs, removeBatch } from './retention-remove.js';
import { candidatesSql, type RetentionCandidate } from './retention-sql.js';

/** The steps of a batch, in order. */
export type RetentionStep = 'archived' | 'rows-removed' | 'blobs-deleted';

/** Test seams, injected by the caller; production passes none. */
export interface RetentionHooks {
  /** After each step of a batch; a throw stops the pass right there (a test's crash). */
  afterStep?(step: RetentionStep): void | Promise<void>;
}

export interface RetentionSweepOptions {
  database: SluiceDatabase;
  /** Where the bytes are. Without one (a Worker with no bucket) queued keys wait for one. */
  blobs?: BlobStore | undefined;
  policy: RetentionPolicy;
  /** Write each job as JSONL to the blob store before it is removed (default false). */
  archive?: boolean | undefined;
  /** Jobs per batch (default 500). */
  batchSize?: number | undefined;
  /** Pause between batches (default 200 ms). */
  pauseMs?: number | undefined;
  /** Batches per pass at most (default 200); the next pass goes on. */
  maxBatches?: number | undefined;
  /**
   * The sweep is behind when even the least overdue job of a batch was due more than this long
   * ago: it then skips the pause before the next batch. The pause keeps a sweep that is keeping
   * up from crowding the database; a sweep that is behind would otherwise never catch up while
   * jobs end faster than batchSize per pause (500 per 200 ms plus the batch's own time: measured
   * at ~150 jobs/s on a loaded machine against 260 ending). Default: never behind (always pause).
   */
  catchUpAfterMs?: number | undefined;
  now?: number | undefined;
  hooks?: RetentionHooks | undefined;
  /** Asked before each batch: true ends the pass (shutdown, a lost lock). */
  stop?: (() => boolean | Promise<boolean>) | undefined;
  sleep?: ((ms: number) => Promise<void>) | undefined;
}

export interface RetentionPassResult {
  batches: number;
  /** Jobs removed, and by the state they were in. */
  jobs: number;
  byState: Record<string, number>;
  /** Rows deleted, by table. */
  rows: Record<string, number>;
  blobs: number;
  bytes: number;
  /** Blob deletes the store refused (their keys stay queued for the next pass). */
  blobFailures: number;
  /** Archive objects written. */
  archived: string[];
  /** False when the pass ended with expired jobs left (`maxBatches`, `stop`). */
  complete: boolean;
}

/** Groups per candidate statement (keeps it well under D1's statement length). */
const GROUPS_PER_STATEMENT = 50;

/**
 * The next batch: group after group, expired rows of each. A chunk of groups that gave
 * fewer rows than asked was read to its end and leaves the list.
 */
async function nextBatch(
  db: Db,
  policy: RetentionPolicy,
  state: JobState,
  groups: RetentionGroup[],
  limit: number,
): Promise<RetentionCandidate[]> {
  const out: RetentionCandidate[] = [];
  while (groups.length > 0 && out.length < limit) {
    const chunk = groups.slice(0, GROUPS_PER_STATEMENT);
    const need = limit - out.length;
    const rows = (await candidatesSql(state, chunk, need).execute(db)).rows;
    out.push(...rows);
    if (rows.length < need) groups.splice(0, chunk.length);
    else break;
  }
  return out;
}

/** How long ago the least overdue job of a batch was due (its state's time plus its keep). */
function leastOverdueMs(
  batch: readonly RetentionCandidate[],
  policy: RetentionPolicy,
  now: number,
): number {
  let least = Infinity;
  for (const c of batch) {
    const keep = policy.keepMs(c.state as JobState, c.kind, c.tenant_id);
    if (keep === null) continue;
    least = Math.min(least, now - (Date.parse(c.updated_at) + keep));
  }
  return least;
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function sweepRetention(opts: RetentionSweepOptions): Promise<RetentionPassResult> {
  const { database, blobs, policy, hooks = {} } = opts;
  if (opts.archive && !blobs)
    throw new SluiceError('INVALID_CONFIG', 'retention.archive needs a blob store to write to', {
      details: { field: 'retention.archive' },
    });
  const now = opts.now ?? Date.now();
  const batchSize = opts.batchSize ?? 500;
  const maxBatches = opts.maxBatches ?? 200;
  const sleep = opts.sleep ?? pause;
  const result: RetentionPassResult = {
    batches: 0,
    jobs: 0,
    byState: {},
    rows: {},
    blobs: 0,
    bytes: 0,
    blobFailures: 0,
    archived: [],
    complete: true,
  };
  const drain = async () => {
    if (!blobs) return;
    const d = await drainRetentionBlobs(database, blobs, {
      blobsDeleted: () => hooks.afterStep?.('blobs-deleted'),
    });
    result.blobs += d.blobs;
    result.bytes += d.bytes;
    result.blobFailures += d.failed;
  };

  // Bytes a pass that crashed after removing its rows left queued go first.
  await drain();
  let behind = false;
  for (const state of policy.states) {
    const groups = await expiredGroups(database.db, policy, state, now);
    while (groups.length > 0) {
      if (result.batches >= maxBatches || (await opts.stop?.())) {
        result.complete = false;
        return result;
      }
      if (result.batches > 0 && !behind) await sleep(opts.pauseMs ?? 200);
      const batch = await nextBatch(database.db, policy, state, groups, batchSize);
      if (batch.length === 0) break;
      if (opts.archive && blobs) {
        const id = `${now}-${randomToken().slice(0, 10)}`;
        result.archived.push(...(await writeArchive(database.db, blobs, batch, id, now)));
        await hooks.afterStep?.('archived');
      }
      const removed = await removeBatch(database, batch, policy.states, now);
      behind =
        opts.catchUpAfterMs !== undefined &&
        leastOverdueMs(batch, policy, now) > opts.catchUpAfterMs;
      result.batches++;
      result.jobs += removed.jobs.length;
      for (const j of removed.jobs) result.byState[j.state] = (result.byState[j.state] ?? 0) + 1;
      for (const [table, n] of Object.entries(removed.rows))
        result.rows[table] = (result.rows[table] ?? 0) + n;
      await hooks.afterStep?.('rows-removed');
      await drain();
    }
  }
  return result;
}

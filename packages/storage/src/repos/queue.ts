// The embedded runtime's queue is the jobs table itself (write-model/claim-jobs.ts): a queued job
// row is claimable once due. What remains here is what the gateway asks of it: nothing to write
// at dispatch, and the figures for `/metrics`.

import type { MessagePointer } from '@sluice/contracts';
import { sql } from 'kysely';
import type { Db } from '../database.js';
import { rowsPerStatement } from '../dialect/storage-dialect.js';
import { isoNow } from '../json.js';

/**
 * Dispatch on the embedded runtime: the accept transaction already wrote the job `queued`, which
 * is all a claim needs. With `availableAt`, the jobs are held back until then.
 */
export async function enqueue(
  tx: Db,
  pointers: readonly MessagePointer[],
  availableAt?: string,
): Promise<void> {
  if (pointers.length === 0 || availableAt === undefined) return;
  const per = rowsPerStatement(tx, pointers.length, 1, 2);
  for (let i = 0; i < pointers.length; i += per)
    await tx
      .updateTable('jobs')
      .set({ run_after: availableAt })
      .where(
        'id',
        'in',
        pointers.slice(i, i + per).map((p) => p.jobId),
      )
      .where('state', '=', 'queued')
      .execute();
}

export interface QueueStats {
  /** Jobs queued or running. */
  depth: number;
  /** Jobs running (held under a lease). */
  leased: number;
  /** Age in ms of the oldest queued job that is due (0 when none). */
  oldestReadyAgeMs: number;
}

export async function queueStats(db: Db, now = Date.now()): Promise<QueueStats> {
  const nowIso = isoNow(now);
  // Each count reads one partial index (queued rows, running rows).
  const queued = await db
    .selectFrom('jobs')
    .select([
      sql<number>`count(*)`.as('n'),
      sql<
        string | null
      >`min(case when run_after is null or run_after <= ${nowIso} then coalesce(run_after, created_at) end)`.as(
        'oldest',
      ),
    ])
    .where('state', '=', 'queued')
    .executeTakeFirstOrThrow();
  const running = await db
    .selectFrom('jobs')
    .select(sql<number>`count(*)`.as('n'))
    .where('state', '=', 'running')
    .executeTakeFirstOrThrow();
  const oldest = queued.oldest ? Date.parse(queued.oldest) : undefined;
  return {
    depth: Number(queued.n ?? 0) + Number(running.n ?? 0),
    leased: Number(running.n ?? 0),
    oldestReadyAgeMs: oldest !== undefined && oldest < now ? now - oldest : 0,
  };
}

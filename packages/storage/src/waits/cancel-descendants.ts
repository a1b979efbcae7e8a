// What a cancel takes with it in the database, written in the SAME transaction that stores the
// cancel (one job's, a bulk batch's, the jobs a singleton submit replaced): the cancelled jobs'
// open waits close, and their attached children (and theirs, breadth first) are cancelled with
// reason PARENT_CANCELLED, each a compare-and-set with its own event. Committed together, a
// crash after the commit cannot leave an attached child running under a cancelled parent, nor
// an open wait on a cancelled job. A child that already ended stays as it ended; a detached one
// is left alone. Telling a running child's worker to stop cannot be in the transaction: the
// caller does that after the commit, and a worker that never hears of it is fenced anyway (its
// next write needs the job `running` at its epoch).
//
// One read per tree level for all the cancelled jobs at once and one grouped transition per
// level (`transitionJobs`), so a bulk batch costs a few statements, not a few per job.

import { isTerminalState, type JobState } from '@sluice/contracts';
import type { Db } from '../database.js';
import { isoNow } from '../json.js';
import type { StoredEvent } from '../repos/event-rows.js';
import { transitionJob } from '../repos/jobs.js';
import { transitionJobs } from '../repos/bulk-transitions.js';

/** What the cascade moved: events to publish and runs to stop once the transaction commits. */
export interface CancelledDescendants {
  events: StoredEvent[];
  jobs: { id: string; version: string }[];
}

/** Keeps each `in (…)` list well under every dialect's bound-parameter limit. */
const CHUNK = 400;

/**
 * In the cancel's transaction: closes the open waits of `cancelledIds` (jobs of `tenantId` just
 * cancelled) and cancels their attached non-terminal descendants. `maxDepth` bounds a runaway
 * tree.
 */
export async function cancelDescendants(
  tx: Db,
  tenantId: string,
  cancelledIds: readonly string[],
  now = Date.now(),
  maxDepth = 8,
): Promise<CancelledDescendants> {
  const out: CancelledDescendants = { events: [], jobs: [] };
  await closeWaitsOf(tx, cancelledIds, now);
  let level = [...cancelledIds];
  for (let depth = 0; depth < maxDepth && level.length > 0; depth++) {
    const rows = await childrenOf(tx, tenantId, level);
    // A child that ended keeps its own attached children in the walk: they go too.
    level = rows.map((r) => r.id);
    const live = rows.filter((r) => !isTerminalState(r.state));
    const moved = await transitionJobs(
      tx,
      live.map((r) => ({ id: r.id, event: 'cancel', reason: 'PARENT_CANCELLED', from: r.state })),
      now,
    );
    const cancelled: string[] = [];
    for (const [i, first] of moved.entries()) {
      // The compare-and-set missed: the child moved since the read (its worker suspended it,
      // say). The plain transition reads its state again and cancels it if it still may be.
      const r = first.ok
        ? first
        : await transitionJob(
            tx,
            { id: (live[i] as ChildState).id, event: 'cancel', reason: 'PARENT_CANCELLED' },
            now,
          );
      if (!r.ok) continue;
      out.events.push(r.event);
      out.jobs.push({ id: r.job.id, version: r.job.version });
      cancelled.push(r.job.id);
    }
    await closeWaitsOf(tx, cancelled, now);
  }
  return out;
}

interface ChildState {
  id: string;
  state: JobState;
}

async function childrenOf(
  tx: Db,
  tenantId: string,
  parentIds: readonly string[],
): Promise<ChildState[]> {
  const out: ChildState[] = [];
  for (let c = 0; c < parentIds.length; c += CHUNK) {
    const rows = await tx
      .selectFrom('jobs')
      .select(['id', 'state'])
      .where('parent_id', 'in', parentIds.slice(c, c + CHUNK))
      .where('tenant_id', '=', tenantId)
      .where('detached', '=', 0)
      .execute();
    out.push(...rows.map((r) => ({ id: r.id, state: r.state as JobState })));
  }
  return out;
}

/** Closes the open waits of jobs that left `waiting` for good: the sweep never reads them again. */
async function closeWaitsOf(tx: Db, jobIds: readonly string[], now: number): Promise<void> {
  for (let c = 0; c < jobIds.length; c += CHUNK) {
    await tx
      .updateTable('job_waits')
      .set({ status: 'cancelled', resolved_at: isoNow(now) })
      .where('job_id', 'in', jobIds.slice(c, c + CHUNK))
      .where('status', '=', 'open')
      .execute();
  }
}

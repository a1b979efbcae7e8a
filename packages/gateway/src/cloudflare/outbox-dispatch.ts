// How an accepted job reaches its runtime from a Worker. D1 cannot hold a transaction open
// across the accept, so the outbox row is written in the job's own `batch()` (storage
// `acceptJobs` with `outbox`: the job and its dispatch obligation land together or not at all),
// then the runtime is handed the jobs and the row is removed. A failed dispatch, or a Worker
// stopped between those steps, leaves the row: `reconcile` (the Worker's cron trigger) hands over
// what is still owed. A runtime on this path must take a job twice without running it twice (a
// push runtime names each run by its job id). `stage` writes the rows itself for a caller that
// did not (the accept path skips it when the batch wrote them).

import type { MessagePointer } from '@sluice/contracts';
import {
  addToOutbox,
  deleteOutboxRows,
  dueOutboxRows,
  getJobsByIds,
  removeFromOutbox,
  type SluiceDatabase,
} from '@sluice/storage/portable';
import type { DispatchPath } from '../dispatch/dispatch.js';
import type { GatewayDispatcher } from '../wire/gateway-dispatcher.js';

export function createOutboxDispatchPath(
  dispatcher: GatewayDispatcher,
  database: SluiceDatabase,
  onError: (error: unknown) => void,
): DispatchPath {
  return {
    inTransaction: false,
    delaysInRun: dispatcher.capabilities.delaysInRun,
    snapshots: dispatcher.capabilities.startsFromPointer,
    stage: (db, pointers) =>
      addToOutbox(
        db,
        pointers.map((p) => p.jobId),
      ),
    async afterCommit(pointers) {
      if (pointers.length === 0) return { dispatched: true, events: [] };
      try {
        await dispatcher.dispatch(pointers);
        await removeFromOutbox(
          database.db,
          pointers.map((p) => p.jobId),
        );
        return { dispatched: true, events: [] };
      } catch (error) {
        onError(error);
        return { dispatched: false, events: [] };
      }
    },
    flush: async () => {},
  };
}

/**
 * Dispatches the outbox rows older than `graceMs` (their own post-accept dispatch failed or never
 * ran) and removes them. Returns how many jobs it dispatched.
 */
export async function reconcileOutbox(
  dispatcher: GatewayDispatcher,
  database: SluiceDatabase,
  opts: { graceMs?: number; limit?: number; now?: number } = {},
): Promise<number> {
  const rows = await dueOutboxRows(
    database.db,
    opts.now ?? Date.now(),
    opts.graceMs ?? 30_000,
    opts.limit ?? 500,
  );
  if (rows.length === 0) return 0;
  const jobs = await getJobsByIds(
    database.db,
    rows.map((r) => r.jobId),
  );
  const pointers: MessagePointer[] = [];
  for (const job of jobs.values()) {
    const pointer = { jobId: job.id, kind: job.kind, version: job.version, tenantId: job.tenantId };
    if (job.state === 'queued') pointers.push(pointer);
    // A delayed job never handed over: handed over now, to wait in its run until its due time.
    else if (job.state === 'scheduled' && dispatcher.capabilities.delaysInRun && job.runAfter)
      pointers.push({ ...pointer, runAt: job.runAfter });
  }
  await dispatcher.dispatch(pointers);
  await deleteOutboxRows(database.db, rows);
  return pointers.length;
}

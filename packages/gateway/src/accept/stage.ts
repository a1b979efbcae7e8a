// How an accepted job reaches its runtime, both halves in one place. Inside the accept
// transaction the ready jobs are staged (enqueued by an in-transaction runtime, or given outbox
// rows); after commit a runtime outside the database gets the pointer. The outbox row is what
// makes that second half safe to lose: a crash or a failed dispatch after commit leaves it for
// the reconciler (dispatch/dispatch.ts).
//
// The writer (accept-write.ts) stages, the batcher (accept-batcher.ts) picks the insert, and the
// acceptor (accept.ts) dispatches after commit; each calls down into this file, never into
// another of the three.

import type { MessagePointer } from '@sluice/contracts';
import {
  acceptJobs,
  type AcceptedJob,
  type AcceptedWrite,
  type Db,
  type SluiceDatabase,
} from '@sluice/storage/portable';
import type { DispatchPath } from '../dispatch/dispatch.js';

/** Writes the accepted jobs with their events: inside the batch transaction, or atomically alone. */
export type InsertJobs = (tx: Db, jobs: readonly AcceptedJob[]) => Promise<AcceptedWrite>;

/**
 * The insert on a database without interactive transactions (D1): outside the database, staging
 * means outbox rows only, so they go in the jobs' own atomic batch (`acceptJobs`) instead of a
 * second write that could fail apart from it.
 */
export function insertWithOutbox(database: SluiceDatabase, dispatch: DispatchPath): InsertJobs {
  return (_db, jobs) =>
    acceptJobs(database, jobs, Date.now(), {
      outbox: !dispatch.inTransaction,
      outboxScheduled: dispatch.delaysInRun,
    });
}

/**
 * Inside the accept transaction: the ready jobs are queued at commit for every runtime (an
 * outside runtime's outbox row guarantees the pointer reaches it after commit). On D1 the outbox
 * rows went in the jobs' own batch already (`outboxWritten`).
 */
export function stageAccepted(
  tx: Db,
  dispatch: DispatchPath,
  written: AcceptedWrite,
  pointers: readonly MessagePointer[],
): Promise<void> {
  return dispatch.stage(tx, written.outboxWritten ? [] : pointers);
}

/**
 * After commit, for a runtime outside the database: the pointer goes out now. Awaited by the
 * acceptor for back-pressure; a failure is left to the reconciler (the outbox row stays).
 */
export async function dispatchAccepted(
  dispatch: DispatchPath,
  pointer: MessagePointer | undefined,
): Promise<void> {
  if (pointer && !dispatch.inTransaction) {
    await dispatch.afterCommit([pointer], { markQueued: false });
  }
}

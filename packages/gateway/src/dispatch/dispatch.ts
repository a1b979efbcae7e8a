// How a ready job reaches its runtime. Runtimes whose queue is in the job database
// (`dispatchesInTransaction`) join the transaction that made the job ready; the others get an
// outbox row in that transaction and the pointer right after commit (coalesced across concurrent
// callers), then the outbox rows are removed (and, with `markQueued`, accepted jobs moved to
// queued in the same round trip). A failure after commit leaves the outbox row for the
// reconciler. Both halves take lists, so callers can batch.
//
// This folder: that path (dispatch.ts), the post-commit batcher it uses for outside runtimes
// (dispatch-batcher.ts), and the check whether any live worker serves a version at all
// (served-versions.ts), which decides at accept between dispatching and dead-lettering.

import type { MessagePointer, RuntimeDispatcher } from '@sluice/contracts';
import {
  addToOutbox,
  type Db,
  type SluiceDatabase,
  type StoredEvent,
} from '@sluice/storage/portable';
import { createDispatchBatcher, type DispatchBatchOptions } from './dispatch-batcher.js';

export interface DispatchPath {
  readonly inTransaction: boolean;
  /**
   * The runtime's run waits for a delayed job's due time itself (`delaysInRun`): a `scheduled`
   * job is staged and dispatched at submit like a queued one, its pointer carrying `runAt`.
   */
  readonly delaysInRun: boolean;
  /** The runtime starts first deliveries from a snapshot in the pointer (`startsFromPointer`). */
  readonly snapshots: boolean;
  /** Inside the transaction: enqueue (in-transaction runtimes) or write the outbox rows. */
  stage(tx: Db, pointers: readonly MessagePointer[]): Promise<void>;
  /**
   * After commit, for runtimes outside the database: dispatch, then (with `markQueued`) move the
   * jobs from accepted to queued, and clear the outbox. Returns the events written; never throws.
   */
  afterCommit(
    pointers: readonly MessagePointer[],
    opts: { markQueued: boolean },
  ): Promise<{ dispatched: boolean; events: StoredEvent[] }>;
  /** Finishes post-commit work still in flight (shutdown). */
  flush(): Promise<void>;
}

export function createDispatchPath(
  runtime: RuntimeDispatcher<Db>,
  database: SluiceDatabase,
  onError: (error: unknown) => void,
  batch?: DispatchBatchOptions,
): DispatchPath {
  const inTransaction = runtime.capabilities.dispatchesInTransaction;
  // Concurrent callers share one dispatch and one database round trip (see dispatch-batcher.ts).
  const batcher = inTransaction
    ? undefined
    : createDispatchBatcher(runtime, database, onError, batch);
  return {
    inTransaction,
    delaysInRun: runtime.capabilities.delaysInRun,
    snapshots: runtime.capabilities.startsFromPointer,
    async stage(tx, pointers) {
      if (inTransaction) await runtime.dispatch(pointers, tx);
      else
        await addToOutbox(
          tx,
          pointers.map((p) => p.jobId),
        );
    },
    async afterCommit(pointers, { markQueued }) {
      if (!batcher || pointers.length === 0) return { dispatched: true, events: [] };
      return batcher.dispatch(pointers, markQueued);
    },
    flush: async () => batcher?.flush(),
  };
}

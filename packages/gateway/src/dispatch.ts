// How a ready job reaches its runtime. Runtimes whose queue is in the job database
// (`dispatchesInTransaction`) join the transaction that made the job ready; the others get an
// outbox row in that transaction and the pointer right after commit, then a second small
// transaction marks the job queued and removes the outbox row. A failure after commit leaves
// the outbox row for the reconciler. Both halves take lists, so callers can batch.

import type { MessagePointer, RuntimeDispatcher } from '@sluice/contracts';
import {
  addToOutbox,
  removeFromOutbox,
  transitionJob,
  type Db,
  type SluiceDatabase,
  type StoredEvent,
} from '@sluice/storage';

export interface DispatchPath {
  readonly inTransaction: boolean;
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
}

export function createDispatchPath(
  runtime: RuntimeDispatcher<Db>,
  database: SluiceDatabase,
  onError: (error: unknown) => void,
): DispatchPath {
  const inTransaction = runtime.capabilities.dispatchesInTransaction;
  return {
    inTransaction,
    async stage(tx, pointers) {
      if (inTransaction) await runtime.dispatch(pointers, tx);
      else
        await addToOutbox(
          tx,
          pointers.map((p) => p.jobId),
        );
    },
    async afterCommit(pointers, { markQueued }) {
      if (inTransaction || pointers.length === 0) return { dispatched: true, events: [] };
      try {
        await runtime.dispatch(pointers);
      } catch (error) {
        onError(error);
        return { dispatched: false, events: [] };
      }
      try {
        const events = await database.transaction(async (tx) => {
          const out: StoredEvent[] = [];
          if (markQueued) {
            for (const p of pointers) {
              const r = await transitionJob(tx, { id: p.jobId, event: 'dispatch' });
              if (r.ok) out.push(r.event);
            }
          }
          await removeFromOutbox(
            tx,
            pointers.map((p) => p.jobId),
          );
          return out;
        });
        return { dispatched: true, events };
      } catch (error) {
        // Dispatched but not recorded: the reconciler re-dispatches from the outbox, and the
        // pointer is idempotent for the worker (it reloads the job row).
        onError(error);
        return { dispatched: true, events: [] };
      }
    },
  };
}

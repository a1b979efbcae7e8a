// Post-commit dispatch, coalesced across concurrent submits: what arrives while a batch is being
// collected (at most `maxDelayMs`, or until `maxBatch` pointers) or while earlier batches are in
// flight goes out as ONE `runtime.dispatch` (one XADD pipeline) followed by ONE database round
// trip (the outbox rows deleted; with `markQueued`, the accepted → queued transitions too, in the
// same transaction). Like a group commit, batches grow with load and cost ~nothing when idle.
// A failure leaves the outbox rows: the reconciler dispatches them.

import type { MessagePointer, RuntimeDispatcher } from '@sluice/contracts';
import {
  isoNow,
  transitionJobs,
  type Db,
  type SluiceDatabase,
  type StoredEvent,
} from '@sluice/storage';
import { deleteDispatchedOutbox } from './reconciler/reconcile-queries.js';

export interface DispatchBatchOptions {
  /** Longest wait to collect a batch when nothing is in flight (default 1 ms). */
  maxDelayMs?: number;
  /** Pointers per batch (default 500). */
  maxBatch?: number;
  /** Batches dispatching at once (default 2: one in Redis while one is in the database). */
  maxInFlight?: number;
}

export interface DispatchOutcome {
  dispatched: boolean;
  events: StoredEvent[];
}

export interface DispatchBatcher {
  dispatch(pointers: readonly MessagePointer[], markQueued: boolean): Promise<DispatchOutcome>;
  /** Batches and pointers sent so far (tests and metrics). */
  readonly stats: { batches: number; pointers: number };
}

interface Item {
  pointers: readonly MessagePointer[];
  markQueued: boolean;
  resolve(outcome: DispatchOutcome): void;
}

export function createDispatchBatcher(
  runtime: RuntimeDispatcher<Db>,
  database: SluiceDatabase,
  onError: (error: unknown) => void,
  opts: DispatchBatchOptions = {},
): DispatchBatcher {
  const maxDelayMs = opts.maxDelayMs ?? 1;
  const maxBatch = opts.maxBatch ?? 500;
  const maxInFlight = opts.maxInFlight ?? 2;
  const stats = { batches: 0, pointers: 0 };
  let pending: Item[] = [];
  let pendingCount = 0;
  let timer: NodeJS.Timeout | undefined;
  let inFlight = 0;

  function kick(): void {
    clearTimeout(timer);
    timer = undefined;
    if (inFlight >= maxInFlight || pending.length === 0) return;
    const batch = pending;
    pending = [];
    pendingCount = 0;
    inFlight++;
    void send(batch).finally(() => {
      inFlight--;
      // Whatever queued up meanwhile has waited long enough: send it now.
      if (pending.length > 0) kick();
    });
  }

  async function send(batch: Item[]): Promise<void> {
    const unique = new Map<string, MessagePointer>();
    for (const item of batch) for (const p of item.pointers) unique.set(p.jobId, p);
    const ids = [...unique.keys()];
    stats.batches++;
    stats.pointers += ids.length;
    // Rows written before this moment are covered by this dispatch; a retry's later row is not.
    const startedIso = isoNow();
    try {
      await runtime.dispatch([...unique.values()]);
    } catch (error) {
      onError(error);
      for (const item of batch) item.resolve({ dispatched: false, events: [] });
      return;
    }
    const toMark = [...new Set(batch.filter((i) => i.markQueued).flatMap((i) => i.pointers))];
    let events: StoredEvent[] = [];
    try {
      if (toMark.length === 0) {
        await deleteDispatchedOutbox(database.db, ids, startedIso);
      } else {
        events = await database.transaction(async (tx) => {
          const moved = await transitionJobs(
            tx,
            [...new Set(toMark.map((p) => p.jobId))].map((id) => ({ id, event: 'dispatch' })),
          );
          await deleteDispatchedOutbox(tx, ids, startedIso);
          return moved.flatMap((r) => (r.ok ? [r.event] : []));
        });
      }
    } catch (error) {
      // Dispatched but not recorded: the reconciler dispatches again from the outbox, and a
      // duplicate entry is harmless (the worker reloads the job row).
      onError(error);
    }
    const byJob = new Map(events.map((e) => [e.event.jobId, e]));
    for (const item of batch) {
      const mine = item.markQueued
        ? item.pointers.flatMap((p) => {
            const e = byJob.get(p.jobId);
            return e ? [e] : [];
          })
        : [];
      item.resolve({ dispatched: true, events: mine });
    }
  }

  return {
    stats,
    dispatch(pointers, markQueued) {
      if (pointers.length === 0) return Promise.resolve({ dispatched: true, events: [] });
      return new Promise<DispatchOutcome>((resolve) => {
        pending.push({ pointers, markQueued, resolve });
        pendingCount += pointers.length;
        if (pendingCount >= maxBatch) kick();
        else timer ??= setTimeout(kick, maxDelayMs);
      });
    },
  };
}

// Post-commit dispatch, coalesced across concurrent submits: what arrives while a batch is being
// collected (at most `maxDelayMs`, or until `maxBatch` pointers) or while earlier batches are in
// flight goes out as ONE `runtime.dispatch` (one round trip to the transport). Like a group commit, batches grow
// with load and cost ~nothing when idle. Callers wait for the dispatch only: the outbox rows of
// dispatched jobs are deleted in the background, many batches per transaction (on SQLite, where
// commits are serialized, a delete per submit would halve the submit rate). A crash before that
// delete only means a duplicate entry later (harmless). With `markQueued` the accepted → queued
// transitions are written (with the delete) before the caller gets its events.
// A failed dispatch leaves the outbox rows: the reconciler dispatches them.

import type { MessagePointer, RuntimeDispatcher } from '@sluice/contracts';
import {
  isoNow,
  transitionJobs,
  type Db,
  type SluiceDatabase,
  type StoredEvent,
} from '@sluice/storage';
import { deleteDispatchedOutbox } from '@sluice/storage';

export interface DispatchBatchOptions {
  /** Longest wait to collect a batch when nothing is in flight (default 1 ms). */
  maxDelayMs?: number;
  /** Pointers per batch (default 500). */
  maxBatch?: number;
  /** Batches dispatching at once (default 2). */
  maxInFlight?: number;
  /** How long dispatched outbox rows wait to be deleted together (default 100 ms). */
  deleteDelayMs?: number;
  /** Told about every dispatch and every outbox delete transaction (tests, metrics). */
  onBatch?: (info: { kind: 'dispatch' | 'outbox-delete'; jobs: number }) => void;
}

export interface DispatchOutcome {
  dispatched: boolean;
  events: StoredEvent[];
}

export interface DispatchBatcher {
  dispatch(pointers: readonly MessagePointer[], markQueued: boolean): Promise<DispatchOutcome>;
  /** Deletes the outbox rows of everything dispatched so far (shutdown). */
  flush(): Promise<void>;
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
  const deleteDelayMs = opts.deleteDelayMs ?? 100;
  let pending: Item[] = [];
  let pendingCount = 0;
  let timer: NodeJS.Timeout | undefined;
  let inFlight = 0;
  const sending = new Set<Promise<void>>();
  // Dispatched job ids by the time their dispatch began (the delete's compare-and-set bound).
  let owed = new Map<string, string[]>();
  let deleteTimer: NodeJS.Timeout | undefined;
  let deleting: Promise<void> = Promise.resolve();

  function deleteOwed(): Promise<void> {
    clearTimeout(deleteTimer);
    deleteTimer = undefined;
    const groups = owed;
    owed = new Map();
    if (groups.size === 0) return deleting;
    deleting = deleting.then(async () => {
      try {
        await database.transaction(async (tx) => {
          for (const [iso, ids] of groups) await deleteDispatchedOutbox(tx, ids, iso);
        });
        let jobs = 0;
        for (const ids of groups.values()) jobs += ids.length;
        opts.onBatch?.({ kind: 'outbox-delete', jobs });
      } catch (error) {
        // The rows stay: the reconciler dispatches those jobs once more (harmless).
        onError(error);
      }
    });
    return deleting;
  }

  function owe(ids: string[], iso: string): void {
    owed.set(iso, [...(owed.get(iso) ?? []), ...ids]);
    deleteTimer ??= setTimeout(() => void deleteOwed(), deleteDelayMs);
  }

  function kick(): void {
    clearTimeout(timer);
    timer = undefined;
    if (inFlight >= maxInFlight || pending.length === 0) return;
    const batch = pending;
    pending = [];
    pendingCount = 0;
    inFlight++;
    const sent: Promise<void> = send(batch).finally(() => {
      inFlight--;
      sending.delete(sent);
      // Whatever queued up meanwhile has waited long enough: send it now.
      if (pending.length > 0) kick();
    });
    sending.add(sent);
  }

  async function send(batch: Item[]): Promise<void> {
    const unique = new Map<string, MessagePointer>();
    for (const item of batch) for (const p of item.pointers) unique.set(p.jobId, p);
    const ids = [...unique.keys()];
    opts.onBatch?.({ kind: 'dispatch', jobs: ids.length });
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
        owe(ids, startedIso);
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
    async flush() {
      for (;;) {
        kick();
        if (sending.size === 0 && pending.length === 0) break;
        await Promise.all([...sending]);
      }
      await deleteOwed();
    },
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

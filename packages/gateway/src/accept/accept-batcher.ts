// Group commit of accepts. Concurrent submits that passed their own checks (schema, kind,
// version routing) queue here; one transaction writes all of them: the file-ownership and
// idempotency reads for the whole batch, one multi-row insert per table (jobs directly in their
// accepted state with both events, attached files, queue or outbox rows), one commit. Batches grow
// with load (what arrives while one is in flight forms the next) and cost one event-loop turn
// when idle.
//
// Every request keeps its own answer (accept-write.ts). If the batch transaction fails, each
// request is retried in a transaction of its own, so one bad item never fails the others.

import type { SluiceDatabase } from '@sluice/storage/portable';
import { writeBatch, type AcceptAnswer, type AcceptItem } from './accept-write.js';
import type { DispatchPath } from '../dispatch/dispatch.js';
import { insertWithOutbox } from './stage.js';

export type { AcceptAnswer, AcceptItem } from './accept-write.js';

export interface AcceptBatchOptions {
  /** Accepts per transaction (default 256). */
  maxBatch?: number;
  /** Batch transactions at once (default 1: SQLite serialises writers; 2 helps PostgreSQL). */
  maxInFlight?: number;
  /** Told about every batch transaction (tests, metrics); `fallback` for the per-item retries. */
  onBatch?: (info: { items: number; fallback: boolean }) => void;
}

export interface AcceptBatcher {
  accept(item: AcceptItem): Promise<AcceptAnswer>;
  /** Resolves once everything queued so far is answered (shutdown). */
  flush(): Promise<void>;
}

interface Waiting {
  item: AcceptItem;
  resolve(answer: AcceptAnswer): void;
}

export function createAcceptBatcher(
  database: SluiceDatabase,
  dispatch: DispatchPath,
  opts: AcceptBatchOptions = {},
): AcceptBatcher {
  if (!database.capabilities.interactiveTransactions)
    return createStatementAcceptor(database, dispatch);
  const maxBatch = opts.maxBatch ?? 256;
  const maxInFlight = opts.maxInFlight ?? 1;
  let pending: Waiting[] = [];
  let scheduled = false;
  let inFlight = 0;
  const running = new Set<Promise<void>>();

  async function run(batch: Waiting[]): Promise<void> {
    const items = batch.map((w) => w.item);
    let answers: AcceptAnswer[];
    let started = false;
    try {
      opts.onBatch?.({ items: items.length, fallback: false });
      answers = await database.transaction((tx) => {
        started = true;
        return writeBatch(tx, items, dispatch);
      });
    } catch (error) {
      // A transaction that never began (no connection, write lock timeout) says nothing about
      // the items; a failure inside may be one item's fault.
      answers =
        items.length === 1 || !started
          ? items.map(() => ({ ok: false, error }))
          : await oneByOne(items);
    }
    batch.forEach((w, i) => w.resolve(answers[i] as AcceptAnswer));
  }

  // One at a time, in arrival order: a bad item fails alone, and a key's first request is
  // written before its duplicates are read.
  async function oneByOne(items: readonly AcceptItem[]): Promise<AcceptAnswer[]> {
    const answers: AcceptAnswer[] = [];
    for (const item of items) {
      opts.onBatch?.({ items: 1, fallback: true });
      try {
        const [one] = await database.transaction((tx) => writeBatch(tx, [item], dispatch));
        answers.push(one as AcceptAnswer);
      } catch (error) {
        answers.push({ ok: false, error });
      }
    }
    return answers;
  }

  function kick(): void {
    scheduled = false;
    while (inFlight < maxInFlight && pending.length > 0) {
      const batch = pending.slice(0, maxBatch);
      pending = pending.slice(batch.length);
      inFlight++;
      const done: Promise<void> = run(batch).finally(() => {
        inFlight--;
        running.delete(done);
        // What queued up meanwhile has waited long enough: write it now.
        kick();
      });
      running.add(done);
    }
  }

  return {
    accept(item) {
      return new Promise<AcceptAnswer>((resolve) => {
        pending.push({ item, resolve });
        if (inFlight >= maxInFlight || scheduled) return;
        // Everything that arrives in this event-loop turn joins the batch.
        scheduled = true;
        setImmediate(kick);
      });
    },
    async flush() {
      while (pending.length > 0 || running.size > 0) {
        kick();
        await Promise.all([...running]);
      }
    },
  };
}

/**
 * Accepts on a database without interactive transactions (D1): one request at a time, never
 * batched across requests (a Worker must not await I/O another request started). The reads
 * (files, idempotency) come first; the jobs, their events and (for a runtime outside the
 * database) their outbox rows land in ONE atomic `batch()` (`acceptJobs`), whose `on conflict do nothing` turns a key stored meanwhile into a duplicate.
 * A rejected request writes nothing: every check that can reject runs before that batch.
 */
function createStatementAcceptor(database: SluiceDatabase, dispatch: DispatchPath): AcceptBatcher {
  const insert = insertWithOutbox(database, dispatch);
  return {
    async accept(item) {
      try {
        const [answer] = await writeBatch(database.db, [item], dispatch, insert);
        return answer as AcceptAnswer;
      } catch (error) {
        return { ok: false, error };
      }
    },
    flush: async () => {},
  };
}

// Runs tracked bulk operations in the gateway, one at a time per gateway, batch by batch: read a
// page of the operation's jobs after its cursor, apply the action to each in ONE transaction
// with the dispatches it stages and the operation's progress (fenced by the runner's lease),
// then publish and dispatch after commit, and pause before the next batch. The pause and the
// batch size are the rate limit: each transaction is short, so other tenants' reads and writes
// never wait behind a 10,000-job operation. A gateway that stops hands its lease back; one that
// dies leaves it to lapse, and any gateway then resumes from the stored cursor — a batch is
// applied with its progress or not at all, so no job is acted on twice.

import {
  randomToken,
  type BulkAction,
  type JobFilter,
  type MessagePointer,
} from '@sluice/contracts';
import {
  advanceBulkOperation,
  finishBulkOperation,
  leaseBulkOperation,
  releaseBulkOperation,
  searchJobs,
  transitionJobs,
  type JobRow,
  type BulkOperationRow,
  type CancelledDescendants,
  type StoredEvent,
} from '@sluice/storage/portable';
import type { RouterDeps } from '../routers/deps.js';
import { afterCancel, cascadeCancel } from '../waits/cancel-cascade.js';
import { bulkSearch } from './bulk-filter.js';
import { applyJobAction, pointerOf, TRANSITION_ONLY, transitionFor } from './job-actions.js';

export interface BulkRunnerOptions {
  /** Jobs per batch (one transaction each). Default 200. */
  batchSize?: number | undefined;
  /** Pause between batches, in ms: the rate limit. Default 20. */
  pauseMs?: number | undefined;
  /** How long a runner's hold on an operation lasts without progress. Default 30 s. */
  leaseMs?: number | undefined;
  /**
   * How often an idle runner looks for work. Default `leaseMs`: a start on this gateway wakes its
   * runner at once, so the poll only finds operations another gateway let lapse (which cannot
   * happen faster than a lease) or one stored while this gateway's runner was busy.
   */
  pollMs?: number | undefined;
}

export interface BulkRunner {
  /** Looks for work now (a start was just stored). */
  poke(): void;
  start(): void;
  /** Finishes the batch in flight, hands the lease back, stops. */
  close(): Promise<void>;
}

type Deps = Pick<RouterDeps, 'database' | 'hub' | 'dispatch' | 'logger' | 'hooks' | 'stopRun'>;

export function createBulkRunner(deps: Deps, opts: BulkRunnerOptions = {}): BulkRunner {
  const batchSize = opts.batchSize ?? 200;
  const pauseMs = opts.pauseMs ?? 20;
  const leaseMs = opts.leaseMs ?? 30_000;
  const pollMs = opts.pollMs ?? leaseMs;
  const owner = `bulk-${randomToken().slice(0, 12)}`;
  const { database } = deps;
  let stopped = true;
  let wake: (() => void) | undefined;
  let loop: Promise<void> | undefined;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        wake = undefined;
        resolve();
      }
      wake = done;
    });

  /** One batch; true when the operation has no more jobs. */
  async function batch(op: BulkOperationRow): Promise<boolean> {
    const action = op.action as BulkAction;
    const search = bulkSearch(op.tenantId, action, op.filter as JobFilter, op.until);
    const page = await searchJobs(database.db, search, { cursor: op.cursor, limit: batchSize });
    const events: StoredEvent[] = [];
    const pointers: MessagePointer[] = [];
    const cancelled: { id: string; version: string }[] = [];
    let cascaded: CancelledDescendants | undefined;
    const counts = { processed: page.items.length, applied: 0, skipped: 0, failed: 0 };
    await database.transaction(async (tx) => {
      const req = {
        action,
        by: op.createdBy ?? op.tenantId,
        note: op.note ?? undefined,
        fromUnit: (op.params.fromUnit as string | undefined) ?? undefined,
      };
      if (TRANSITION_ONLY.has(action)) {
        // One statement for the batch (grouped by the state each job was read in).
        const moved = await transitionJobs(
          tx,
          page.items.map((job) => transitionFor(job, req)),
        );
        moved.forEach((out, i) => {
          const job = page.items[i] as JobRow;
          if (!out.ok) return void counts.skipped++;
          counts.applied++;
          events.push(out.event);
          if (action === 'requeue') pointers.push(pointerOf(out.job));
          if (action === 'cancel') cancelled.push({ id: job.id, version: job.version });
        });
      } else {
        for (const job of page.items) {
          const out = await applyJobAction(tx, job, req, deps.hooks);
          if (!out.ok) {
            counts[out.error.code === 'CONFLICT' ? 'skipped' : 'failed']++;
            continue;
          }
          counts.applied++;
          events.push(out.event);
          if (out.pointer) pointers.push(out.pointer);
        }
      }
      // With the batch's cancels: their waits close, their attached children go too (one read
      // per tree level for the whole batch).
      if (cancelled.length)
        cascaded = await cascadeCancel(
          database,
          tx,
          op.tenantId,
          cancelled.map((j) => j.id),
        );
      if (pointers.length) await deps.dispatch.stage(tx, pointers);
      // A short page is the last one: its cursor no longer matters.
      const cursor = page.nextCursor ?? op.cursor;
      const advance = (on: typeof tx) =>
        advanceBulkOperation(on, op.id, owner, { cursor, ...counts }, leaseMs);
      const held = deps.hooks
        ? await deps.hooks.storeBulkProgress(tx, database.db, advance)
        : await advance(tx);
      // Lost the lease (paused past it, another runner took over): roll this batch back.
      if (!held) throw new LeaseLost();
      op.cursor = cursor;
    });
    if (cancelled.length) deps.hooks?.at('after-cancel-commit');
    deps.hub.publish(events);
    if (pointers.length) await deps.dispatch.afterCommit(pointers, { markQueued: false });
    // As after one job's cancel: publish the cascade, stop the runs.
    if (cancelled.length) await afterCancel(deps, op.tenantId, cancelled, cascaded);
    return page.nextCursor === null;
  }

  async function run(op: BulkOperationRow): Promise<void> {
    try {
      for (;;) {
        if (stopped) {
          await releaseBulkOperation(database.db, op.id, owner);
          return;
        }
        if (await batch(op)) {
          await finishBulkOperation(database.db, op.id, owner, 'succeeded', null);
          return;
        }
        await sleep(pauseMs);
      }
    } catch (error) {
      if (error instanceof LeaseLost) return;
      deps.logger.error('bulk operation failed', { operationId: op.id, error });
      await finishBulkOperation(database.db, op.id, owner, 'failed', String(error)).catch(() => {});
    }
  }

  async function main(): Promise<void> {
    while (!stopped) {
      const op = await leaseBulkOperation(database.db, owner, leaseMs).catch((error: unknown) => {
        deps.logger.error('bulk runner: lease read failed', { error });
        return undefined;
      });
      if (op) await run(op);
      else await sleep(pollMs);
    }
  }

  return {
    poke: () => wake?.(),
    start() {
      if (!stopped) return;
      stopped = false;
      loop = main();
    },
    async close() {
      stopped = true;
      wake?.();
      await loop;
    },
  };
}

class LeaseLost extends Error {
  constructor() {
    super('bulk operation lease lost');
    this.name = 'LeaseLost';
  }
}

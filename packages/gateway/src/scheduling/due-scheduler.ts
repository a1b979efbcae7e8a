// The due-job scheduler: moves delayed jobs (`scheduled`, due time in `run_after`) to `queued`
// when their time comes and hands them to the runtime, like a fresh accept. One replica does it
// at a time (a lock in the database, renewed each pass); the others only try to take the lock.
//
// No busy poll: a pass ends by reading the earliest due time and sleeps until then, at most
// `maxSleepMs` (how late a job scheduled through another replica can be seen, since only this
// replica's own accepts `poke` it). Per page, in an order that never loses a job:
//   1. outbox rows (runtimes outside the database), so a crash after step 2 leaves the reconciler
//      a row to dispatch from;
//   2. the compare-and-set `due` move (a job cancelled meanwhile stays cancelled);
//   3. the events to the hub, then the pointers to the runtime (post-commit dispatch).

import type { MessagePointer, RuntimeDispatcher } from '@sluice/contracts';
import {
  acquireLock,
  dueScheduledJobs,
  nextScheduledDue,
  releaseLock,
  transitionJobs,
  writeTogether,
  type Db,
  type SluiceDatabase,
  type StoredEvent,
} from '@sluice/storage';
import type { DispatchPath } from '../dispatch/dispatch.js';
import type { ScheduleFirer } from './fire-schedules.js';

export const SCHEDULER_LOCK = 'due-scheduler';

export interface DueSchedulerOptions {
  database: SluiceDatabase;
  runtime: RuntimeDispatcher<Db>;
  dispatch: DispatchPath;
  /** Events of the jobs moved to queued: for the hub (watchers see `scheduled → queued`). */
  onEvents: (events: StoredEvent[]) => void;
  onError?: (error: unknown) => void;
  /** This replica's lock owner name. */
  owner: string;
  /** Longest sleep between passes (default 1000 ms). */
  maxSleepMs?: number;
  /** Lock lifetime (default max(5000, 5 × maxSleepMs)). */
  lockTtlMs?: number;
  /** Jobs per page (default 500); at most 20 pages per pass, so the lock is renewed in time. */
  pageSize?: number;
  /** Recurring schedules, fired by the same replica before the due jobs are moved. */
  schedules?: ScheduleFirer | undefined;
  /**
   * Makes held jobs due whose hold ended (singleton keys in `queue` mode whose current job
   * finished), before the due jobs are moved, so this same pass dispatches them.
   */
  releaseHeld?: ((now: number) => Promise<number>) | undefined;
  /**
   * Durable waits: timeouts, sleeps and children waits settled (and their jobs resumed) by the
   * same replica in the same pass, after the due jobs (a child started due now runs first).
   */
  waits?:
    { sweep(now: number): Promise<number>; nextDue(): Promise<number | undefined> } | undefined;
}

export interface DueSchedulerStats {
  passes: number;
  dispatched: number;
  /** Jobs made by recurring schedules. */
  fired: number;
  /** Waiting jobs queued again by the wait sweep. */
  resumed: number;
  errors: number;
}

export interface DueScheduler {
  readonly stats: DueSchedulerStats;
  start(): void;
  /** A job or schedule tick is due at `dueAt` (written here): wake by then if the sleep ends later. */
  poke(dueAt: number): void;
  /** One pass now; resolves with the jobs dispatched. Never throws (errors go to `onError`). */
  tick(now?: number): Promise<number>;
  close(): Promise<void>;
}

export function createDueScheduler(opts: DueSchedulerOptions): DueScheduler {
  const { database, runtime, dispatch } = opts;
  const db = database.db;
  const maxSleepMs = opts.maxSleepMs ?? 1000;
  const lockTtlMs = opts.lockTtlMs ?? Math.max(5000, 5 * maxSleepMs);
  const pageSize = opts.pageSize ?? 500;
  const stats: DueSchedulerStats = { passes: 0, dispatched: 0, fired: 0, resumed: 0, errors: 0 };
  let timer: ReturnType<typeof setTimeout> | undefined;
  let wakeAt = Infinity;
  let running: Promise<number> | undefined;
  let started = false;
  let closed = false;
  let holding = false;

  const write = <T>(fn: (tx: Db) => Promise<T>): Promise<T> => writeTogether(database, fn);

  async function page(now: number): Promise<number> {
    const jobs = await dueScheduledJobs(db, now, pageSize);
    if (jobs.length === 0) return 0;
    const pointer = (j: (typeof jobs)[number]): MessagePointer => ({
      jobId: j.id,
      kind: j.kind,
      version: j.version,
      tenantId: j.tenantId,
      priority: j.priority,
    });
    if (!dispatch.inTransaction) await dispatch.stage(db, jobs.map(pointer));
    const moved = await write((tx) =>
      transitionJobs(
        tx,
        jobs.map((j) => ({ id: j.id, event: 'due' })),
        now,
      ),
    );
    const events = moved.flatMap((r) => (r.ok ? [r.event] : []));
    const ready = new Set(moved.flatMap((r) => (r.ok ? [r.job.id] : [])));
    const pointers = jobs.filter((j) => ready.has(j.id)).map(pointer);
    opts.onEvents(events);
    if (dispatch.inTransaction) await runtime.dispatch(pointers);
    else await dispatch.afterCommit(pointers, { markQueued: false });
    stats.dispatched += pointers.length;
    return jobs.length;
  }

  async function pass(now: number): Promise<number> {
    stats.passes++;
    holding = await acquireLock(db, SCHEDULER_LOCK, opts.owner, lockTtlMs, now);
    if (!holding) return 0;
    // A tick's job is accepted at once, `queued` (or scheduled further, never).
    if (opts.schedules) stats.fired += await opts.schedules.fire(now);
    if (opts.releaseHeld) await opts.releaseHeld(now);
    let total = 0;
    for (let n = 0; n < 20 && !closed; n++) {
      const count = await page(now);
      total += count;
      if (count < pageSize) break;
    }
    if (opts.waits && !closed) stats.resumed += await opts.waits.sweep(now);
    return total;
  }

  function tick(now = Date.now()): Promise<number> {
    running ??= pass(now)
      .catch((error: unknown) => {
        stats.errors++;
        opts.onError?.(error);
        return 0;
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  }

  function sleepUntil(at: number): void {
    if (closed || at >= wakeAt) return;
    clearTimeout(timer);
    wakeAt = at;
    timer = setTimeout(
      () => {
        wakeAt = Infinity;
        void loop();
      },
      Math.max(0, at - Date.now()),
    );
    timer.unref?.();
  }

  async function loop(): Promise<void> {
    const errors = stats.errors;
    await tick();
    if (closed) return;
    const now = Date.now();
    let next = now + maxSleepMs;
    // After a failed pass, wait the full sleep: what is due would fail again at once.
    if (holding && stats.errors === errors) {
      const [due, tick, wait] = await Promise.all([
        nextScheduledDue(db).catch(() => undefined),
        opts.schedules?.nextTick().catch(() => undefined),
        opts.waits?.nextDue().catch(() => undefined),
      ]);
      for (const at of [due, tick, wait])
        if (at !== undefined) next = Math.min(next, Math.max(at, now));
    }
    sleepUntil(next);
  }

  return {
    stats,
    start() {
      if (started || closed) return;
      started = true;
      void loop();
    },
    poke(dueAt) {
      // A pass in flight or a sleep ending sooner covers it already.
      if (started && holding) sleepUntil(dueAt);
    },
    tick,
    async close() {
      closed = true;
      clearTimeout(timer);
      await running;
      if (holding) await releaseLock(db, SCHEDULER_LOCK, opts.owner).catch(() => {});
      holding = false;
    },
  };
}

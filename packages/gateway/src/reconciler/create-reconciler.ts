// The reconciler: what makes "no accepted job is lost" true when the transport is outside the
// job database. One instance is active across every gateway replica (a lock in the database,
// renewed each tick; another replica takes over once it expires). Each tick:
//   1. data loss (the transport's marker or a known stream is gone): every non-terminal job is
//      dispatched again from the database, in pages;
//   2. due outbox rows (a crash between commit and dispatch; worker retries with a due time):
//      dispatched, then their rows removed;
//   3. now and then, a safety sweep: queued jobs untouched for long and running jobs whose lease
//      passed long ago (their entry was trimmed or lost with a dead holder) are dispatched again;
//   4. now and then, on a runtime whose runs can be asked about (`runtime.runs`), run
//      recovery: quiet jobs whose run died are run again under a new epoch or dead-lettered
//      (recovery/recover-lost-runs.ts).

import { randomToken, type RuntimeDispatcher } from '@sluice/contracts';
import {
  acquireLock,
  getJobsByIds,
  isoNow,
  releaseLock,
  type Db,
  type SluiceDatabase,
  type StoredEvent,
} from '@sluice/storage';
import { dispatchJobs } from './dispatch-jobs.js';
import { recoverLostRuns, type RunRecoveryOptions } from '../recovery/recover-lost-runs.js';
import {
  deleteOutboxRows,
  dueOutboxRows,
  forgottenJobsPage,
  nonTerminalJobsPage,
  type DispatchableJob,
} from '@sluice/storage';

/**
 * How a transport outside the database tells the reconciler it lost its data (a server restarted
 * without persistence): then every non-terminal job is dispatched again from the database.
 */
export interface DataLossDetector {
  /** True when data is gone (also on first contact with a server that never saw the marker). */
  lost(): Promise<boolean>;
  /** Records that the transport's current contents are whole (after the re-dispatch began). */
  mark(): Promise<void>;
}

export const RECONCILER_LOCK = 'reconciler';

export interface ReconcilerOptions {
  database: SluiceDatabase;
  runtime: RuntimeDispatcher<Db>;
  loss?: DataLossDetector | undefined;
  /** This replica's lock owner name (default: random). */
  owner?: string;
  /** Default 1000 ms. */
  tickMs?: number;
  /** Default max(5000, 5 × tickMs). */
  lockTtlMs?: number;
  /** How long a fresh accept's outbox row is left to its own post-commit dispatch (default 5 s). */
  outboxGraceMs?: number;
  /** Default 60 s. */
  sweepEveryMs?: number;
  /** Queued/accepted jobs untouched this long are dispatched again (default 5 min). */
  quietMs?: number;
  /** Running jobs whose lease passed this long ago are dispatched again (default 2 min). */
  leasePassedMs?: number;
  /** Jobs per page and per dispatch (default 500). */
  pageSize?: number;
  /**
   * Run recovery, on a runtime with `runs` (bounds: recover-lost-runs.ts); `everyMs` between
   * passes (default 30 s). `false` turns it off.
   */
  runRecovery?: (RunRecoveryOptions & { everyMs?: number | undefined }) | false | undefined;
  /** Events the reconciler committed (accepted → queued): for the hub and the other replicas. */
  onEvents?: (events: StoredEvent[]) => void;
  onError?: (error: unknown) => void;
}

export interface ReconcilerStats {
  ticks: number;
  /** Ticks run as the active instance. */
  runs: number;
  lossesDetected: number;
  outboxDispatched: number;
  redispatched: number;
  sweeps: number;
  /** Jobs whose lost run the run recovery started again, or dead-lettered. */
  runsRecovered: number;
  runsDeadLettered: number;
  errors: number;
}

export interface Reconciler {
  readonly owner: string;
  readonly stats: ReconcilerStats;
  /** True while this replica holds the lock. */
  isActive(): boolean;
  start(): void;
  /** One pass now (tests; also what the timer runs). Never throws; errors go to `onError`. */
  tick(now?: number): Promise<void>;
  /** Stops the timer, waits for a running pass, releases the lock. */
  close(): Promise<void>;
}

/** What a runtime's gateway wires into its reconciler; the rest is the operator's tuning. */
export type ReconcilerWiring = Pick<
  ReconcilerOptions,
  'database' | 'runtime' | 'loss' | 'onEvents'
> & {
  /** Where errors go unless the tuning names its own `onError`. */
  onError: (error: unknown) => void;
};

/**
 * A runtime gateway's reconciler, created and started; none where the replica's options say
 * `false` (another replica runs it).
 */
export function startReconciler(
  tuning: Omit<ReconcilerOptions, 'database' | 'runtime' | 'loss'> | false | undefined,
  wiring: ReconcilerWiring,
): Reconciler | undefined {
  if (tuning === false) return undefined;
  const reconciler = createReconciler({
    ...tuning,
    ...wiring,
    onError: tuning?.onError ?? wiring.onError,
  });
  reconciler.start();
  return reconciler;
}

export function createReconciler(opts: ReconcilerOptions): Reconciler {
  const { database, runtime } = opts;
  const db = database.db;
  const owner = opts.owner ?? `gw-${randomToken().slice(0, 12)}`;
  const tickMs = opts.tickMs ?? 1000;
  const lockTtlMs = opts.lockTtlMs ?? Math.max(5000, 5 * tickMs);
  const graceMs = opts.outboxGraceMs ?? 5000;
  const sweepEveryMs = opts.sweepEveryMs ?? 60_000;
  const quietMs = opts.quietMs ?? 5 * 60_000;
  const leasePassedMs = opts.leasePassedMs ?? 2 * 60_000;
  const page = opts.pageSize ?? 500;
  const onEvents = opts.onEvents ?? (() => {});
  const stats: ReconcilerStats = {
    ticks: 0,
    runs: 0,
    lossesDetected: 0,
    outboxDispatched: 0,
    redispatched: 0,
    sweeps: 0,
    runsRecovered: 0,
    runsDeadLettered: 0,
    errors: 0,
  };
  const recovery = opts.runRecovery === false ? undefined : (opts.runRecovery ?? {});
  let lastRecovery = 0;
  let active = false;
  let lastSweep = 0;
  // Set when a loss is seen, cleared only after the whole re-dispatch went through.
  let redispatchOwed = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let closed = false;
  let started = false;

  const holdLock = async (now = Date.now()) =>
    (active = await acquireLock(db, RECONCILER_LOCK, owner, lockTtlMs, now));

  async function pages(read: (afterId: string) => Promise<DispatchableJob[]>): Promise<number> {
    let after = '';
    let total = 0;
    for (;;) {
      const jobs = await read(after);
      if (jobs.length > 0) total += await dispatchJobs(database, runtime, jobs, onEvents);
      if (jobs.length < page || closed) return total;
      after = (jobs[jobs.length - 1] as DispatchableJob).id;
      // A long pass keeps the lock, or another replica would start the same work.
      if (!(await holdLock())) return total;
    }
  }

  async function outbox(now: number): Promise<void> {
    // Bounded per tick, so the lock is renewed in time even with a huge backlog.
    for (let n = 0; n < 20; n++) {
      const rows = await dueOutboxRows(db, now, graceMs, page);
      if (rows.length === 0) return;
      const jobs = await getJobsByIds(
        db,
        rows.map((r) => r.jobId),
      );
      stats.outboxDispatched += await dispatchJobs(database, runtime, [...jobs.values()], onEvents);
      // Rows of finished or deleted jobs go too: there is nothing left to dispatch.
      await deleteOutboxRows(db, rows);
      if (rows.length < page || closed) return;
    }
  }

  async function pass(now: number): Promise<void> {
    stats.ticks++;
    if (!(await holdLock(now))) return;
    stats.runs++;
    if (opts.loss && (redispatchOwed || (await opts.loss.lost()))) {
      if (!redispatchOwed) stats.lossesDetected++;
      redispatchOwed = true;
      await opts.loss.mark();
      stats.redispatched += await pages((after) => nonTerminalJobsPage(db, after, page));
      redispatchOwed = false;
    }
    await outbox(now);
    if (now - lastSweep >= sweepEveryMs) {
      const quiet = isoNow(now - quietMs);
      const lease = isoNow(now - leasePassedMs);
      stats.redispatched += await pages((after) =>
        forgottenJobsPage(db, quiet, lease, after, page),
      );
      stats.sweeps++;
      lastSweep = now;
    }
    if (recovery && runtime.runs && now - lastRecovery >= (recovery.everyMs ?? 30_000)) {
      lastRecovery = now;
      const r = await recoverLostRuns({
        database,
        runtime,
        options: recovery,
        now,
        onEvents,
        keepGoing: async () => !closed && (await holdLock()),
      });
      stats.runsRecovered += r.redispatched;
      stats.runsDeadLettered += r.deadLettered;
    }
  }

  function tick(now = Date.now()): Promise<void> {
    running ??= pass(now)
      .catch((error: unknown) => {
        stats.errors++;
        opts.onError?.(error);
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  }

  function schedule(): void {
    if (closed) return;
    timer = setTimeout(() => {
      void tick().finally(schedule);
    }, tickMs);
    timer.unref();
  }

  return {
    owner,
    stats,
    isActive: () => active,
    start() {
      if (started || closed) return;
      started = true;
      void tick().finally(schedule);
    },
    tick,
    async close() {
      closed = true;
      clearTimeout(timer);
      await running;
      if (active) await releaseLock(db, RECONCILER_LOCK, owner).catch(() => {});
      active = false;
    },
  };
}

// Run recovery: finds jobs whose run died on a runtime that runs each job as one run it can be
// asked about (`runtime.runs`: a push platform's instance per job), and runs them again or
// dead-letters them. Other runtimes recover a crashed worker by lease and liveness; such a run
// has no worker to watch, and its id (the job id) cannot be created twice, so a lost run is found
// by asking the runtime (`runs.inspect`) and started again with `runs.restart`.
//
// One pass: pages of queued/running jobs with no write for `quietMs` (bounded: `maxPages` pages
// of `pageSize`), each page's runs asked about in one call, each job decided by
// `decideRunRecovery`. A running job is first moved back to `queued` fenced by the epoch it was
// read at, so the dead attempt can write nothing more and the restarted run's start opens a NEW
// epoch; the provider-call ledger is untouched, so a call the dead attempt got billed for is
// answered from it, never sent again. The caller runs one pass at a time across replicas (the
// reconciler's lock on Node; a lock around the cron pass on Workers).

import type { MessagePointer, RunStatus, RuntimeDispatcher } from '@sluice/contracts';
import {
  isoNow,
  quietRunsPage,
  transitionJob,
  type Db,
  type QuietRun,
  type SluiceDatabase,
  type StoredEvent,
  type TransitionRequest,
} from '@sluice/storage/portable';
import { decideRunRecovery, type RunRecoveryAction } from './decide-run-recovery.js';

export interface RunRecoveryOptions {
  /** Jobs with no write for this long are asked about (default 60 s). */
  quietMs?: number | undefined;
  /**
   * A run reported `running` whose job has had no write for this long is taken for dead (default
   * 30 min: twice the 15 min lease a run renews with every write).
   */
  stuckMs?: number | undefined;
  /** Jobs per page, asked about in one call (default 100). */
  pageSize?: number | undefined;
  /** Pages per pass (default 5): a pass stays short however many jobs are quiet. */
  maxPages?: number | undefined;
}

export interface RunRecoveryStats {
  inspected: number;
  redispatched: number;
  deadLettered: number;
  /** Runs left alone (live, paused, unknown) or jobs another writer moved first. */
  left: number;
}

export interface RecoverLostRunsArgs {
  database: SluiceDatabase;
  runtime: RuntimeDispatcher<Db>;
  options?: RunRecoveryOptions | undefined;
  now?: number | undefined;
  /** Events the pass committed (for the hub and the other replicas). */
  onEvents?: ((events: StoredEvent[]) => void) | undefined;
  /** A job the pass dead-lettered (the Workers gateway has the runtime announce it). */
  onDeadLettered?: ((pointer: MessagePointer, detail: string) => Promise<void>) | undefined;
  /** Asked before each next page: false ends the pass (the lock was lost, or closing). */
  keepGoing?: (() => Promise<boolean>) | undefined;
}

export const RUN_RECOVERY_DEFAULTS = {
  quietMs: 60_000,
  stuckMs: 30 * 60_000,
  pageSize: 100,
  maxPages: 5,
} as const;

/** One pass; a runtime without `runs` has nothing to recover here. */
export async function recoverLostRuns(args: RecoverLostRunsArgs): Promise<RunRecoveryStats> {
  const stats: RunRecoveryStats = { inspected: 0, redispatched: 0, deadLettered: 0, left: 0 };
  const runs = args.runtime.runs;
  if (!runs) return stats;
  const o = { ...RUN_RECOVERY_DEFAULTS, ...definedOnly(args.options ?? {}) };
  const now = args.now ?? Date.now();
  const quietBefore = isoNow(now - o.quietMs);
  let after = '';
  for (let page = 0; page < o.maxPages; page++) {
    if (page > 0 && args.keepGoing && !(await args.keepGoing())) break;
    const jobs = await quietRunsPage(args.database.db, quietBefore, after, o.pageSize);
    if (jobs.length === 0) break;
    const statuses = await runs.inspect(jobs);
    for (const job of jobs) {
      stats.inspected++;
      const status: RunStatus = statuses.get(job.id) ?? 'unknown';
      const action = decideRunRecovery({
        status,
        job: { ...job, state: job.state as 'queued' | 'running' },
        quietForMs: now - Date.parse(job.updatedAt),
        stuckMs: o.stuckMs,
      });
      const done = await act(args, job, action);
      if (done === 'redispatched') stats.redispatched++;
      else if (done === 'dead_lettered') stats.deadLettered++;
      else stats.left++;
    }
    if (jobs.length < o.pageSize) break;
    after = (jobs[jobs.length - 1] as QuietRun).id;
  }
  return stats;
}

async function act(
  args: RecoverLostRunsArgs,
  job: QuietRun,
  action: RunRecoveryAction,
): Promise<'redispatched' | 'dead_lettered' | 'left'> {
  if (action.kind === 'leave') return 'left';
  const pointer: MessagePointer = {
    jobId: job.id,
    kind: job.kind,
    version: job.version,
    tenantId: job.tenantId,
    priority: job.priority,
  };
  if (action.kind === 'dead_letter') {
    const moved = await fencedTransition(args, job, {
      event: 'dead_letter',
      reason: 'MAX_ATTEMPTS',
      detail: action.detail,
    });
    if (!moved) return 'left';
    await args.onDeadLettered?.(pointer, action.detail);
    return 'dead_lettered';
  }
  // The dead attempt is fenced before anything runs again: its epoch no longer matches a
  // `running` row, and the run's start step opens the next epoch from `queued`.
  if (job.state === 'running' && !(await fencedTransition(args, job, { event: 'retry' }))) {
    return 'left';
  }
  const runs = args.runtime.runs as NonNullable<typeof args.runtime.runs>;
  if (action.via === 'create') await args.runtime.dispatch([pointer]);
  else await runs.restart(job);
  return 'redispatched';
}

/** Moves the job only if it is still as it was read (state and epoch). */
async function fencedTransition(
  args: RecoverLostRunsArgs,
  job: QuietRun,
  change: Omit<TransitionRequest, 'id' | 'epoch' | 'from'>,
): Promise<boolean> {
  const req: TransitionRequest = {
    ...change,
    id: job.id,
    epoch: job.epoch,
    from: job.state,
  };
  const { database } = args;
  // D1 has no interactive transaction; its transition is one fenced batch by itself.
  const outcome = database.capabilities.interactiveTransactions
    ? await database.transaction((tx) => transitionJob(tx, req))
    : await transitionJob(database.db, req);
  if (outcome.ok) args.onEvents?.([outcome.event]);
  return outcome.ok;
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

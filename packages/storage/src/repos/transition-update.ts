// A compare-and-set transition as one UPDATE (no RETURNING yet), shared by the transaction form
// (jobs.ts `transitionJob`) and the batch form of a database without interactive transactions
// (jobs-batched.ts), which adds its own fence; and the request and outcome types both use.

import {
  isFinalState,
  randomToken,
  TRANSITIONS,
  type JobError,
  type JobState,
  type JobTransition,
} from '@sluice/contracts';
import type { Updateable } from 'kysely';
import type { Db } from '../database.js';
import { isoIn, isoNow, toJson } from '../json.js';
import type { JobsTable } from '../schema.js';
import type { StoredEvent } from './event-rows.js';
import type { JobRow } from './job-row.js';
import type { TransitionDetails } from './transition-event.js';

export interface TransitionRequest extends TransitionDetails {
  id: string;
  event: JobTransition;
  /** Fencing token: apply only if the job is still at this epoch. */
  epoch?: number | undefined;
  output?: unknown;
  /** Stored on the row (and put on the event); `null` clears it. */
  error?: JobError | null | undefined;
  /** Earliest next dispatch (retry backoff), ISO text. */
  runAfter?: string | null | undefined;
  /** For approve/requeue/rerun: reset the attempt budget. */
  resetAttempts?: boolean | undefined;
  /** For start/reclaim: how long the new attempt holds the job (`lease_until`). */
  leaseMs?: number | undefined;
  /**
   * The state the caller read, for an event with several source states: the compare-and-set is
   * on exactly it, so `transitionJobs` can move a group of such jobs in one statement. Absent:
   * the state is read first.
   */
  from?: JobState | undefined;
}

export type TransitionOutcome =
  { ok: true; job: JobRow; event: StoredEvent } | { ok: false; job: JobRow | undefined };

export type AttemptEvent =
  | { type: 'progress'; data: unknown }
  | { type: 'unit_done'; unitKey: string; reused?: boolean | undefined }
  | { type: 'waiting'; reason: 'rate_limited' | 'concurrency_limited'; by: string };

/**
 * The compare-and-set UPDATE of a transition from `from` (no RETURNING yet): shared by the
 * transaction form above and the batch form (jobs-batched.ts), which adds its own fence.
 */
export function transitionUpdate(db: Db, req: TransitionRequest, from: JobState, now: number) {
  const to = TRANSITIONS[req.event].to as JobState;
  const at = isoNow(now);
  const opensAttempt = req.event === 'start' || req.event === 'reclaim';
  const set: Updateable<JobsTable> = { state: to, updated_at: at };
  if (req.output !== undefined) set.output = toJson(req.output);
  if (req.error !== undefined) set.error = req.error === null ? null : toJson(req.error);
  if (req.reason !== undefined) set.reason = req.reason;
  if (req.runAfter !== undefined) set.run_after = req.runAfter;
  if (isFinalState(to)) set.finished_at = at;
  // An operator's requeue or rerun brings an ended job back: it is not finished any more.
  else if (isFinalState(from)) set.finished_at = null;
  if (opensAttempt) {
    set.attempt_id = randomToken();
    set.lease_until = req.leaseMs === undefined ? null : isoIn(req.leaseMs, now);
  } else if (to !== 'running') {
    set.lease_until = null;
  }
  let q = db
    .updateTable('jobs')
    .set(set)
    .set((eb) => ({
      last_seq: eb('last_seq', '+', 1),
      ...(opensAttempt ? { attempts: eb('attempts', '+', 1), epoch: eb('epoch', '+', 1) } : {}),
      // Opening an attempt always counts it; a reset applies to approve/requeue/rerun.
      ...(req.resetAttempts && !opensAttempt ? { attempts: eb.val(0) } : {}),
      // A rerun is a new run: a new epoch fences anything still holding the old one.
      ...(req.event === 'rerun' ? { epoch: eb('epoch', '+', 1) } : {}),
    }))
    .where('id', '=', req.id)
    .where('state', '=', from);
  if (req.epoch !== undefined) q = q.where('epoch', '=', req.epoch);
  if (req.event === 'reclaim')
    q = q.where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', at)]));
  // A due time moved later since the scheduler read it (a debounce fold) keeps the job waiting.
  if (req.event === 'due') q = q.where('run_after', '<=', at);
  return q;
}

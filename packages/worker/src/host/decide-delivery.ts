// What to do with one delivery, given the job row loaded for its batch. Pure and exhaustive: the
// host turns the answer into one compare-and-set per job (all in the batch's one transaction)
// and one transport call per kind of answer.

import { routeByPrefix, type JobState, type MessagePointer } from '@sluice/contracts';

export interface DeliveryFacts {
  pointer: MessagePointer | null;
  /** The job row, or undefined when it is gone. */
  row:
    | {
        state: JobState;
        epoch: number;
        attempts: number;
        maxAttempts: number;
        runAfter: string | null;
        /** Until when the running attempt holds the job (null: no lease recorded). */
        leaseUntil: string | null;
      }
    | undefined;
  /** Versions of the pointer's kind this worker serves. */
  servedVersions: readonly string[];
  /** The job's files that no longer exist. */
  missingFiles: readonly string[];
  /** Another delivery of the same job came earlier in this batch. */
  duplicate: boolean;
  /**
   * The running job's lease names this worker, but no attempt of this process runs it: work this
   * worker id held before a restart. It is taken back at once (a new epoch fences the dead
   * incarnation) instead of waiting for its own lease to lapse.
   */
  heldByDeadSelf?: boolean | undefined;
  now: number;
}

export type DeliveryDecision =
  | {
      action: 'ack';
      why: 'no_pointer' | 'row_missing' | 'finished' | 'duplicate' | 'scheduled' | 'waiting';
    }
  | { action: 'dead_letter'; reason: 'VERSION_NOT_ROUTABLE' | 'MAX_ATTEMPTS'; detail: string }
  | { action: 'stale'; reason: 'FILE_MISSING'; detail: string }
  | { action: 'start' | 'reclaim'; epoch: number }
  | { action: 'release'; delayMs: number; why: 'not_dispatched' | 'not_due' | 'held' };

/** How long to wait before looking again at a job whose dispatch is not visible yet. */
export const NOT_DISPATCHED_DELAY_MS = 1000;
/** Margin past a live holder's lease before looking again. */
export const HELD_MARGIN_MS = 100;

export function decideDelivery(f: DeliveryFacts): DeliveryDecision {
  // The transport lost the data: nothing to mark; the reconciler re-dispatches from the database.
  if (!f.pointer) return { action: 'ack', why: 'no_pointer' };
  if (!f.row) return { action: 'ack', why: 'row_missing' };
  if (f.duplicate) return { action: 'ack', why: 'duplicate' };
  const row = f.row;
  switch (row.state) {
    case 'succeeded':
    case 'failed':
    case 'cancelled':
    case 'stale':
    case 'needs_review':
    case 'dead_lettered':
      return { action: 'ack', why: 'finished' };
    case 'accepted':
      return { action: 'release', delayMs: NOT_DISPATCHED_DELAY_MS, why: 'not_dispatched' };
    // Not due yet: the gateway's due-job scheduler dispatches it again when it is.
    case 'scheduled':
      return { action: 'ack', why: 'scheduled' };
    // Suspended on a durable wait: its resume dispatches it again (a late or duplicate entry).
    case 'waiting':
      return { action: 'ack', why: 'waiting' };
    case 'queued':
    case 'running':
      return decideRunnable(f, f.pointer, row);
  }
}

/** A queued or running job: held by a live attempt, unroutable, out of budget, stale or due. */
function decideRunnable(
  f: DeliveryFacts,
  pointer: MessagePointer,
  row: NonNullable<DeliveryFacts['row']>,
): DeliveryDecision {
  // A running job whose attempt still holds its lease is someone's live work (this delivery is a
  // duplicate, or the holder's own claim outlived a transport hiccup): touch nothing, look again
  // once the lease would have passed.
  if (row.state === 'running' && row.leaseUntil && !f.heldByDeadSelf) {
    const until = Date.parse(row.leaseUntil);
    if (until > f.now)
      return { action: 'release', delayMs: until - f.now + HELD_MARGIN_MS, why: 'held' };
  }
  const route = routeByPrefix(pointer.jobId, f.servedVersions);
  if (!route.ok) return { action: 'dead_letter', reason: route.reason, detail: route.detail };
  if (row.attempts >= row.maxAttempts) {
    return {
      action: 'dead_letter',
      reason: 'MAX_ATTEMPTS',
      detail: `${row.attempts} of ${row.maxAttempts} attempts used`,
    };
  }
  if (f.missingFiles.length > 0) {
    return {
      action: 'stale',
      reason: 'FILE_MISSING',
      detail: `missing file(s): ${f.missingFiles.join(', ')}`,
    };
  }
  if (row.state === 'queued') {
    const due = row.runAfter ? Date.parse(row.runAfter) : NaN;
    if (Number.isFinite(due) && due > f.now) {
      return { action: 'release', delayMs: due - f.now, why: 'not_due' };
    }
    return { action: 'start', epoch: row.epoch };
  }
  // Running: its previous holder's lease lapsed, or it is this worker's own work from before a restart.
  return { action: 'reclaim', epoch: row.epoch };
}

// One operator action on one job, inside the caller's transaction: cancel, requeue, rerun,
// approve, discard. The single-job procedures and the bulk runner both call this, so a bulk
// requeue respects the ledger exactly as a single one does. Each is a compare-and-set on the
// state read (`transitionJob`): a job that moved meanwhile is left alone and reported, never
// forced. The ledger is never rewritten: requeue and rerun leave it whole (the worker's guard
// answers a billed call from it, resends a retry-safe one with its key, and parks an ambiguous
// one in review), and approve only appends `authorised` rows.

import { SluiceError, type BulkAction, type MessagePointer } from '@sluice/contracts';
import {
  authoriseCall,
  callsForJob,
  checkpointKeys,
  dropCheckpoints,
  transitionJob,
  type Db,
  type JobRow,
  type StoredEvent,
  type TransitionRequest,
} from '@sluice/storage/portable';
import type { GatewayHooks } from '../hooks.js';
import { blockedCalls } from '../routers/review-ledger.js';
import { planRerun, unitKeyOf } from './rerun-plan.js';

export interface ActionRequest {
  action: BulkAction;
  /** Who acts: recorded in the job's event reason and the ledger's `authorised` rows. */
  by: string;
  note?: string | undefined;
  fromUnit?: string | undefined;
}

export type ActionOutcome =
  | {
      ok: true;
      job: JobRow;
      event: StoredEvent;
      /** Dispatch again after commit (requeue, rerun, approve). */
      pointer: MessagePointer | undefined;
      unitsDropped: number;
      authorised: number;
    }
  | { ok: false; error: SluiceError };

export const pointerOf = (job: JobRow): MessagePointer => ({
  jobId: job.id,
  kind: job.kind,
  version: job.version,
  tenantId: job.tenantId,
  priority: job.priority,
});

const conflict = (job: JobRow | undefined, action: string) =>
  new SluiceError('CONFLICT', `cannot ${action} a job that is ${job?.state ?? 'gone'}`, {
    details: { state: job?.state ?? null },
  });

/**
 * What approve can authorise, or the refusal when nothing can help: the review came from a call
 * refused before sending (fail-closed — not declared, or declared inconsistently), which an
 * approval cannot let through; the job would only be refused again.
 */
async function approvable(tx: Db, job: JobRow) {
  const calls = await callsForJob(tx, job.id);
  const blocked = blockedCalls(calls);
  const last = calls.at(-1);
  if (blocked.length === 0 && last?.outcome === 'refused') {
    return new SluiceError(
      'CONFLICT',
      `nothing to authorise: call "${last.callName}" of unit "${last.unitKey}" was refused before sending (fail-closed); an approval cannot let it through — fix its declaration and requeue, or discard`,
      { details: { reason: 'FAIL_CLOSED', unitKey: last.unitKey, callName: last.callName } },
    );
  }
  return blocked;
}

/**
 * The transition of `req` on `job`, compare-and-set on the state read: one definition for the
 * single-job path and the bulk runner's one-statement batches (`transitionJobs`).
 */
export function transitionFor(job: JobRow, req: ActionRequest): TransitionRequest {
  const from = job.state;
  switch (req.action) {
    case 'cancel':
      return { id: job.id, event: 'cancel', from };
    case 'discard':
      return { id: job.id, event: 'discard', reason: req.note ?? `discarded by ${req.by}`, from };
    default:
      return {
        id: job.id,
        event: req.action,
        from,
        resetAttempts: true,
        // Who approved stays on the row (the review's answer); a requeue or rerun clears the
        // parked reason, as a dead-letter requeue always did (the audit log says who).
        reason: req.action === 'approve' ? `approved by ${req.by}: ${req.note ?? ''}` : null,
        error: null,
        ...(req.action === 'rerun' ? { output: null } : {}),
      };
  }
}

/** Actions that are one transition and nothing else: a bulk batch moves them in one statement. */
export const TRANSITION_ONLY: ReadonlySet<string> = new Set(['cancel', 'requeue', 'discard']);

export async function applyJobAction(
  tx: Db,
  job: JobRow,
  req: ActionRequest,
  hooks: Pick<GatewayHooks, 'onRerun'> | undefined,
): Promise<ActionOutcome> {
  let blocked: Awaited<ReturnType<typeof approvable>> = [];
  // What a rerun drops is read before anything is written: a refusal writes nothing.
  let units: string[] | undefined = [];
  if (req.action === 'rerun') {
    units = planRerun(await checkpointKeys(tx, job.id), req.fromUnit);
    if (units === undefined) {
      const error = new SluiceError(
        'BAD_REQUEST',
        `fromUnit: unit "${req.fromUnit}" has no checkpoint (a rerun runs it again anyway)`,
        { details: { field: 'fromUnit' } },
      );
      return { ok: false, error };
    }
  }
  if (req.action === 'approve') {
    if (job.state !== 'needs_review') return { ok: false, error: conflict(job, 'approve') };
    blocked = await approvable(tx, job);
    if (blocked instanceof SluiceError) return { ok: false, error: blocked };
  }
  const transition = transitionFor(job, req);
  // A compare-and-set on the state read: a job that moved meanwhile is not touched.
  const moved = await transitionJob(tx, transition);
  if (!moved.ok) return { ok: false, error: conflict(moved.job ?? job, req.action) };

  let unitsDropped = 0;
  if (req.action === 'rerun' && units) {
    await dropCheckpoints(tx, job.id, units);
    unitsDropped = units.filter((k) => unitKeyOf(k) !== null).length;
    await hooks?.onRerun(tx, { jobId: job.id, units });
  }
  if (req.action === 'approve') {
    for (const call of blocked as Exclude<typeof blocked, SluiceError>) {
      await authoriseCall(tx, {
        jobId: job.id,
        tenantId: job.tenantId,
        unitKey: call.unitKey,
        callName: call.callName,
        by: req.by,
        note: req.note ?? '',
      });
    }
  }
  const dispatches = req.action === 'requeue' || req.action === 'rerun' || req.action === 'approve';
  return {
    ok: true,
    job: moved.job,
    event: moved.event,
    pointer: dispatches ? pointerOf(moved.job) : undefined,
    unitsDropped,
    authorised: req.action === 'approve' ? (blocked as unknown[]).length : 0,
  };
}

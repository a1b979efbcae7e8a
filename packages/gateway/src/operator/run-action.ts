// One operator action on one job as a whole call: read the tenant's job, apply the action and
// record it in the audit log in ONE transaction with the dispatch it stages (a cancel: with its
// cascade, cancel-cascade.ts), then publish the event and dispatch after commit (the same order
// as the accept path). On a database without interactive transactions (D1) only `cancel` gets
// here (the rest are refused by the Workers gateway's feature list): its transition is one fenced
// batch, its audit row follows it, and its cascade follows after the call's own writes.

import { SluiceError, type AuditAction, type BulkAction } from '@sluice/contracts';
import { appendAudit, getJob, writeTogether, type Db } from '@sluice/storage/portable';
import { logJobStates } from '../observability/log-job-states.js';
import type { RouterDeps } from '../routers/deps.js';
import { afterCancel, cascadeCancel } from '../waits/cancel-cascade.js';
import { applyJobAction, type ActionRequest } from './job-actions.js';

export const AUDIT_OF: Record<BulkAction, AuditAction> = {
  cancel: 'job.cancel',
  requeue: 'job.requeue',
  rerun: 'job.rerun',
  approve: 'review.approve',
  discard: 'review.discard',
};

export interface Caller {
  tenantId: string;
  keyId: string | undefined | null;
}

export async function runJobAction(
  deps: RouterDeps,
  caller: Caller,
  id: string,
  req: Omit<ActionRequest, 'by'>,
) {
  const { database, hub, dispatch } = deps;
  const job = await getJob(database.db, caller.tenantId, id);
  if (!job) throw new SluiceError('NOT_FOUND', 'job not found');
  const by = caller.keyId ?? caller.tenantId;
  const work = async (tx: Db) => {
    const out = await applyJobAction(tx, job, { ...req, by }, deps.hooks);
    // Throwing rolls back whatever the action wrote with the failed step.
    if (!out.ok) throw out.error;
    if (out.pointer) await dispatch.stage(tx, [out.pointer]);
    // With the cancel: its waits close, its attached children go too.
    const cascaded =
      req.action === 'cancel'
        ? await cascadeCancel(database, tx, caller.tenantId, [job.id])
        : undefined;
    await appendAudit(tx, [
      {
        tenantId: caller.tenantId,
        keyId: caller.keyId ?? null,
        action: AUDIT_OF[req.action],
        target: job.id,
        note: req.note ?? null,
        details: {
          kind: job.kind,
          from: job.state,
          to: out.job.state,
          ...(req.fromUnit ? { fromUnit: req.fromUnit, unitsDropped: out.unitsDropped } : {}),
          ...(req.action === 'approve' ? { authorised: out.authorised } : {}),
        },
      },
    ]);
    return { ...out, cascaded };
  };
  const { cascaded, ...out } = await writeTogether(database, work);
  if (req.action === 'cancel') deps.hooks?.at('after-cancel-commit');
  hub.publish([out.event]);
  logJobStates(deps.logger, [out.event], out.job);
  if (out.pointer) await dispatch.afterCommit([out.pointer], { markQueued: false });
  if (req.action === 'cancel')
    await afterCancel(deps, caller.tenantId, [{ id: job.id, version: job.version }], cascaded);
  return out;
}

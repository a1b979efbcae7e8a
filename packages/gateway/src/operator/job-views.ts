// What the operator plane shows of a job: the caller's view plus its labels (and its tenant for
// an admin's cross-tenant search), its attempts read back from its events, and its ledger rows
// with whether each may have been billed. Explicit picks, as in job-view.ts: epochs and worker
// ids are shown here on purpose (an operator needs them), attempt ids and blob keys are not.

import {
  UNBILLED_OUTCOMES,
  type AttemptView,
  type JobEvent,
  type LabelledJobView,
  type LedgerCallView,
} from '@sluice/contracts';
import type { JobRow, LedgerRow } from '@sluice/storage/portable';
import { toJobView } from '../job-view.js';

export function toLabelledView(job: JobRow, withTenant: boolean): LabelledJobView {
  return {
    ...toJobView(job),
    tags: job.tags,
    metadata: job.metadata as LabelledJobView['metadata'],
    ...(withTenant ? { tenantId: job.tenantId } : {}),
  };
}

/**
 * Attempts from the event history: each move to `running` opens one (its event carries the
 * worker and epoch where the runtime wrote them), the next state change closes it.
 */
export function attemptsFrom(events: readonly JobEvent[]): AttemptView[] {
  const out: AttemptView[] = [];
  let open: AttemptView | undefined;
  for (const e of events) {
    if (!('to' in e)) continue;
    if (open && e.from === 'running') {
      open.endedAt = e.at;
      open.outcome = e.to;
      open.reason = 'reason' in e && e.reason ? e.reason : null;
      open.error = e.error ?? null;
      open = undefined;
    }
    if (e.to === 'running') {
      open = {
        attempt: e.attempt ?? out.length + 1,
        epoch: e.type === 'state' ? (e.epoch ?? null) : null,
        worker: e.type === 'state' ? (e.worker ?? null) : null,
        startedAt: e.at,
        endedAt: null,
        outcome: null,
        reason: null,
        error: null,
      };
      out.push(open);
    }
  }
  return out;
}

export function isBilled(outcome: string): boolean {
  return !(UNBILLED_OUTCOMES as readonly string[]).includes(outcome);
}

export function toLedgerView(r: LedgerRow): LedgerCallView {
  return {
    id: r.id,
    unitKey: r.unitKey,
    callName: r.callName,
    provider: r.provider,
    modality: r.modality,
    callClass: r.callClass,
    outcome: r.outcome,
    billed: isBilled(r.outcome),
    idempotencyKey: r.requestKey,
    externalId: r.externalId,
    attempt: r.attempt,
    epoch: r.epoch,
    authorisedBy: r.authorisedBy,
    note: r.note,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

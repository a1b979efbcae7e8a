// What admission makes of one delivery (no I/O): the attempt that will run its job — from the row
// it read (lazy start: nothing written yet, or a reclaim to start at once) or from the claim that
// already started it — or the write that ends the job here, fenced by the row as read.

import { routeByPrefix, type Delivery, type JobState } from '@sluice/contracts';
import { transitionEvent, type JobSnapshot } from '@sluice/storage';
import { newAttemptId } from '../attempt/attempt-id.js';
import { createAttempt, type Attempt } from '../attempt/attempt.js';
import type { ResolvedHandlers } from '../attempt/handler-registry.js';
import type { ClaimedDelivery } from '../runtimes/types.js';
import type { StoredOutcome } from '../writers/build-write.js';

/** A job read from its row: nothing written yet (`start`), or a reclaim of a running job. */
export function attemptFor<D extends Delivery>(
  delivery: D,
  row: JobSnapshot,
  reclaim: { own: boolean } | undefined,
): Attempt<D> {
  return createAttempt({
    delivery,
    job: {
      id: row.id,
      tenantId: row.tenantId,
      kind: row.kind,
      version: row.version,
      input: row.input,
      fileIds: row.fileIds,
      maxAttempts: row.maxAttempts,
      epoch: row.epoch + 1,
      attempts: row.attempts + 1,
      attemptId: newAttemptId(),
      dueAt: row.runAfter ?? row.createdAt,
      traceContext: row.traceContext,
      apiKeyId: row.apiKeyId,
      waiting: row.waiting,
    },
    fence: {
      epoch: row.epoch,
      lastSeq: row.lastSeq,
      state: reclaim ? 'running' : 'queued',
      leaseLapsed: reclaim ? !reclaim.own : undefined,
    },
    started: false,
    startFrom: row.state,
  });
}

/** A job whose claim already started it (`startsOnClaim`): `running` at the claim's epoch. */
export function claimedAttempt<D extends Delivery>(delivery: D & ClaimedDelivery): Attempt<D> {
  const { job, from } = delivery.claimed;
  return createAttempt({
    delivery,
    job: {
      ...job,
      attemptId: job.attemptId ?? `epoch-${job.epoch}`,
      dueAt: job.runAfter ?? job.createdAt,
    },
    fence: { epoch: job.epoch, lastSeq: job.lastSeq, state: 'running' },
    started: true,
    startFrom: from,
  });
}

/** A claimed job that must not run: its version has no handler here, or a file is gone. */
export function claimedEnd(
  handlers: ResolvedHandlers,
  attempt: Attempt,
  missing: ReadonlySet<string>,
): StoredOutcome | undefined {
  const { job } = attempt;
  const route = routeByPrefix(job.id, handlers.versionsOf(job.kind));
  if (!route.ok) {
    const error = {
      kind: 'sluice' as const,
      code: 'VERSION_NOT_ROUTABLE' as const,
      message: route.detail,
    };
    return { kind: 'dead_letter', error, reason: route.reason, detail: route.detail };
  }
  const gone = job.fileIds.filter((f) => missing.has(f));
  if (gone.length === 0) return undefined;
  const message = `missing file(s): ${gone.join(', ')}`;
  return {
    kind: 'stale',
    error: { kind: 'sluice', code: 'JOB_STALE', message },
    reason: 'FILE_MISSING',
  };
}

/** The transition that ends a delivery at admission, fenced by the row as read. */
export function endingWrite(
  row: JobSnapshot,
  to: JobState,
  details: {
    reason: string;
    detail?: string;
    error?: { kind: 'sluice'; code: 'JOB_STALE'; message: string };
  },
) {
  const at = new Date().toISOString();
  return {
    id: row.id,
    tenantId: row.tenantId,
    kind: row.kind,
    fence: { epoch: row.epoch, lastSeq: row.lastSeq, state: row.state as 'queued' | 'running' },
    state: to,
    epoch: row.epoch,
    attempts: row.attempts,
    attemptId: row.attemptId,
    leaseUntil: null,
    leaseOwner: null,
    reason: details.reason,
    ...(details.error ? { error: details.error } : {}),
    events: [transitionEvent(row.id, row.lastSeq + 1, at, row.state, to, row.attempts, details)],
  };
}

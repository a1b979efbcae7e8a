// The sender's side of a durable wait: ONE transaction that locks the job row, stores the signal
// (idempotent by its id), and then checks for an open wait on that event. If the job waits on
// it, the signal is consumed, the wait settled with the payload and the job queued again
// (`resume`) — all in the same transaction. If not, the signal is kept for the job's next wait
// of that name (a signal before the wait is never lost). The suspend side
// (register-wait.ts) locks the same row, so one of the two always sees the other.

import { isTerminalState, randomToken, type JobState } from '@sluice/contracts';
import type { Db } from '../database.js';
import { isoNow, toJson } from '../json.js';
import { lockJob, resumeJob, settleWait, type ResumedJob } from './wait-rows.js';

export interface SignalRequest {
  tenantId: string;
  jobId: string;
  name: string;
  payload: unknown;
  /** Idempotency: a second send with the same id stores nothing. Default: a fresh id. */
  signalId?: string | undefined;
}

export type SignalAnswer =
  | { kind: 'not_found' }
  /** The job ended: nothing will ever wait for the signal, so it is refused, not stored. */
  | { kind: 'ended'; state: JobState }
  | {
      kind: 'stored';
      signalId: string;
      isDuplicate: boolean;
      /** The signal settled a wait (now, or when first sent). */
      delivered: boolean;
      /** The job this send queued again, for the caller to dispatch after commit. */
      resumed?: ResumedJob | undefined;
    };

/** Run inside a transaction (the caller's, so the dispatch path can stage in it too). */
export async function sendSignal(
  tx: Db,
  req: SignalRequest,
  now = Date.now(),
): Promise<SignalAnswer> {
  const job = await lockJob(tx, req.jobId, req.tenantId);
  if (!job) return { kind: 'not_found' };
  const signalId = req.signalId ?? `s-${randomToken()}`;
  const prior = await tx
    .selectFrom('job_signals')
    .select(['name', 'consumed_by'])
    .where('job_id', '=', job.id)
    .where('signal_id', '=', signalId)
    .executeTakeFirst();
  if (prior) return { kind: 'stored', signalId, isDuplicate: true, delivered: !!prior.consumed_by };
  if (isTerminalState(job.state)) return { kind: 'ended', state: job.state };
  await tx
    .insertInto('job_signals')
    .values({
      job_id: job.id,
      signal_id: signalId,
      name: req.name,
      payload: toJson(req.payload ?? null),
      consumed_by: null,
      created_at: isoNow(now),
    })
    .execute();
  // Check after the write. Only a waiting job has an open wait that can take it now; a running
  // job's next wait finds the stored signal in its own transaction.
  if (job.state !== 'waiting')
    return { kind: 'stored', signalId, isDuplicate: false, delivered: false };
  const wait = await tx
    .selectFrom('job_waits')
    .select('wait_key')
    .where('job_id', '=', job.id)
    .where('kind', '=', 'event')
    .where('event', '=', req.name)
    .where('status', '=', 'open')
    .orderBy('created_at')
    .executeTakeFirst();
  if (!wait) return { kind: 'stored', signalId, isDuplicate: false, delivered: false };
  await tx
    .updateTable('job_signals')
    .set({ consumed_by: wait.wait_key })
    .where('job_id', '=', job.id)
    .where('signal_id', '=', signalId)
    .execute();
  await settleWait(tx, job.id, wait.wait_key, 'resolved', req.payload ?? null, now);
  const resumed = await resumeJob(tx, job, now);
  return { kind: 'stored', signalId, isDuplicate: false, delivered: true, resumed };
}

// The worker's side of a durable wait: ONE transaction, fenced by the attempt's epoch and last
// sequence number, that writes the wait and then checks whether it is satisfied already — a
// signal stored before the wait, a due time already passed, children already ended. If so the
// wait is settled in the same transaction (the signal consumed) and its value returned: the
// handler goes on without suspending. If not, the same transaction suspends the job: running →
// waiting, the attempt refunded (a wait is not a failure), the lease released, the event
// written. A signal's transaction locks the same row, so it either ran before this one (and is
// found here) or runs after it (and finds the job waiting): no wakeup is lost in between.
//
// The wait row is also the wait's checkpoint: a later attempt (a replay after the resume, or
// after a crash) finds it settled and returns its stored value without a transaction.

import { waitReason, type WaitKind } from '@sluice/contracts';
import type { SluiceDatabase } from '../database.js';
import { fromJson, isoNow, toJson } from '../json.js';
import { insertEvents } from '../repos/events.js';
import type { StoredEvent } from '../repos/event-rows.js';
import { transitionEvent } from '../repos/transition-event.js';
import { readyValue } from './ready-value.js';
import { inTransaction, lockJob, settleWait } from './wait-rows.js';

export interface WaitRequest {
  jobId: string;
  /** Where the attempt last left the row: it must still be `running` exactly there. */
  fence: { epoch: number; lastSeq: number };
  waitKey: string;
  kind: WaitKind;
  /** For an event wait: the event's name. */
  event?: string | undefined;
  /** The timeout (event, children) or the wake time (sleep), ISO; fixed by the first attempt. */
  dueAt?: string | null | undefined;
  /** For a children wait: the child ids and whether all or any must end. */
  children?: readonly string[] | undefined;
  mode?: 'all' | 'any' | undefined;
}

export type WaitAnswer =
  /** Satisfied without suspending (or settled by an earlier attempt): the wait's value. */
  | { kind: 'settled'; status: 'resolved' | 'timed_out'; value: unknown }
  /** The job is `waiting` now; the attempt ends. `lastSeq` is where the row stands. */
  | { kind: 'suspended'; event: StoredEvent; lastSeq: number }
  /** The attempt no longer holds the job: nothing was written. */
  | { kind: 'fenced' };

export async function registerWait(
  database: SluiceDatabase,
  req: WaitRequest,
  now = Date.now(),
): Promise<WaitAnswer> {
  return inTransaction(database, async (tx) => {
    const job = await lockJob(tx, req.jobId);
    if (
      !job ||
      job.state !== 'running' ||
      job.epoch !== req.fence.epoch ||
      job.lastSeq !== req.fence.lastSeq
    )
      return { kind: 'fenced' };
    const at = isoNow(now);
    const existing = await tx
      .selectFrom('job_waits')
      .select(['status', 'result', 'due_at'])
      .where('job_id', '=', req.jobId)
      .where('wait_key', '=', req.waitKey)
      .executeTakeFirst();
    if (existing && (existing.status === 'resolved' || existing.status === 'timed_out')) {
      return {
        kind: 'settled',
        status: existing.status as 'resolved' | 'timed_out',
        value: existing.result === null ? null : fromJson(existing.result),
      };
    }
    // The first attempt fixes the due time: a replay waits for the same instant, not a new one.
    const dueAt = existing ? existing.due_at : (req.dueAt ?? null);
    if (!existing) {
      await tx
        .insertInto('job_waits')
        .values({
          job_id: req.jobId,
          wait_key: req.waitKey,
          kind: req.kind,
          event: req.event ?? null,
          due_at: dueAt,
          status: 'open',
          result: null,
          children: req.children ? toJson(req.children) : null,
          mode: req.mode ?? null,
          created_at: at,
          resolved_at: null,
        })
        .execute();
    }
    // Check after the write: whatever is here now was stored before this transaction.
    const ready = await readyValue(
      tx,
      {
        jobId: req.jobId,
        waitKey: req.waitKey,
        kind: req.kind,
        event: req.event ?? null,
        dueAt,
        children: req.children ?? null,
        mode: req.mode ?? null,
      },
      now,
    );
    if (ready) {
      await settleWait(tx, req.jobId, req.waitKey, ready.status, ready.value, now);
      return { kind: 'settled', ...ready };
    }
    const reason = waitReason(req.kind, req.event);
    const moved = await tx
      .updateTable('jobs')
      .set((eb) => ({
        state: 'waiting',
        last_seq: eb('last_seq', '+', 1),
        // Refunded: the attempt that suspends is not spent; the resumed run counts as the next.
        attempts: eb('attempts', '-', 1),
        lease_until: null,
        lease_owner: null,
        reason,
        waiting: null,
        updated_at: at,
      }))
      .where('id', '=', req.jobId)
      .where('epoch', '=', req.fence.epoch)
      .where('last_seq', '=', req.fence.lastSeq)
      .where('state', '=', 'running')
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) === 0) return { kind: 'fenced' };
    const seq = req.fence.lastSeq + 1;
    const event = transitionEvent(req.jobId, seq, at, 'running', 'waiting', job.attempts, {
      reason,
    });
    const [stored] = await insertEvents(tx, [{ tenantId: job.tenantId, kind: job.kind, event }]);
    return { kind: 'suspended', event: stored as StoredEvent, lastSeq: seq };
  });
}

// The dangerous variant of a durable wait's transaction, for `npm run seeded-bugs`: the check
// for a stored signal and the suspend in TWO transactions, with the gap between them widened a
// little. A signal committed in that gap finds the job still running (nothing to resume) and
// the suspend finds no signal: the job waits forever — the lost wakeup the one-transaction
// write-then-check under the row lock rules out.

import {
  isoNow,
  readyValue,
  settleWait,
  transitionEvent,
  type registerWait,
} from '@sluice/storage';

export const checkThenSuspend: typeof registerWait = async (database, req, now = Date.now()) => {
  const ready = await database.transaction(async (tx) => {
    const existing = await tx
      .selectFrom('job_waits')
      .select('status')
      .where('job_id', '=', req.jobId)
      .where('wait_key', '=', req.waitKey)
      .executeTakeFirst();
    if (!existing)
      await tx
        .insertInto('job_waits')
        .values({
          job_id: req.jobId,
          wait_key: req.waitKey,
          kind: req.kind,
          event: req.event ?? null,
          due_at: req.dueAt ?? null,
          status: 'open',
          result: null,
          children: null,
          mode: null,
          created_at: isoNow(now),
          resolved_at: null,
        })
        .execute();
    const spec = {
      jobId: req.jobId,
      waitKey: req.waitKey,
      kind: req.kind,
      event: req.event ?? null,
      dueAt: req.dueAt ?? null,
      children: req.children ?? null,
      mode: req.mode ?? null,
    };
    const r = await readyValue(tx, spec, now);
    if (r) await settleWait(tx, req.jobId, req.waitKey, r.status, r.value, now);
    return r;
  });
  if (ready) return { kind: 'settled', ...ready };
  await new Promise((r) => setTimeout(r, 15));
  return database.transaction(async (tx) => {
    const at = isoNow();
    const moved = await tx
      .updateTable('jobs')
      .set((eb) => ({
        state: 'waiting',
        last_seq: eb('last_seq', '+', 1),
        attempts: eb('attempts', '-', 1),
        lease_until: null,
        lease_owner: null,
        reason: `event:${req.event ?? ''}`,
        updated_at: at,
      }))
      .where('id', '=', req.jobId)
      .where('epoch', '=', req.fence.epoch)
      .where('last_seq', '=', req.fence.lastSeq)
      .where('state', '=', 'running')
      .returning(['tenant_id', 'kind', 'attempts'])
      .executeTakeFirst();
    if (!moved) return { kind: 'fenced' } as const;
    const seq = req.fence.lastSeq + 1;
    const event = transitionEvent(
      req.jobId,
      seq,
      at,
      'running',
      'waiting',
      Number(moved.attempts),
      {},
    );
    const row = await tx
      .insertInto('job_events')
      .values({
        job_id: req.jobId,
        tenant_id: moved.tenant_id,
        kind: moved.kind,
        seq,
        seq_end: null,
        type: 'state',
        payload: JSON.stringify(event),
        created_at: at,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return {
      kind: 'suspended',
      event: { id: Number(row.id), tenantId: moved.tenant_id, kind: moved.kind, event },
      lastSeq: seq,
    } as const;
  });
};

// Jobs: inserts, tenant-scoped reads, and compare-and-set transitions through the contracts
// state machine. A transition and its event (with the next per-job sequence number) are written
// in one transaction, so a watcher never sees a state without its event or the other way round.
// On a database without interactive transactions (D1) the writes here are a read and one
// fenced atomic batch each (jobs-batched.ts). Reads: job-reads.ts; leases: job-leases.ts.

import { sourceStates, TRANSITIONS, type JobEvent, type JobState } from '@sluice/contracts';
import type { Db } from '../database.js';
import { dialectOf } from '../dialect/storage-dialect.js';
import { isoNow } from '../json.js';
import type { StoredEvent } from './event-rows.js';
import { insertEvents } from './events.js';
import {
  appendAttemptEventsBatched,
  insertJobBatched,
  transitionJobBatched,
} from './jobs-batched.js';
import { getJobById } from './job-reads.js';
import { newJobRow, toJobRow, type JobRow, type NewJob } from './job-row.js';
import { transitionEvent } from './transition-event.js';
import {
  transitionUpdate,
  type AttemptEvent,
  type TransitionOutcome,
  type TransitionRequest,
} from './transition-update.js';

export * from './job-reads.js';
export * from './job-leases.js';
export * from './transition-update.js';
export { newJobRow, type NewJob } from './job-row.js';

/** Inserts a job in `accepted` with its first event (seq 1). */
export async function insertJob(
  tx: Db,
  job: NewJob,
  now = Date.now(),
): Promise<{ job: JobRow; event: StoredEvent }> {
  const batch = dialectOf(tx).atomicBatch;
  if (batch) return insertJobBatched(tx, batch, job, now);
  const at = isoNow(now);
  const row = await tx
    .insertInto('jobs')
    .values(newJobRow(job, at))
    .returningAll()
    .executeTakeFirstOrThrow();
  const event = transitionEvent(job.id, 1, at, null, 'accepted', 0, {});
  const [stored] = await insertEvents(tx, [{ tenantId: job.tenantId, kind: job.kind, event }]);
  return { job: toJobRow(row), event: stored as StoredEvent };
}

/**
 * Compare-and-set: moves the job only if it is in a state the event may leave from (and, when
 * given, still at `epoch`). `start` and `reclaim` open a new attempt: attempts + 1, epoch + 1,
 * a fresh attempt id, a lease of `leaseMs`; `reclaim` only once the previous attempt's lease has
 * passed. Leaving `running` clears the lease. Run it inside a transaction; on a database without
 * interactive transactions (D1) it is a read and one fenced batch (jobs-batched.ts).
 */
export async function transitionJob(
  tx: Db,
  req: TransitionRequest,
  now = Date.now(),
): Promise<TransitionOutcome> {
  const batch = dialectOf(tx).atomicBatch;
  if (batch) return transitionJobBatched(tx, batch, req, now);
  const sources = sourceStates(req.event);
  // With one possible source state the update itself is the whole check; with several, the
  // observed state is read first and the update is conditional on exactly it.
  let from: JobState = sources[0] as JobState;
  if (req.from !== undefined && sources.includes(req.from)) from = req.from;
  else if (sources.length > 1) {
    const cur = await tx
      .selectFrom('jobs')
      .select('state')
      .where('id', '=', req.id)
      .executeTakeFirst();
    if (!cur || !(sources as readonly string[]).includes(cur.state))
      return { ok: false, job: await getJobById(tx, req.id) };
    from = cur.state as JobState;
  }
  const at = isoNow(now);
  const to = TRANSITIONS[req.event].to as JobState;
  const q = transitionUpdate(tx, req, from, now);
  const row = await q.returningAll().executeTakeFirst();
  if (!row) return { ok: false, job: await getJobById(tx, req.id) };
  const job = toJobRow(row);
  const event = transitionEvent(job.id, job.lastSeq, at, from, to, job.attempts, {
    ...req,
    error: req.error ?? undefined,
  });
  const [stored] = await insertEvents(tx, [{ tenantId: job.tenantId, kind: job.kind, event }]);
  return { ok: true, job, event: stored as StoredEvent };
}

/**
 * Appends progress or unit events of a running attempt, fenced by its epoch. Returns the stored
 * events, or `undefined` when the attempt no longer owns the job (cancelled, reclaimed).
 */
export async function appendAttemptEvents(
  tx: Db,
  id: string,
  epoch: number,
  events: readonly AttemptEvent[],
  now = Date.now(),
): Promise<StoredEvent[] | undefined> {
  if (events.length === 0) return [];
  const batch = dialectOf(tx).atomicBatch;
  if (batch) return appendAttemptEventsBatched(tx, batch, id, epoch, events, now);
  const at = isoNow(now);
  const row = await tx
    .updateTable('jobs')
    .set((eb) => ({ last_seq: eb('last_seq', '+', events.length), updated_at: at }))
    .where('id', '=', id)
    .where('state', '=', 'running')
    .where('epoch', '=', epoch)
    .returning(['last_seq', 'tenant_id', 'kind'])
    .executeTakeFirst();
  if (!row) return undefined;
  const first = Number(row.last_seq) - events.length + 1;
  const built: JobEvent[] = events.map(
    (e, i) => ({ ...e, jobId: id, seq: first + i, at }) as JobEvent,
  );
  return insertEvents(
    tx,
    built.map((event) => ({ tenantId: row.tenant_id, kind: row.kind, event })),
  );
}

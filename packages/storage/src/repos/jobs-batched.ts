// The jobs repository's multi-statement writes on a database without interactive transactions
// (D1): one atomic batch each, in which every statement carries the fence of the row as it was
// read. A transition reads the row, decides exactly as the transaction form would (source
// state, epoch, lapsed lease), then sends the event insert and the UPDATE together, both fenced
// by (state, last_seq, epoch): the UPDATE's RETURNING says whether it applied, and the insert
// before it saw the same row, so it landed exactly when the UPDATE did. A row that moved between
// the read and the batch fails the fence, writes nothing, and is read again: the outcome is the
// one a serialised transaction would have had.
import { sourceStates, TRANSITIONS, type JobEvent, type JobState } from '@sluice/contracts';
import { sql, type CompiledQuery } from 'kysely';
import type { Db } from '../database.js';
import type { AtomicBatch } from '../dialect/storage-dialect.js';
import { isoNow, toJson } from '../json.js';
import type { StoredEvent } from './event-rows.js';
import { getJobById } from './job-reads.js';
import { newJobRow, toJobRow, type JobRow, type NewJob } from './job-row.js';
import {
  transitionUpdate,
  type AttemptEvent,
  type TransitionOutcome,
  type TransitionRequest,
} from './transition-update.js';
import { transitionEvent } from './transition-event.js';

/** Reads again after this many lost races (each one means another writer moved the row). */
const MAX_TRIES = 8;

/** The fence of a row as read: nothing may have moved it since. */
type Fence = {
  id: string;
  state: string;
  lastSeq: number;
  epoch: number;
  leaseBefore?: string;
  /** `due`: the job's due time has come (the update checks it too; a fold may move it later). */
  dueBy?: string;
};

const fenceSql = (f: Fence) =>
  sql`exists (select 1 from jobs where id = ${f.id} and state = ${f.state}
    and last_seq = ${f.lastSeq} and epoch = ${f.epoch}
    ${f.leaseBefore === undefined ? sql`` : sql`and (lease_until is null or lease_until <= ${f.leaseBefore})`}
    ${f.dueBy === undefined ? sql`` : sql`and run_after <= ${f.dueBy}`})`;

/** Inserts one event row per event, only while the fence holds; RETURNING their ids in order. */
function fencedEvents(
  db: Db,
  f: Fence,
  row: { tenantId: string; kind: string },
  events: readonly JobEvent[],
): CompiledQuery {
  const values = sql.join(
    events.map(
      (e) =>
        sql`(${e.jobId}, ${row.tenantId}, ${row.kind}, ${e.seq}, ${e.type}, ${toJson(e)}, ${e.at})`,
    ),
  );
  return sql`insert into job_events (job_id, tenant_id, kind, seq, type, payload, created_at)
    select * from (values ${values}) where ${fenceSql(f)} returning id, seq`.compile(db);
}

export async function transitionJobBatched(
  db: Db,
  batch: AtomicBatch,
  req: TransitionRequest,
  now: number,
): Promise<TransitionOutcome> {
  const sources = sourceStates(req.event) as readonly string[];
  const at = isoNow(now);
  const to = TRANSITIONS[req.event].to as JobState;
  const opensAttempt = req.event === 'start' || req.event === 'reclaim';
  for (let tries = 0; tries < MAX_TRIES; tries++) {
    const cur = await getJobById(db, req.id);
    if (!cur || !sources.includes(cur.state)) return { ok: false, job: cur };
    if (req.epoch !== undefined && cur.epoch !== req.epoch) return { ok: false, job: cur };
    const reclaim = req.event === 'reclaim';
    if (reclaim && cur.leaseUntil !== null && cur.leaseUntil > at) return { ok: false, job: cur };
    // A due time moved later since the scheduler read it (a debounce fold) keeps the job waiting:
    // refused here, and fenced in the batch so the event row never lands without the update.
    const due = req.event === 'due';
    if (due && cur.runAfter !== null && cur.runAfter > at) return { ok: false, job: cur };
    const from = cur.state;
    const attempts = opensAttempt ? cur.attempts + 1 : req.resetAttempts ? 0 : cur.attempts;
    const event = transitionEvent(cur.id, cur.lastSeq + 1, at, from, to, attempts, {
      ...req,
      error: req.error ?? undefined,
    });
    const fence: Fence = {
      id: cur.id,
      state: from,
      lastSeq: cur.lastSeq,
      epoch: cur.epoch,
      ...(reclaim ? { leaseBefore: at } : {}),
      ...(due ? { dueBy: at } : {}),
    };
    const update = transitionUpdate(db, req, from, now)
      .where('last_seq', '=', cur.lastSeq)
      .where('epoch', '=', cur.epoch)
      .returningAll()
      .compile();
    const [inserted, updated] = await batch.run<Record<string, unknown>>([
      fencedEvents(db, fence, cur, [event]),
      update,
    ]);
    const row = updated?.rows[0];
    if (!row) continue;
    const job = toJobRow(row as never);
    const id = Number(inserted?.rows[0]?.id);
    return { ok: true, job, event: { id, tenantId: job.tenantId, kind: job.kind, event } };
  }
  return { ok: false, job: await getJobById(db, req.id) };
}

/** `insertJob` as one batch: the job row and its first event land together or not at all. */
export async function insertJobBatched(
  db: Db,
  batch: AtomicBatch,
  job: NewJob,
  now: number,
): Promise<{ job: JobRow; event: StoredEvent }> {
  const at = isoNow(now);
  const event = transitionEvent(job.id, 1, at, null, 'accepted', 0, {});
  const insertJob = db.insertInto('jobs').values(newJobRow(job, at)).returningAll().compile();
  const insertEvent = db
    .insertInto('job_events')
    .values({
      job_id: job.id,
      tenant_id: job.tenantId,
      kind: job.kind,
      seq: 1,
      type: event.type,
      payload: toJson(event),
      created_at: at,
    })
    .returning('id')
    .compile();
  const [jobRow, eventRow] = await batch.run<Record<string, unknown>>([insertJob, insertEvent]);
  const row = toJobRow(jobRow?.rows[0] as never);
  const id = Number(eventRow?.rows[0]?.id);
  return { job: row, event: { id, tenantId: job.tenantId, kind: job.kind, event } };
}

/** `appendAttemptEvents` as a read and one fenced batch (retried when another append raced). */
export async function appendAttemptEventsBatched(
  db: Db,
  batch: AtomicBatch,
  id: string,
  epoch: number,
  events: readonly AttemptEvent[],
  now: number,
): Promise<StoredEvent[] | undefined> {
  const at = isoNow(now);
  for (let tries = 0; tries < MAX_TRIES; tries++) {
    const cur = await getJobById(db, id);
    if (!cur || cur.state !== 'running' || cur.epoch !== epoch) return undefined;
    const built: JobEvent[] = events.map(
      (e, i) => ({ ...e, jobId: id, seq: cur.lastSeq + 1 + i, at }) as JobEvent,
    );
    const fence: Fence = { id, state: 'running', lastSeq: cur.lastSeq, epoch };
    const update = db
      .updateTable('jobs')
      .set({ last_seq: cur.lastSeq + events.length, updated_at: at })
      .where('id', '=', id)
      .where('state', '=', 'running')
      .where('epoch', '=', epoch)
      .where('last_seq', '=', cur.lastSeq)
      .returning('id')
      .compile();
    const [inserted, updated] = await batch.run<{ id: number | string; seq: number | string }>([
      fencedEvents(db, fence, cur, built),
      update,
    ]);
    if (!updated?.rows[0]) continue;
    // RETURNING order is unspecified: match the row ids by sequence number.
    const ids = new Map((inserted?.rows ?? []).map((r) => [Number(r.seq), Number(r.id)]));
    return built.map((event) => ({
      id: ids.get(event.seq) as number,
      tenantId: cur.tenantId,
      kind: cur.kind,
      event,
    }));
  }
  return undefined;
}

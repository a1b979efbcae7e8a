// Many compare-and-set transitions in one statement per event type, plus one multi-row event
// insert (one NOTIFY): the hot path of a worker finishing a burst of jobs or starting a read batch,
// and of a gateway committing a burst of submits. Same semantics as `transitionJob`, row by row.

import {
  isFinalState,
  randomToken,
  sourceStates,
  TRANSITIONS,
  type JobState,
} from '@sluice/contracts';
import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../database.js';
import { dialectOf } from '../dialect/storage-dialect.js';
import { isoIn, isoNow, toJson } from '../json.js';
import type { JobsTable } from '../schema.js';
import type { EventToInsert } from './event-rows.js';
import { insertEvents } from './events.js';
import { lockJobs, transitionJob, type TransitionOutcome, type TransitionRequest } from './jobs.js';
import { toJobRow } from './job-row.js';
import { lockedInStatement } from './lock-in-statement.js';
import { transitionEvent } from './transition-event.js';

const CHUNK = 400;

export async function transitionJobs(
  tx: Db,
  requests: readonly TransitionRequest[],
  now = Date.now(),
): Promise<TransitionOutcome[]> {
  // Without interactive transactions (D1) each transition is its own fenced batch: every
  // outcome is per request anyway, so the group needs no atomicity, only each row's.
  if (dialectOf(tx).atomicBatch) {
    const out: TransitionOutcome[] = [];
    for (const r of requests) out.push(await transitionJob(tx, r, now));
    return out;
  }
  const results = new Array<TransitionOutcome>(requests.length);
  const groups = new Map<string, number[]>();
  const single: number[] = [];
  const seen = new Set<string>();
  requests.forEach((r, i) => {
    // One row may appear once per statement; repeats go one by one, and so do multi-source
    // events unless the caller names the state it read (`from`), which the group CASes on.
    const sources = sourceStates(r.event);
    const from = r.from !== undefined && sources.includes(r.from) ? r.from : undefined;
    if ((sources.length !== 1 && from === undefined) || seen.has(r.id)) return single.push(i);
    seen.add(r.id);
    const group = `${r.event}\u0000${from ?? sources[0]}`;
    groups.set(group, [...(groups.get(group) ?? []), i]);
  });
  // Row locks in id order (where the database has them), so concurrent batches never deadlock: inside the UPDATE
  // when it is the only one (a read batch of starts), else all of them first.
  const alone = single.length === 0 && groups.size === 1 && requests.length <= CHUNK;
  if (!alone)
    await lockJobs(
      tx,
      requests.map((r) => r.id),
    );
  const events: EventToInsert[] = [];
  const pendingEvents: { index: number; event: EventToInsert }[] = [];
  for (const [, indexes] of groups) {
    for (let c = 0; c < indexes.length; c += CHUNK) {
      const chunk = indexes.slice(c, c + CHUNK);
      const done = await updateGroup(
        tx,
        chunk.map((i) => requests[i] as TransitionRequest),
        now,
        alone,
      );
      chunk.forEach((index, k) => {
        const d = done[k];
        if (d) {
          pendingEvents.push({ index, event: d.event });
          events.push(d.event);
          results[index] = { ok: true, job: d.job, event: undefined as never };
        } else {
          results[index] = { ok: false, job: undefined };
        }
      });
    }
  }
  const stored = await insertEvents(tx, events);
  pendingEvents.forEach((p, k) => {
    const r = results[p.index];
    if (r?.ok)
      results[p.index] = {
        ok: true,
        job: r.job,
        event: stored[k] as NonNullable<(typeof stored)[number]>,
      };
  });
  for (const i of single)
    results[i] = await transitionJob(tx, requests[i] as TransitionRequest, now);
  return results;
}

async function updateGroup(
  tx: Db,
  reqs: readonly TransitionRequest[],
  now: number,
  lockHere: boolean,
) {
  const first = reqs[0] as TransitionRequest;
  const event = first.event;
  const from = first.from ?? (sourceStates(event)[0] as JobState);
  const to = TRANSITIONS[event].to as JobState;
  const at = isoNow(now);
  const dialect = dialectOf(tx);
  const json = (col: RawBuilder<unknown>) => dialect.asJson(col);
  const int = (v: number | null) => sql`cast(${v} as integer)`;
  const flag = (b: boolean) => int(b ? 1 : 0);
  const opens = event === 'start' || event === 'reclaim';
  const rows = reqs.map((r) => {
    const lease = opens && r.leaseMs !== undefined ? isoIn(r.leaseMs, now) : null;
    return sql`(${r.id}, ${int(r.epoch ?? null)}, ${flag(r.epoch !== undefined)},
      ${r.output === undefined ? null : toJson(r.output)}, ${flag(r.output !== undefined)},
      ${r.error == null ? null : toJson(r.error)}, ${flag(r.error !== undefined)},
      ${r.reason ?? null}, ${flag(r.reason !== undefined)},
      ${r.runAfter ?? null}, ${flag(r.runAfter !== undefined)},
      ${opens ? randomToken() : null}, ${flag(Boolean(r.resetAttempts))}, ${lease})`;
  });
  const attempts = opens
    ? sql`jobs.attempts + 1`
    : sql`case when v.reset = 1 then 0 else jobs.attempts end`;
  // A rerun is a new run: a new epoch fences anything still holding the old one.
  const epoch = opens || event === 'rerun' ? sql`jobs.epoch + 1` : sql`jobs.epoch`;
  const attemptId = opens ? sql`v.aid` : sql`jobs.attempt_id`;
  const leaseUntil = opens ? sql`v.lease` : to === 'running' ? sql`jobs.lease_until` : sql`null`;
  // Leaving a final state (an operator's requeue or rerun): the job is not finished any more.
  const finished = isFinalState(to)
    ? sql`${at}`
    : isFinalState(from)
      ? sql`null`
      : sql`jobs.finished_at`;
  const leaseCheck =
    event === 'reclaim'
      ? sql`and (jobs.lease_until is null or jobs.lease_until <= ${at})`
      : // A due time moved later since the scheduler read it (a debounce fold) keeps it waiting.
        event === 'due'
        ? sql`and jobs.run_after <= ${at}`
        : sql``;
  const result = await sql<JobsTable>`
    with v(id, ep, has_ep, out, has_out, err, has_err, rsn, has_rsn, ra, has_ra, aid, reset, lease) as (values ${sql.join(rows)})
    update jobs set
      state = ${to}, updated_at = ${at}, last_seq = jobs.last_seq + 1,
      output = case when v.has_out = 1 then ${json(sql`v.out`)} else jobs.output end,
      error = case when v.has_err = 1 then ${json(sql`v.err`)} else jobs.error end,
      reason = case when v.has_rsn = 1 then v.rsn else jobs.reason end,
      run_after = case when v.has_ra = 1 then v.ra else jobs.run_after end,
      attempts = ${attempts}, epoch = ${epoch}, attempt_id = ${attemptId},
      lease_until = ${leaseUntil}, finished_at = ${finished}
    from v
    where jobs.id = v.id and jobs.state = ${from} and (v.has_ep = 0 or jobs.epoch = v.ep) ${leaseCheck}
      ${
        lockHere
          ? lockedInStatement(
              tx,
              reqs.map((r) => r.id),
            )
          : sql``
      }
    returning ${dialect.returningAll('jobs')}`.execute(tx);
  const byId = new Map(result.rows.map((row) => [row.id, toJobRow(row)]));
  return reqs.map((r) => {
    const job = byId.get(r.id);
    if (!job) return undefined;
    const ev = transitionEvent(job.id, job.lastSeq, at, from, to, job.attempts, {
      ...r,
      error: r.error ?? undefined,
    });
    return { job, event: { tenantId: job.tenantId, kind: job.kind, event: ev } };
  });
}

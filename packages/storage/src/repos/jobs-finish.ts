// The end of many running attempts in one go (the worker's terminal group commit): per kind of
// outcome ONE compare-and-set UPDATE … FROM (VALUES …) that moves each job out of `running` at
// the attempt's epoch AND reserves the sequence numbers of the attempt's still-queued events,
// then ONE multi-row insert of every event (each attempt's queued events, then its transition
// event). Row by row this is `appendAttemptEvents` followed by `transitionJob` (two updates and
// two inserts per job); the fence and the stored result are the same. Transitions that may leave
// several states (dead_letter, stale), and a job named twice, go row by row.
//
// The row locks are taken here, in id order: inside the UPDATE itself when it is the only one
// (one kind of outcome: the common burst), else by `lockJobs` up front.

import {
  isFinalState,
  sourceStates,
  TRANSITIONS,
  type JobEvent,
  type JobState,
} from '@sluice/contracts';
import { sql } from 'kysely';
import type { Db } from '../database.js';
import { isPostgres } from '../dialect.js';
import { isoNow, toJson } from '../json.js';
import type { JobsTable } from '../schema.js';
import { insertEvents, type EventToInsert, type StoredEvent } from './events.js';
import { toJobRow, type JobRow } from './job-row.js';
import { lockedInStatement } from './lock-in-statement.js';
import {
  appendAttemptEvents,
  lockJobs,
  transitionJob,
  type AttemptEvent,
  type TransitionRequest,
} from './jobs.js';
import { transitionEvent } from './transition-event.js';

export interface FinishAttempt {
  /** A transition out of `running`, fenced by the attempt's epoch. */
  request: TransitionRequest & { epoch: number };
  /** Written before the transition event, with the job's next sequence numbers. */
  events: readonly AttemptEvent[];
}

export type FinishOutcome =
  | { ok: true; job: JobRow; events: StoredEvent[] }
  /** Fenced: nothing of this attempt was written (`job` is set on the row-by-row path only). */
  | { ok: false; job: JobRow | undefined };

const CHUNK = 400;

export async function finishAttempts(
  tx: Db,
  attempts: readonly FinishAttempt[],
  now = Date.now(),
): Promise<FinishOutcome[]> {
  const results = new Array<FinishOutcome>(attempts.length);
  const groups = new Map<string, number[]>();
  const single: number[] = [];
  const seen = new Set<string>();
  attempts.forEach((a, i) => {
    const from = sourceStates(a.request.event);
    if (from.length !== 1 || from[0] !== 'running' || a.request.event === 'reclaim')
      return single.push(i);
    if (seen.has(a.request.id)) return single.push(i);
    seen.add(a.request.id);
    groups.set(a.request.event, [...(groups.get(a.request.event) ?? []), i]);
  });
  const alone = single.length === 0 && groups.size === 1 && attempts.length <= CHUNK;
  if (!alone)
    await lockJobs(
      tx,
      attempts.map((a) => a.request.id),
    );
  const toInsert: EventToInsert[] = [];
  const owners: number[] = [];
  for (const indexes of groups.values()) {
    for (let c = 0; c < indexes.length; c += CHUNK) {
      const chunk = indexes.slice(c, c + CHUNK);
      const rows = await updateGroup(
        tx,
        chunk.map((i) => attempts[i] as FinishAttempt),
        now,
        alone,
      );
      chunk.forEach((i, k) => {
        const row = rows[k];
        if (!row) {
          results[i] = { ok: false, job: undefined };
          return;
        }
        results[i] = { ok: true, job: row.job, events: [] };
        for (const event of row.events) {
          toInsert.push({ tenantId: row.job.tenantId, kind: row.job.kind, event });
          owners.push(i);
        }
      });
    }
  }
  const stored = await insertEvents(tx, toInsert);
  stored.forEach((s, k) => {
    const r = results[owners[k] as number];
    if (r?.ok) r.events.push(s);
  });
  for (const i of single) results[i] = await finishOne(tx, attempts[i] as FinishAttempt, now);
  return results;
}

async function finishOne(tx: Db, a: FinishAttempt, now: number): Promise<FinishOutcome> {
  const { request } = a;
  const appended = await appendAttemptEvents(tx, request.id, request.epoch, a.events, now);
  if (!appended) return { ok: false, job: undefined };
  const r = await transitionJob(tx, request, now);
  return r.ok ? { ok: true, job: r.job, events: [...appended, r.event] } : r;
}

async function updateGroup(
  tx: Db,
  group: readonly FinishAttempt[],
  now: number,
  lockHere: boolean,
) {
  const event = (group[0] as FinishAttempt).request.event;
  const to = TRANSITIONS[event].to as JobState;
  const at = isoNow(now);
  const pg = isPostgres(tx);
  const json = (col: string) => (pg ? sql`cast(${sql.ref(col)} as jsonb)` : sql.ref(col));
  const int = (v: number) => sql`cast(${v} as integer)`;
  const rows = group.map(({ request: r, events }) => {
    return sql`(${r.id}, ${int(r.epoch)}, ${int(events.length)},
      ${r.output === undefined ? null : toJson(r.output)}, ${int(r.output !== undefined ? 1 : 0)},
      ${r.error == null ? null : toJson(r.error)}, ${int(r.error !== undefined ? 1 : 0)},
      ${r.reason ?? null}, ${int(r.reason !== undefined ? 1 : 0)},
      ${r.runAfter ?? null}, ${int(r.runAfter !== undefined ? 1 : 0)})`;
  });
  const result = await sql<JobsTable>`
    with v(id, ep, n, out, has_out, err, has_err, rsn, has_rsn, ra, has_ra) as (values ${sql.join(rows)})
    update jobs set
      state = ${to}, updated_at = ${at}, last_seq = jobs.last_seq + v.n + 1,
      output = case when v.has_out = 1 then ${json('v.out')} else jobs.output end,
      error = case when v.has_err = 1 then ${json('v.err')} else jobs.error end,
      reason = case when v.has_rsn = 1 then v.rsn else jobs.reason end,
      run_after = case when v.has_ra = 1 then v.ra else jobs.run_after end,
      lease_until = null,
      finished_at = ${isFinalState(to) ? sql`${at}` : sql`jobs.finished_at`}
    from v
    where jobs.id = v.id and jobs.state = 'running' and jobs.epoch = v.ep
      ${
        lockHere
          ? lockedInStatement(
              tx,
              group.map((a) => a.request.id),
            )
          : sql``
      }
    returning ${pg ? sql`jobs.*` : sql`*`}`.execute(tx);
  const byId = new Map(result.rows.map((row) => [row.id, toJobRow(row)]));
  return group.map(({ request, events }) => {
    const job = byId.get(request.id);
    if (!job) return undefined;
    const first = job.lastSeq - events.length;
    const built: JobEvent[] = events.map(
      (e, k) => ({ ...e, jobId: job.id, seq: first + k, at }) as JobEvent,
    );
    built.push(
      transitionEvent(job.id, job.lastSeq, at, 'running', to, job.attempts, {
        ...request,
        error: request.error ?? undefined,
      }),
    );
    return { job, events: built };
  });
}

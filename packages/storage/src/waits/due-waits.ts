// The due sweep's reads and writes (the gateway runs it under its scheduler lock): open waits
// whose due time passed (a timeout, a sleep's wake time) through `job_waits_due`; children
// waits whose children ended (read in SQL: a parent whose children still run costs nothing); and, as the belt to the braces, event waits with a matching signal
// that is not consumed (the transactions of both sides make that impossible; the sweep would
// repair it if a bug ever let one through). Each wait is settled and its job queued again in ONE
// transaction that locks the job and re-checks everything it read, so a signal, a cancel or
// another sweeper that got there first wins and this one writes nothing.

import { TERMINAL_STATES, type MessagePointer } from '@sluice/contracts';
import { sql } from 'kysely';
import type { Db, SluiceDatabase } from '../database.js';
import { dialectOf } from '../dialect/storage-dialect.js';
import { isoNow } from '../json.js';
import type { StoredEvent } from '../repos/event-rows.js';
import { readyValue } from './ready-value.js';
import {
  inTransaction,
  lockJob,
  resumeJob,
  settleWait,
  toWaitRow,
  type WaitRow,
} from './wait-rows.js';

/** A wait the sweep may settle. */
export interface SweepCandidate {
  jobId: string;
  waitKey: string;
}

/** Open waits of waiting jobs that may be settled at `now`, oldest due first. */
export async function sweepCandidates(
  db: Db,
  now: number,
  limit: number,
): Promise<SweepCandidate[]> {
  const due = await db
    .selectFrom('job_waits as w')
    .innerJoin('jobs as j', 'j.id', 'w.job_id')
    .select(['w.job_id', 'w.wait_key'])
    .where('w.status', '=', 'open')
    .where('w.due_at', 'is not', null)
    .where('w.due_at', '<=', isoNow(now))
    .where('j.state', '=', 'waiting')
    .orderBy('w.due_at')
    .limit(limit)
    .execute();
  // Only the children waits whose children ended (as ready-value.ts counts them): the open ones
  // still waiting are as many as parents waiting, and each candidate costs a write transaction;
  // a page of those would also hide a ready wait behind it on every pass.
  const children = await db
    .selectFrom('job_waits as w')
    .innerJoin('jobs as j', 'j.id', 'w.job_id')
    .select(['w.job_id', 'w.wait_key'])
    .where('w.status', '=', 'open')
    .where('w.kind', '=', 'children')
    .where('j.state', '=', 'waiting')
    .where(childrenEnded(db))
    .limit(limit)
    .execute();
  // Driven from the signals no wait took (few: those sent before their wait), never from the
  // open waits (as many as jobs waiting).
  const signalled = await db
    .selectFrom('job_signals as s')
    .innerJoin('job_waits as w', (j) =>
      j.onRef('w.job_id', '=', 's.job_id').onRef('w.event', '=', 's.name'),
    )
    .select(['w.job_id', 'w.wait_key'])
    .where('s.consumed_by', 'is', null)
    .where('w.status', '=', 'open')
    .where('w.kind', '=', 'event')
    .limit(limit)
    .execute();
  const seen = new Set<string>();
  const out: SweepCandidate[] = [];
  for (const r of [...due, ...children, ...signalled]) {
    const k = `${r.job_id}\u0000${r.wait_key}`;
    if (seen.has(k)) continue;
    seen.add(k);
    out.push({ jobId: r.job_id, waitKey: r.wait_key });
  }
  return out;
}

/**
 * Whether the children wait `w` is satisfied: `all` — no listed child exists unended (a child
 * gone counts as ended); `any` — a listed child ended or is gone, or the list is empty.
 */
function childrenEnded(db: Db) {
  const elements = sql.raw(dialectOf(db).jsonArrayElements('w.children', 'e'));
  const terminal = sql.join(TERMINAL_STATES.map((state) => sql`${state}`));
  const running = sql`exists (select 1 from ${elements}
    join jobs c on c.id = e.value where c.state not in (${terminal}))`;
  const ended = sql`exists (select 1 from ${elements}
    left join jobs c on c.id = e.value where c.id is null or c.state in (${terminal}))`;
  const none = sql`not exists (select 1 from ${elements})`;
  return sql<boolean>`(case when w.mode = 'any' then (${ended} or ${none}) else not ${running} end)`;
}

/** When the earliest open wait is due (epoch ms), or undefined: the sweep's next wake time. */
export async function nextWaitDue(db: Db): Promise<number | undefined> {
  const row = await db
    .selectFrom('job_waits')
    .select((eb) => eb.fn.min('due_at').as('due'))
    .where('status', '=', 'open')
    .where('due_at', 'is not', null)
    .executeTakeFirst();
  return row?.due ? Date.parse(row.due) : undefined;
}

export interface SweepResult {
  resumed: MessagePointer[];
  events: StoredEvent[];
}

/**
 * Settles what can be settled of `candidates` and queues their jobs again, one transaction per
 * job; `stage` runs in that transaction with the pointers (the dispatch path's enqueue or
 * outbox rows), so a resumed job is never left without a way to its runtime.
 */
export async function settleCandidates(
  database: SluiceDatabase,
  candidates: readonly SweepCandidate[],
  stage: (tx: Db, pointers: MessagePointer[]) => Promise<void>,
  now = Date.now(),
): Promise<SweepResult> {
  const out: SweepResult = { resumed: [], events: [] };
  for (const c of candidates) {
    const r = await inTransaction(database, async (tx) => {
      const job = await lockJob(tx, c.jobId);
      if (!job || job.state !== 'waiting') return undefined;
      const raw = await tx
        .selectFrom('job_waits')
        .selectAll()
        .where('job_id', '=', c.jobId)
        .where('wait_key', '=', c.waitKey)
        .where('status', '=', 'open')
        .executeTakeFirst();
      if (!raw) return undefined;
      const settled = await settleNow(tx, toWaitRow(raw), now);
      if (!settled) return undefined;
      const resumed = await resumeJob(tx, job, now);
      if (resumed) await stage(tx, [resumed.pointer]);
      return resumed;
    });
    if (r) {
      out.resumed.push(r.pointer);
      out.events.push(r.event);
    }
  }
  return out;
}

/** Settles an open wait whose end has come; false when it must go on waiting. */
async function settleNow(tx: Db, w: WaitRow, now: number): Promise<boolean> {
  const ready = await readyValue(tx, w, now);
  return ready !== undefined && settleWait(tx, w.jobId, w.waitKey, ready.status, ready.value, now);
}

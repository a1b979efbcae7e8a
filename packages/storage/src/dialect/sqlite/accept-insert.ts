// The accept group commit's statements on SQLite (and on D1 inside a caller's sequence): the
// jobs insert, then the event rows of exactly the jobs it wrote (SQLite has no data-modifying
// CTE to do both in one statement). Run inside the caller's transaction, so both land together.

import { CompiledQuery } from 'kysely';
import type { Db } from '../../database.js';
import {
  acceptStatement,
  EVENT_COLUMNS,
  jobsInsert,
  type AcceptedJob,
  type AcceptEventRow,
  type EventIdRow,
} from '../../repos/accept-rows.js';

export async function insertAcceptedSqlite(
  tx: Db,
  jobs: readonly AcceptedJob[],
  events: readonly AcceptEventRow[],
  at: string,
): Promise<EventIdRow[]> {
  const q = acceptStatement();
  const text = `${jobsInsert(q, jobs, at)} on conflict do nothing returning id`;
  const ids = await tx.executeQuery<{ id: string }>(CompiledQuery.raw(text, q.params));
  const rows: EventIdRow[] = ids.rows.map((r) => ({ job_id: r.id, event_id: null, seq: null }));
  const inserted = new Set(rows.map((r) => r.job_id));
  rows.push(
    ...(await insertEventRows(
      tx,
      events.filter((e) => inserted.has(e.jobId)),
      at,
    )),
  );
  return rows;
}

async function insertEventRows(
  tx: Db,
  events: readonly AcceptEventRow[],
  at: string,
): Promise<EventIdRow[]> {
  if (events.length === 0) return [];
  const q = acceptStatement();
  const t = q.shared(at);
  const rows = events.map(
    (r) =>
      `(${q.p(r.jobId)}, ${q.p(r.tenantId)}, ${q.p(r.kind)}, ${q.p(r.seq)}, ${q.p(r.seqEnd)}, ` +
      `${q.p(r.type)}, ${q.p(r.payload)}, ${t()})`,
  );
  const result = await tx.executeQuery<{ id: number; job_id: string; seq: number }>(
    CompiledQuery.raw(
      `insert into job_events (${EVENT_COLUMNS}) values ${rows.join(', ')} ` +
        'returning id, job_id, seq',
      q.params,
    ),
  );
  return result.rows.map((r) => ({ job_id: r.job_id, event_id: r.id, seq: r.seq }));
}

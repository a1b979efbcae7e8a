// The accept group commit's statement on PostgreSQL: ONE round trip per chunk. The events insert
// is a data-modifying CTE that reads which jobs the jobs insert wrote (`on conflict do nothing`
// skips a job whose idempotency key another transaction stored), so a skipped job gets no event
// row. Parameters are numbered: a value every row uses (the time) is sent once.

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

export async function insertAcceptedPg(
  tx: Db,
  jobs: readonly AcceptedJob[],
  events: readonly AcceptEventRow[],
  at: string,
): Promise<EventIdRow[]> {
  const q = acceptStatement(true);
  const t = q.shared(at);
  const values = events.map(
    (r, i) =>
      `(${q.p(r.jobId)}, ${q.p(r.tenantId)}, ${q.p(r.kind)}, ${q.p(r.seq)}::int, ` +
      `${q.p(r.seqEnd)}::int, ${q.p(r.type)}, ${q.p(r.payload)}::jsonb, ${t()}, ${i})`,
  );
  const text =
    `with j as (${jobsInsert(q, jobs, at)} on conflict do nothing returning id), ` +
    `e as (insert into job_events (${EVENT_COLUMNS}) select ${EVENT_COLUMNS} ` +
    `from (values ${values.join(', ')}) as v(${EVENT_COLUMNS}, ord) ` +
    'where job_id in (select id from j) order by ord returning id, job_id, seq) ' +
    'select id as job_id, null::bigint as event_id, null::int as seq from j ' +
    'union all select job_id, id, seq from e';
  return (await tx.executeQuery<EventIdRow>(CompiledQuery.raw(text, q.params))).rows;
}

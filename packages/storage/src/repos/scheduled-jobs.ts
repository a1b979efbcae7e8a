// Delayed jobs wait in the jobs table as `scheduled` with their due time in `run_after`; the
// gateway's due-job scheduler reads them here. Both queries read the `jobs_state` index (state
// first), so a large backlog of jobs that are running or done costs them nothing.

import type { Db } from '../database.js';
import { isoNow } from '../json.js';
import type { DispatchableJob } from './job-queries.js';

/** Scheduled jobs due at `now`, earliest first. */
export async function dueScheduledJobs(
  db: Db,
  now: number,
  limit: number,
): Promise<DispatchableJob[]> {
  const rows = await db
    .selectFrom('jobs')
    .select(['id', 'tenant_id', 'kind', 'version', 'priority'])
    .where('state', '=', 'scheduled')
    .where('run_after', '<=', isoNow(now))
    .orderBy('run_after')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    id: r.id,
    tenantId: r.tenant_id,
    kind: r.kind,
    version: r.version,
    state: 'scheduled',
    priority: Number(r.priority),
  }));
}

/** When the earliest scheduled job is due (epoch ms), or `undefined` when none waits. */
export async function nextScheduledDue(db: Db): Promise<number | undefined> {
  const row = await db
    .selectFrom('jobs')
    .select((eb) => eb.fn.min('run_after').as('due'))
    .where('state', '=', 'scheduled')
    .executeTakeFirst();
  return row?.due ? Date.parse(row.due) : undefined;
}

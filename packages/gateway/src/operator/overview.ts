// `jobs.overview`'s reads, each bounded by what is open rather than by history: the open states
// are the ones the partial index `jobs_tenant_open` covers, open waits are those `job_waits_open`
// covers, and parked reasons are grouped and capped. Ended jobs are counted by `jobs.activity`
// (activity.ts), over the finish-time index.

import type { JobState, OverviewResult } from '@sluice/contracts';
import type { Db } from '@sluice/storage/portable';

const OPEN: JobState[] = ['accepted', 'queued', 'running', 'needs_review', 'dead_lettered'];
/** The most distinct parked reasons listed (error texts can be many and long). */
const REASONS = 20;

export async function readOverview(
  db: Db,
  tenantId: string,
  now = Date.now(),
): Promise<OverviewResult> {
  const open = await db
    .selectFrom('jobs')
    .select((eb) => [
      'kind',
      'state',
      eb.fn.countAll<number | string>().as('n'),
      eb.fn.min('created_at').as('oldest'),
    ])
    .where('tenant_id', '=', tenantId)
    .where('state', 'in', OPEN)
    .groupBy(['kind', 'state'])
    .execute();
  const waits = await db
    .selectFrom('job_waits as w')
    .innerJoin('jobs as j', 'j.id', 'w.job_id')
    .select((eb) => ['w.kind', eb.fn.countAll<number | string>().as('n')])
    .where('w.status', '=', 'open')
    .where('j.tenant_id', '=', tenantId)
    .groupBy('w.kind')
    .execute();
  const parked = await db
    .selectFrom('jobs')
    .select((eb) => ['state', 'reason', eb.fn.countAll<number | string>().as('n')])
    .where('tenant_id', '=', tenantId)
    .where('state', 'in', ['needs_review', 'dead_lettered'])
    .groupBy(['state', 'reason'])
    .orderBy('n', 'desc')
    .limit(REASONS)
    .execute();
  const queues = open
    .filter((r) => r.state === 'queued')
    .map((r) => ({
      kind: r.kind,
      depth: Number(r.n),
      oldestAt: String(r.oldest),
      oldestAgeMs: Math.max(0, now - Date.parse(String(r.oldest))),
    }));
  return {
    open: open.map((r) => ({ kind: r.kind, state: r.state as JobState, count: Number(r.n) })),
    queues,
    waiting: [
      ...waits.map((w) => ({
        state: 'waiting' as const,
        reason: `wait: ${w.kind}`,
        count: Number(w.n),
      })),
      ...parked.map((p) => ({
        state: p.state as JobState,
        reason: (p.reason ?? 'no reason').slice(0, 200),
        count: Number(p.n),
      })),
    ],
    at: new Date(now).toISOString(),
  };
}

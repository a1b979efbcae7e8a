// `jobs.activity`'s reads. Finished counts are a range of `jobs_finished` (finish time first), so
// they cost the jobs finished in the last hour, not the table's history. Workers come from the
// running jobs' holders (the `jobs_tenant_open` / `jobs_lease_owner` partial indexes cover
// running rows) joined to `worker_liveness`; an admin's `*` lists the live rows themselves.

import { FINAL_STATES, type ActivityResult, type JobState } from '@sluice/contracts';
import type { Db } from '@sluice/storage/portable';

const MINUTE = 60_000;
/** The most workers listed (a fleet larger than this is read from the metrics). */
const MAX_WORKERS = 200;

const iso = (ms: number) => new Date(ms).toISOString();

export async function readFinished(
  db: Db,
  tenantId: string | null,
  now: number,
): Promise<ActivityResult['finished']> {
  const since15 = iso(now - 15 * MINUTE);
  let q = db
    .selectFrom('jobs')
    .select((eb) => [
      'state',
      eb.fn.countAll<number | string>().as('hour'),
      eb.fn
        .sum<number | string | null>(
          eb.case().when('finished_at', '>=', since15).then(1).else(0).end(),
        )
        .as('quarter'),
    ])
    .where('finished_at', '>=', iso(now - 60 * MINUTE))
    .where('finished_at', 'is not', null)
    .where('state', 'in', [...FINAL_STATES])
    .groupBy('state');
  if (tenantId !== null) q = q.where('tenant_id', '=', tenantId);
  const rows = await q.execute();
  const ordered = [...rows].sort((a, b) => a.state.localeCompare(b.state));
  return [
    ...ordered
      .filter((r) => Number(r.quarter ?? 0) > 0)
      .map((r) => ({
        window: '15m' as const,
        state: r.state as JobState,
        count: Number(r.quarter),
      })),
    ...ordered.map((r) => ({
      window: '1h' as const,
      state: r.state as JobState,
      count: Number(r.hour),
    })),
  ];
}

export async function readWorkers(
  db: Db,
  tenantId: string | null,
  now: number,
): Promise<ActivityResult['workers']> {
  let held = db
    .selectFrom('jobs')
    .select((eb) => ['lease_owner', eb.fn.countAll<number | string>().as('n')])
    .where('state', '=', 'running')
    .where('lease_owner', 'is not', null)
    .groupBy('lease_owner')
    .limit(MAX_WORKERS);
  if (tenantId !== null) held = held.where('tenant_id', '=', tenantId);
  const holders = await held.execute();
  const running = new Map(holders.map((h) => [String(h.lease_owner), Number(h.n)]));
  // A tenant sees the workers running its jobs; only `*` (admin) lists idle workers too, since
  // that list crosses tenants.
  let live = db
    .selectFrom('worker_liveness')
    .select(['worker_id', 'started_at', 'alive_until'])
    .orderBy('worker_id')
    .limit(MAX_WORKERS);
  live =
    tenantId === null
      ? live.where('alive_until', '>', iso(now))
      : running.size === 0
        ? live.where('worker_id', 'in', [''])
        : live.where('worker_id', 'in', [...running.keys()]);
  const rows = await live.execute();
  const known = new Map(rows.map((r) => [r.worker_id, r]));
  const ids = [...new Set([...known.keys(), ...running.keys()])].sort();
  return ids.map((workerId) => ({
    workerId,
    running: running.get(workerId) ?? 0,
    startedAt: known.get(workerId)?.started_at ?? null,
    aliveUntil: known.get(workerId)?.alive_until ?? null,
  }));
}

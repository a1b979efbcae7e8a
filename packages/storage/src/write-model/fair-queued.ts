// Fair dequeue across tenants, shared by every dialect's claim. Within a served (kind, version),
// the queued rows are read per tenant: the distinct tenants with queued work are found by
// skipping along the `jobs_queued` index (kind, version, tenant_id, …) — one probe per tenant,
// never a scan of a tenant's backlog — and each tenant gives at most `limit` of its due rows in
// its own claim order (priority desc, then age). The candidates are then handed out
// round-robin within a priority level: ordered by priority desc, then the row's rank among its
// tenant's rows at that priority, then age. So a tenant's backlog of any size puts at most one
// job per turn ahead of another tenant's new job of the same priority.
//
// Cost per claim: one index probe per tenant with queued work of a served version, plus at most
// `limit` rows read per such tenant (one tenant: the same rows as an unfair claim).

/** A queued candidate as every dialect's pick returns it. */
export type FairCandidate = {
  id: string;
  state: string;
  priority: number;
  created_at: string;
  tenant_id: string;
};

/**
 * Claim order: priority desc, then the row's turn among its tenant's rows of that priority
 * (round-robin), then age. Stable for equal keys; returns a new array.
 */
export function fairOrder<T extends FairCandidate>(rows: readonly T[]): T[] {
  const byTenant = [...rows].sort(
    (a, b) =>
      (a.tenant_id < b.tenant_id ? -1 : a.tenant_id > b.tenant_id ? 1 : 0) ||
      Number(b.priority) - Number(a.priority) ||
      (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0),
  );
  const turn = new Map<T, number>();
  let prev: T | undefined;
  let n = 0;
  for (const row of byTenant) {
    const same =
      prev !== undefined &&
      prev.tenant_id === row.tenant_id &&
      Number(prev.priority) === Number(row.priority);
    n = same ? n + 1 : 0;
    turn.set(row, n);
    prev = row;
  }
  return byTenant.sort(
    (a, b) =>
      Number(b.priority) - Number(a.priority) ||
      (turn.get(a) ?? 0) - (turn.get(b) ?? 0) ||
      (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0),
  );
}

/**
 * SQLite and D1 (one statement per served version): the tenants by a recursive skip along the
 * index, then each tenant's first `limit` due rows through a correlated `IN (… LIMIT)` (SQLite
 * has no LATERAL). `p` names the parameters: kind, version, now, limit, and the extra columns.
 */
export function sqliteFairQueued(
  p: { kind: string; version: string; now: string; limit: string },
  columns: string,
): string {
  const ready = `state = 'queued' and kind = ${p.kind} and version = ${p.version}`;
  return `with recursive t(tenant_id) as (
    select (select tenant_id from jobs where ${ready} order by tenant_id limit 1)
    union all
    select (select tenant_id from jobs where ${ready} and tenant_id > t.tenant_id
      order by tenant_id limit 1) from t where t.tenant_id is not null)
  select ${columns} from t join jobs j on j.id in (select id from jobs
    where ${ready} and tenant_id = t.tenant_id and (run_after is null or run_after <= ${p.now})
      and attempts < max_attempts order by priority desc, created_at limit ${p.limit})`;
}

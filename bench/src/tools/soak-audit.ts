// The scale run's end-of-run audit: every accepted job accounted for exactly once.
import type pg from 'pg';

/** In the run's id map: added once when the producer saw the gateway accept the id. */
export const ACCEPTED = 1_000_000;

export interface AuditInput {
  admin: pg.Client;
  /** id → times a worker reported it succeeded, plus ACCEPTED once accepted. */
  seen: ReadonlyMap<string, number>;
  /** Jobs by state at the end (the last row's). */
  states: Record<string, number>;
  settledOtherwise: number;
  stoppedEarly: boolean;
}

export async function auditRun(o: AuditInput) {
  // An accepted job no worker reported is lost unless it is still in the database, unfinished
  // (a run stopped early, or a backlog the drain wait did not cover).
  const open = await o.admin.query<{ id: string }>(
    `select id from jobs where state in ('accepted', 'queued', 'running')`,
  );
  const stillOpen = new Set(open.rows.map((r) => r.id));
  let lost = 0;
  let acceptedUnfinished = 0;
  let doubleSettled = 0;
  let settledUnknownIds = 0;
  for (const [id, n] of o.seen) {
    if (n === ACCEPTED) {
      if (stillOpen.has(id)) acceptedUnfinished++;
      else lost++;
    }
    if (n % ACCEPTED > 1) doubleSettled++;
    if (n < ACCEPTED) settledUnknownIds++;
  }
  // No-op jobs call no provider: any provider-call ledger row would be a billing bug.
  const ledger = await o.admin.query<{ t: string }>(
    `select relname as t from pg_stat_user_tables where relname like '%ledger%'`,
  );
  const ledgerRows: Record<string, number> = {};
  for (const { t } of ledger.rows)
    ledgerRows[t] = Number((await o.admin.query(`select count(*) as n from ${t}`)).rows[0].n);
  const unfinishedInDatabase = Object.entries(o.states)
    .filter(([s]) => s !== 'succeeded')
    .reduce((a, [, n]) => a + n, 0);
  // Stopped early, unfinished jobs are expected; every one must still be accounted for.
  const complete = unfinishedInDatabase === 0 || o.stoppedEarly;
  return {
    lost,
    acceptedUnfinished,
    doubleSettled,
    settledUnknownIds,
    settledOtherwise: o.settledOtherwise,
    unfinishedInDatabase,
    statesAtEnd: o.states,
    ledgerRows,
    stoppedEarly: o.stoppedEarly,
    ok: lost === 0 && doubleSettled === 0 && o.settledOtherwise === 0 && complete,
  };
}

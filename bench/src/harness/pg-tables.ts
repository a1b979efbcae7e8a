// Per-table row writes of one run, for the per-job durable-work table: which tables a system
// writes for a job and how (inserts, updates and how many of those were HOT, deletes), read from
// `pg_stat_user_tables` of the bench database. That view only exists inside the database, so the
// read opens a short connection of its own (application_name STATS_APPLICATION_NAME); the probe
// waits until that backend is gone before the window opens, so its one commit is published
// before the "before" sample of pg_stat_database (pg-cost.ts) and never counts as the system's.
import pg from 'pg';

export const STATS_APPLICATION_NAME = 'sluice-bench-stats';

export interface TableWrites {
  inserted: number;
  updated: number;
  /** Updates that were HOT (no index entry written; `n_tup_hot_upd`). */
  hotUpdated: number;
  deleted: number;
}

/** `schema.table` → cumulative counters. */
export type TableCounters = Record<string, TableWrites>;

export async function readTableCounters(url: string): Promise<TableCounters> {
  const client = new pg.Client({ connectionString: url, application_name: STATS_APPLICATION_NAME });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const result = await client.query<{
      name: string;
      ins: string;
      upd: string;
      hot: string;
      del: string;
    }>(
      `SELECT schemaname || '.' || relname AS name, n_tup_ins AS ins, n_tup_upd AS upd,
              n_tup_hot_upd AS hot, n_tup_del AS del
       FROM pg_stat_user_tables`,
    );
    const out: TableCounters = {};
    for (const r of result.rows)
      out[r.name] = {
        inserted: Number(r.ins),
        updated: Number(r.upd),
        hotUpdated: Number(r.hot),
        deleted: Number(r.del),
      };
    return out;
  } finally {
    await client.end().catch(() => undefined);
  }
}

const round3 = (v: number) => Math.round(v * 1000) / 1000;

/**
 * Per completed job, the tables the run wrote (untouched tables left out), e.g.
 * `{ 'pgboss.job': { inserted: 0, updated: 2, hotUpdated: 1.2, deleted: 0 } }`.
 */
export function tableWritesPerJob(
  before: TableCounters,
  after: TableCounters,
  jobs: number,
): Record<string, TableWrites> {
  const out: Record<string, TableWrites> = {};
  for (const [name, a] of Object.entries(after)) {
    const b = before[name] ?? { inserted: 0, updated: 0, hotUpdated: 0, deleted: 0 };
    const delta: TableWrites = {
      inserted: a.inserted - b.inserted,
      updated: a.updated - b.updated,
      hotUpdated: a.hotUpdated - b.hotUpdated,
      deleted: a.deleted - b.deleted,
    };
    if (delta.inserted + delta.updated + delta.deleted <= 0) continue;
    out[name] = {
      inserted: round3(delta.inserted / jobs),
      updated: round3(delta.updated / jobs),
      hotUpdated: round3(delta.hotUpdated / jobs),
      deleted: round3(delta.deleted / jobs),
    };
  }
  return out;
}
